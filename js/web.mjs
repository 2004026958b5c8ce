// Plain-browser entry: `await init()` once, then use the API. Exact encodings are fetched from
// beside the package by `await loadEncoding(name)` (or from a source you give).
import initWasm, * as wasm from "../pkg/web/context_compaction.js";
import { CompactionError } from "./error.mjs";
import { makeCompactionMiddleware } from "./ai-sdk.mjs";
import { installDriver } from "./driver.mjs";
import { guard } from "./guard.mjs";
import { makeLoadEncoding } from "./source.mjs";
import { installStoredSession } from "./stored-session.mjs";
import { withStoredCompactor } from "./stored-compactor.mjs";
import { memoryStore } from "./stores/memory.mjs";

export { CompactionError, memoryStore };

// Tables installed by `loadEncoding`, given back to a reset instance (after a trap).
const installed = new Map();
// The compactions' steps run in JS (js/driver.mjs), installed before the guard wraps the API.
const driver = installDriver(wasm, CompactionError);
const { api, wrap } = guard(driver.wasm, CompactionError, () => {
  driver.reset();
  wasm.__configure(CompactionError);
  for (const [name, bytes] of installed) wasm.__installEncoding(name, bytes);
});
api.Compactor = withStoredCompactor(api.Compactor, CompactionError);

// The API, every call guarded (tests/js/entries.test.mjs checks that nothing is missing).
export const {
  Compactor,
  Session,
  convertMessages,
  countTokens,
  describeContextOverflow,
  estimateTokens,
  factRetention,
  importSession,
  isContextOverflowError,
  isEncodingLoaded,
  repairMessages,
  trimMessages,
  validateMessages,
  withOverflowRecovery,
} = api;

installStoredSession(Session, CompactionError);

/** The AI SDK middleware that compacts every call's prompt (see the types). */
export const compactionMiddleware = makeCompactionMiddleware(Compactor, isContextOverflowError, CompactionError);

let ready;

/** Loads the wasm module (once; later calls return the same promise). */
export function init(input) {
  ready ??= initWasm(input === undefined ? undefined : { module_or_path: input }).then(() => {
    wasm.__configure(CompactionError);
  });
  return ready;
}

/** Loads the wasm module synchronously from its bytes or a compiled module. */
export function initSync(module) {
  wasm.initSync({ module });
  wasm.__configure(CompactionError);
}

export const loadEncoding = wrap(makeLoadEncoding(wasm, CompactionError, undefined, installed));
