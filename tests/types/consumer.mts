// Type-checked by `tsc --noEmit -p tests/types`: what an ES module TypeScript user writes.
import {
  countTokens,
  estimateTokens,
  loadEncoding,
  isEncodingLoaded,
  CompactionError,
  type EncodingName,
  type ErrorCode,
  type EncodingSource,
  type Tokenizer,
} from "context-compaction";

const encoding: EncodingName = "o200k_base";
const tokenizer: Tokenizer = "heuristic";
const exact: number = countTokens("hello", encoding);
const estimate: number = estimateTokens("hello") + estimateTokens("hello", tokenizer);
const loaded: boolean = isEncodingLoaded("cl100k_base");
const sources: EncodingSource[] = [
  new Uint8Array(),
  new ArrayBuffer(0),
  new URL("https://example.com/o200k_base.tiktoken"),
  "./o200k_base.tiktoken",
  (url: URL) => fetch(url),
  async () => "IQ== 0",
];
await loadEncoding("cl100k_base", sources[0]);

try {
  countTokens("x", encoding);
} catch (error) {
  if (error instanceof CompactionError) {
    const code: ErrorCode = error.code;
    const path: string | undefined = error.path;
    console.log(code, path, error.message, exact, estimate, loaded);
  }
}

// Misuse is a type error.
// @ts-expect-error: not a known encoding
countTokens("x", "p50k_base");
// @ts-expect-error: text must be a string
estimateTokens(42);
// @ts-expect-error: not a tokenizer
estimateTokens("x", "gpt2");
// @ts-expect-error: codes are a closed union
const wrong: ErrorCode = "OOPS";
void wrong;
