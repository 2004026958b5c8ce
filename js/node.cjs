"use strict";
// Node entry (CommonJS; the ES module entry re-exports this one, so there is one instance).
// Exact encodings load by themselves from the package directory on first use.
const fs = require("node:fs");
const path = require("node:path");
const wasm = require("../pkg/node/context_compaction.js");
const { CompactionError } = require("./error.cjs");

const tablePath = (name) => path.join(__dirname, "..", "encodings", `${name}.tiktoken`);
wasm.__configure(CompactionError, (name) => fs.readFileSync(tablePath(name)));

const fromUrl = (url) => (url.protocol === "file:" ? fs.promises.readFile(url) : fetch(url));

/** Loads a rank table (Node loads the shipped ones by itself on first use). */
async function loadEncoding(encoding, source) {
  const { makeLoadEncoding } = await import("./source.mjs");
  return makeLoadEncoding(wasm, CompactionError, fromUrl)(encoding, source);
}

module.exports = {
  ...require("../pkg/node/context_compaction.js"),
  CompactionError,
  loadEncoding,
};
