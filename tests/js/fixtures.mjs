// The one way the JS tests reach the real sessions: `tests/fixtures` (pi and Claude Code, MIT,
// licenses beside them) and the sample session the package ships (`www/sample/`). A missing file fails the test.
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The path of `tests/fixtures/<rel>` (or, with `bundled`, of the shipped sample `www/sample/<rel>`). */
export function fixturePath(rel, { bundled = false } = {}) {
  const path = fileURLToPath(new URL(bundled ? `../../www/sample/${rel}` : `../fixtures/${rel}`, import.meta.url));
  if (!existsSync(path)) throw new Error(`fixture missing: ${path} (fixtures belong in the repository)`);
  return path;
}

/** The text of a fixture (see `fixturePath`). */
export function fixtureText(rel, options) {
  return readFileSync(fixturePath(rel, options), "utf8");
}
