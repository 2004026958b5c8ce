// Entry for bundlers (kept for compatibility): the browser entry, initialised on import.
export * from "./browser.mjs";
