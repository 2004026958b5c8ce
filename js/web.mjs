// Plain-browser entry: `await init()` once, then use the API. Exact encodings are fetched from
// beside the package by `await loadEncoding(name)` (or from a source you give).
import initWasm, * as wasm from "../pkg/web/context_compaction.js";
import { CompactionError } from "./error.mjs";
import { makeLoadEncoding } from "./source.mjs";

export * from "../pkg/web/context_compaction.js";
export { CompactionError };

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

export const loadEncoding = makeLoadEncoding(wasm, CompactionError);
