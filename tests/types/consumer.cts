// Type-checked as CommonJS: `require` users get the same declarations.
import cc = require("context-compaction");

const n: number = cc.countTokens("hello", "cl100k_base");
const e: cc.ErrorCode = "ENCODING_UNAVAILABLE";
export const check = [n, e, cc.CompactionError] as const;
