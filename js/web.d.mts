// Types of `context-compaction/web`: the package's API plus `init` for plain browser pages.
export * from "./index.js";

/** What `init` accepts: a URL or path of the `.wasm`, a Response, its bytes, or a compiled module. */
export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;

/** Loads the wasm module once; call and await it before any other function. */
export declare function init(input?: InitInput | Promise<InitInput>): Promise<void>;

/** Loads the wasm module synchronously from its bytes or a compiled module. */
export declare function initSync(module: BufferSource | WebAssembly.Module): void;
