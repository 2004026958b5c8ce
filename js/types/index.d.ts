// The declarations of everything the WebAssembly module exports, one file per subject. They are
// written by hand and tied to the code by tests/js/declarations.test.mjs; the build writes an ES
// module and a CommonJS copy of each (pkg/types/esm, pkg/types/cjs, scripts/types.mjs).
export * from "./options.js";
export * from "./results.js";
export * from "./compactor.js";
export * from "./session.js";
export * from "./formats.js";
export * from "./tokens.js";
export * from "./overflow.js";
