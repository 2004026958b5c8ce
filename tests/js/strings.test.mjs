// Strings cross into wasm as the UTF-8 the engine's `TextEncoder.encodeInto` writes into wasm
// memory (src/wasm/plain.rs `string_of`: a 256-byte first write, then one byte per unit left, then
// three): what arrives is what the string holds, whether it is ASCII, starts or ends with other
// characters, or has a surrogate pair where a write runs out of room; a lone surrogate arrives as
// U+FFFD, as it does in a short string.
import { test } from "node:test";
import assert from "node:assert/strict";
import { countTokens, estimateTokens, importSession } from "context-compaction";

const ascii = (n) => "abcdefghij klmnop, qrstuv.\n".repeat(Math.ceil(n / 27)).slice(0, n);

/** Strings around the 128-character switch and the end of the first write, in every composition. */
function cases() {
  const out = [];
  for (const n of [0, 1, 100, 127, 128, 129, 130, 254, 255, 256, 257, 1_000, 100_000]) {
    const base = ascii(n);
    out.push(base, "é" + base, base + "é", "😀" + base, base + "😀", "日本語のテキスト".repeat(Math.ceil(n / 8)).slice(0, n));
    if (n > 2) {
      // a surrogate pair astride the end of the first write (`length` bytes), and just before it
      out.push(base.slice(0, n - 1) + "😀" + base.slice(n - 1), base.slice(0, n - 2) + "😀" + base.slice(n - 2));
      // many multi-byte characters late in the string: the rest needs more than the first write left
      out.push(base.slice(0, n >> 1) + "ü€😀".repeat(n >> 2));
    }
  }
  return out;
}

/** A pi session file holding one user message with `text`. */
function piSession(text) {
  const header = { type: "session", id: "s1", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/" };
  const message = { type: "message", id: "m1", parentId: null, timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: [{ type: "text", text }], timestamp: 1 } };
  return `${JSON.stringify(header)}\n${JSON.stringify(message)}\n`;
}

test("a long string arrives in wasm as it is, in any composition", () => {
  for (const text of cases()) {
    const what = `${text.length} characters starting ${JSON.stringify(text.slice(0, 3))}`;
    // padded past the switch, so the file text is long even when `text` is short
    const file = piSession(text) + " ".repeat(200);
    const imported = importSession(file, "pi");
    const content = imported.messages[0].content;
    const got = typeof content === "string" ? content : content.map((p) => p.text).join("");
    assert.equal(got, text, what);
  }
});

test("a lone surrogate in a long string counts as U+FFFD, as in a short one", () => {
  for (const [lone, at] of [["\ud800", 0], ["\udc00", 130], ["\ud83d", 500]]) {
    for (const n of [10, 300]) {
      const base = ascii(n);
      const withLone = base.slice(0, Math.min(at, n)) + lone + base.slice(Math.min(at, n));
      const replaced = withLone.replace(lone, "\ufffd");
      assert.equal(countTokens(withLone, "o200k_base"), countTokens(replaced, "o200k_base"), `${n} characters, lone at ${at}`);
      assert.equal(estimateTokens(withLone), estimateTokens(replaced), `${n} characters, lone at ${at}, estimated`);
    }
  }
});
