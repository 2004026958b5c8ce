// Counting a text's tokens: `estimateTokens`, `countTokens`, `isEncodingLoaded`
// (src/wasm/tokens.rs; `loadEncoding` is declared by js/index.d.ts).
import type { EncodingName, Tokenizer } from "./options.js";

/**
 * Estimated tokens of `text`: the content-aware heuristic when `tokenizer` is `"heuristic"` (the
 * default), or the exact count of `countTokens` when it names an encoding.
 */
export function estimateTokens(text: string, tokenizer?: Tokenizer | null): number;
/**
 * The exact token count of `text` in `encoding`, on tiktoken's ordinary path (special-token strings
 * are text). Throws `ENCODING_UNAVAILABLE` when the rank table is not loaded and cannot be.
 */
export function countTokens(text: string, encoding: EncodingName): number;
/**
 * Whether the rank table of `encoding` is loaded, that is whether `countTokens` with it works
 * right now.
 */
export function isEncodingLoaded(encoding: EncodingName): boolean;
