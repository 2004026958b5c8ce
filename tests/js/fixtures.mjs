// The one way the JS tests reach the real sessions: `tests/fixtures` (pi and Claude Code, MIT,
// licenses beside them) and the package's bundled `fixtures/`. A missing file fails the test.
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The path of `tests/fixtures/<rel>` (or, with `bundled`, of the package's `fixtures/<rel>`). */
export function fixturePath(rel, { bundled = false } = {}) {
  const path = fileURLToPath(new URL(bundled ? `../../fixtures/${rel}` : `../fixtures/${rel}`, import.meta.url));
  if (!existsSync(path)) throw new Error(`fixture missing: ${path} (fixtures belong in the repository)`);
  return path;
}

/** The text of a fixture (see `fixturePath`). */
export function fixtureText(rel, options) {
  return readFileSync(fixturePath(rel, options), "utf8");
}
