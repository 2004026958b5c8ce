// Writes the package's rank tables (encodings/<name>.ranks) from tiktoken's .tiktoken files:
//   node scripts/gen-ranks.mjs [dir-with-.tiktoken-files] [out-dir]
// The .tiktoken files are OpenAI's (https://openaipublic.blob.core.windows.net/encodings/<name>.tiktoken);
// by default they are read from encodings/ and the .ranks files written there.
// Format (read by src/core/tokens/table_file.rs): the 8 bytes "\0ccranks", the token count n as a
// little-endian u32, the n token lengths (one byte each, in rank order: ranks are 0..n-1), then the
// tokens' bytes one after the other.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const MAGIC = Buffer.from("\0ccranks", "latin1");
const EXPECTED = { o200k_base: 199_998, cl100k_base: 100_256 };

export function pack(tiktoken, expected) {
  const tokens = new Array(expected);
  for (const line of tiktoken.toString("latin1").split("\n")) {
    if (!line) continue;
    const [b64, rankText] = line.split(" ");
    const rank = Number(rankText);
    if (!Number.isInteger(rank) || rank < 0 || rank >= expected || tokens[rank]) {
      throw new Error(`bad or repeated rank in line "${line}"`);
    }
    const token = Buffer.from(b64, "base64");
    if (token.length === 0 || token.length > 255) throw new Error(`bad token in line "${line}"`);
    tokens[rank] = token;
  }
  const missing = tokens.findIndex((t) => t === undefined);
  if (missing !== -1 || tokens.length !== expected) throw new Error(`rank ${missing} missing`);
  const count = Buffer.alloc(4);
  count.writeUInt32LE(expected);
  return Buffer.concat([MAGIC, count, Buffer.from(tokens.map((t) => t.length)), ...tokens]);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const from = process.argv[2] ?? "encodings";
  const to = process.argv[3] ?? from;
  for (const [name, expected] of Object.entries(EXPECTED)) {
    const packed = pack(readFileSync(join(from, `${name}.tiktoken`)), expected);
    writeFileSync(join(to, `${name}.ranks`), packed);
    console.log(`${name}.ranks: ${packed.length} bytes`);
  }
}
