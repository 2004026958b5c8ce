// Type-checked: a plain browser page using the `web` entry.
import { init, initSync, loadEncoding, countTokens, type InitInput } from "context-compaction/web";

const input: InitInput = new URL("https://example.com/context_compaction_bg.wasm");
await init(input);
await init();
initSync(new Uint8Array());
await loadEncoding("o200k_base", (url) => fetch(url));
export const tokens: number = countTokens("hi", "o200k_base");
