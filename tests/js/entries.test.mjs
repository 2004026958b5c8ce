// Every entry point exports the whole API, guarded, and nothing internal.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import * as esm from "context-compaction";

const require = createRequire(import.meta.url);
const raw = require("../../pkg/node/context_compaction.cjs");
const cjs = require("../../js/node.cjs");
// The glue's own initialisers (`initSync`, the default async init) are not API: the entries run them.
const api = Object.keys(raw).filter((k) => !k.startsWith("__") && k !== "initSync" && k !== "default").sort();

test("the Node entries export every function and class of the bindings, and no internal one", () => {
  assert.ok(api.length >= 12, api.join(", "));
  for (const [name, entry] of [["esm", esm], ["cjs", cjs]]) {
    const names = Object.keys(entry).sort();
    for (const k of api) assert.ok(names.includes(k), `${name} lacks ${k}`);
    for (const k of names) assert.ok(!k.startsWith("__"), `${name} exports ${k}`);
    assert.ok(names.includes("CompactionError") && names.includes("loadEncoding"));
  }
});

test("the web entry lists every function and class of the bindings", async () => {
  const { readFileSync } = await import("node:fs");
  const source = readFileSync(new URL("../../js/web.mjs", import.meta.url), "utf8");
  const webRaw = readFileSync(new URL("../../pkg/web/context_compaction.js", import.meta.url), "utf8");
  const exported = [...webRaw.matchAll(/^export (?:class|function|async function) ([A-Za-z_$][\w$]*)/gm)].map((m) => m[1]).filter((k) => !k.startsWith("__") && k !== "initSync");
  assert.ok(exported.length >= 12);
  for (const k of exported) assert.match(source, new RegExp(`^  ${k},$`, "m"), `js/web.mjs lacks ${k}`);
});
