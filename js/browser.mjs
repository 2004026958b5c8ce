// Browser and bundler entry (Vite, webpack, Rollup): the web build, initialised on import.
import { init } from "./web.mjs";

export * from "./web.mjs";
await init();
