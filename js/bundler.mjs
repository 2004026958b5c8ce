// Entry for bundlers with WebAssembly ES-module integration (webpack `asyncWebAssembly`).
import * as wasm from "../pkg/bundler/context_compaction.js";
import { CompactionError } from "./error.mjs";
import { makeLoadEncoding } from "./source.mjs";

export * from "../pkg/bundler/context_compaction.js";
export { CompactionError };
wasm.__configure(CompactionError);

export const loadEncoding = makeLoadEncoding(wasm, CompactionError);
