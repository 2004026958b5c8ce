// Every preset name the documentation shows is one the package takes: the README's preset table,
// docs/presets.md's table (names and their `seed-…` aliases), the `PresetName` type, and the CLI's
// help. Each is constructed through the public API, as a Compactor and as a Session.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Compactor, Session } from "context-compaction";
import { root } from "./pack.mjs";

const read = (file) => readFileSync(join(root, file), "utf8");
const quoted = (text) => [...text.matchAll(/"([a-z0-9-]+)"/g)].map((m) => m[1]);

function documentedNames() {
  const readme = read("README.md");
  const table = readme.slice(readme.indexOf("| preset | behaves like |"), readme.indexOf("docs/presets.md", readme.indexOf("| preset | behaves like |")));
  const fromReadme = [...table.matchAll(/^\| `"([a-z0-9-]+)"` \|/gm)].map((m) => m[1]);
  const presets = read("docs/presets.md");
  const fromDocs = [...presets.matchAll(/^\| `([a-z0-9-]+)`(?: \(`([a-z0-9-]+)`\))? \|/gm)].flatMap((m) => [m[1], m[2]]).filter(Boolean);
  const types = read("js/types/options.d.ts");
  const union = types.slice(types.indexOf("export type PresetName ="), types.indexOf(";", types.indexOf("export type PresetName =")));
  return { fromReadme, fromDocs, fromType: quoted(union) };
}

test("every preset name in the README, docs/presets.md and PresetName constructs, as a Compactor and a Session", () => {
  const { fromReadme, fromDocs, fromType } = documentedNames();
  assert.ok(fromReadme.length >= 10, `README names ${fromReadme.length} presets`);
  assert.ok(fromDocs.length >= 14, `docs/presets.md names ${fromDocs.length} presets and aliases`);
  assert.deepEqual([...new Set(fromDocs)].sort(), [...new Set(fromType)].sort(), "the docs and the type name the same presets");
  for (const name of fromReadme) assert.ok(fromType.includes(name), `${name} is a PresetName`);
  for (const preset of new Set([...fromReadme, ...fromDocs, ...fromType])) {
    const compactor = new Compactor({ contextWindow: 200_000, preset, summarize: "extractive" });
    assert.ok(compactor.check([{ role: "user", content: "hi" }]).threshold > 0, preset);
    const session = new Session({ contextWindow: 200_000, preset, summarize: "extractive" });
    session.append({ role: "user", content: "hi" });
    assert.equal(session.check().shouldCompact, false, preset);
  }
});

test("an unknown preset is INVALID_OPTIONS naming every accepted name", () => {
  assert.throws(
    () => new Compactor({ contextWindow: 200_000, preset: "pi-planner", summarize: "extractive" }),
    (e) => e.code === "INVALID_OPTIONS" && e.path === "preset" && /pi-plan/.test(e.message) && /workstream/.test(e.message),
  );
});
