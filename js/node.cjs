"use strict";
// Node entry (CommonJS; the ES module entry re-exports this one, so there is one instance).
// Exact encodings load by themselves from the package directory on first use.
const fs = require("node:fs");
const path = require("node:path");
// wasm-bindgen's web glue, built to CommonJS (scripts/build.sh), on the module the web entry uses.
const wasm = require("../pkg/node/context_compaction.cjs");
wasm.initSync({ module: fs.readFileSync(path.join(__dirname, "..", "pkg", "web", "context_compaction_bg.wasm")) });
const { guard } = require("../pkg/node/guard.cjs");
const { installDriver } = require("../pkg/node/driver.cjs");
const { makeCompactionMiddleware } = require("../pkg/node/ai-sdk.cjs");
const { installStoredSession } = require("../pkg/node/stored-session.cjs");
const { withStoredCompactor } = require("../pkg/node/stored-compactor.cjs");
const { memoryStore } = require("../pkg/stores/memory.cjs");
const { CompactionError } = require("./error.cjs");

const tablePath = (name) => path.join(__dirname, "..", "encodings", `${name}.ranks`);
// Also after a reset: the fresh instance reads the shipped tables again on first use.
const configure = () => wasm.__configure(CompactionError, (name) => fs.readFileSync(tablePath(name)));
configure();
const installed = new Map();
// The compactions' steps run in JS (js/driver.mjs), installed before the guard wraps the API.
const driver = installDriver(wasm, CompactionError);
const { api, wrap } = guard(driver.wasm, CompactionError, () => {
  driver.reset();
  configure();
  for (const [name, bytes] of installed) wasm.__installEncoding(name, bytes);
});

installStoredSession(api.Session, CompactionError);
api.Compactor = withStoredCompactor(api.Compactor, CompactionError);

const fromUrl = (url) => (url.protocol === "file:" ? fs.promises.readFile(url) : fetch(url));

/** Loads a rank table (Node loads the shipped ones by itself on first use). */
const loadEncoding = wrap(async function loadEncoding(encoding, source) {
  const { makeLoadEncoding } = await import("./source.mjs");
  return makeLoadEncoding(wasm, CompactionError, fromUrl, installed)(encoding, source);
});

// Not API: a guarded call that traps, for the tests of the reset (a symbol, so `import *` never
// sees it).
Object.defineProperty(exports, Symbol.for("context-compaction.trap"), { value: wrap(() => wasm.__trap()) });

// One assignment per name, so that Node's ES module entry sees every export (tests/js/entries.test.mjs
// checks that nothing of the API is missing).
exports.Compactor = api.Compactor;
exports.Session = api.Session;
exports.convertMessages = api.convertMessages;
exports.countTokens = api.countTokens;
exports.describeContextOverflow = api.describeContextOverflow;
exports.estimateTokens = api.estimateTokens;
exports.factRetention = api.factRetention;
exports.importSession = api.importSession;
exports.isContextOverflowError = api.isContextOverflowError;
exports.isEncodingLoaded = api.isEncodingLoaded;
exports.repairMessages = api.repairMessages;
exports.trimMessages = api.trimMessages;
exports.validateMessages = api.validateMessages;
exports.withOverflowRecovery = api.withOverflowRecovery;
exports.compactionMiddleware = makeCompactionMiddleware(api.Compactor, api.isContextOverflowError, CompactionError);
exports.CompactionError = CompactionError;
exports.memoryStore = memoryStore;
exports.loadEncoding = loadEncoding;
