// Token counting through the built package, as an ES module user imports it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { get_encoding } from "tiktoken";
import { getEncoding } from "js-tiktoken";
import {
  countTokens,
  estimateTokens,
  loadEncoding,
  isEncodingLoaded,
  CompactionError,
} from "context-compaction";
import { root } from "./pack.mjs";
import { fixtureText } from "./fixtures.mjs";

const corpus = JSON.parse(readFileSync(new URL("../data/token-parity.json", import.meta.url), "utf8"));
const fixture = fixtureText("claude-code-tool-heavy.jsonl", { bundled: true });

test("Node loads the shipped rank tables by itself on first use", () => {
  assert.equal(countTokens("hello world", "cl100k_base"), 2);
  assert.equal(isEncodingLoaded("cl100k_base"), true);
});

for (const name of ["o200k_base", "cl100k_base"]) {
  test(`${name}: counts equal OpenAI's tiktoken and js-tiktoken on real texts`, () => {
    const reference = get_encoding(name);
    const independent = getEncoding(name);
    const texts = [...corpus.map((s) => s.text), ...fixture.split("\n"), fixture];
    for (const text of texts) {
      const expected = reference.encode_ordinary(text).length;
      assert.equal(countTokens(text, name), expected, text.slice(0, 80));
      assert.equal(independent.encode(text, [], []).length, expected);
    }
    reference.free();
  });
}

test("special-token strings are ordinary text, never an error", () => {
  const text = "<|endoftext|> and <|endofprompt|>";
  assert.equal(countTokens(text, "o200k_base"), get_encoding("o200k_base").encode_ordinary(text).length);
});

test("estimateTokens: heuristic by default, exact when given an encoding", () => {
  assert.equal(estimateTokens(""), 0);
  assert.ok(estimateTokens("The quick brown fox jumps over the lazy dog.") > 5);
  assert.equal(estimateTokens(fixture, "o200k_base"), countTokens(fixture, "o200k_base"));
  assert.equal(estimateTokens("abc", "heuristic"), estimateTokens("abc"));
});

test("loadEncoding accepts the package's .ranks and OpenAI's .tiktoken, as bytes or a URL", async () => {
  for (const name of ["o200k_base", "cl100k_base"]) {
    const sample = "Tokenizers differ: 東京 ünïcödé 12345 <|endoftext|>\n\n  ";
    const expected = get_encoding(name).encode_ordinary(sample).length;
    for (const file of [`${name}.ranks`, `${name}.tiktoken`]) {
      const url = new URL(`encodings/${file}`, pathToFileURL(root));
      await loadEncoding(name, readFileSync(url));
      assert.equal(countTokens(sample, name), expected, file);
      await loadEncoding(name, url);
      assert.equal(countTokens(sample, name), expected, file);
    }
  }
});

test("loadEncoding accepts bytes, a file URL, and a fetch-like function", async () => {
  const path = new URL("encodings/cl100k_base.tiktoken", pathToFileURL(root));
  const bytes = readFileSync(path);
  await loadEncoding("cl100k_base", bytes);
  await loadEncoding("cl100k_base", bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  await loadEncoding("cl100k_base", path);
  let asked;
  await loadEncoding("cl100k_base", async (url) => {
    asked = url;
    return { ok: true, status: 200, arrayBuffer: async () => bytes.buffer.slice(bytes.byteOffset) };
  });
  assert.ok(asked instanceof URL && asked.pathname.endsWith("/encodings/cl100k_base.ranks"));
  await loadEncoding("cl100k_base", () => bytes.toString("utf8"));
  assert.equal(countTokens("hello world", "cl100k_base"), 2);
});

test("loadEncoding errors are CompactionErrors with a code and a path", async () => {
  const rejects = (promise, code, path) =>
    assert.rejects(promise, (e) => e instanceof CompactionError && e.code === code && e.path === path);
  await rejects(loadEncoding("p50k_base"), "INVALID_INPUT", "encoding");
  await rejects(loadEncoding("o200k_base", 42), "INVALID_INPUT", "source");
  await rejects(loadEncoding("o200k_base", new Uint8Array([1, 2, 3])), "INVALID_INPUT", "source:1");
  await rejects(loadEncoding("o200k_base", () => ({ ok: false, status: 404 })), "ENCODING_UNAVAILABLE", undefined);
  const thrown = new Error("network down");
  await assert.rejects(
    loadEncoding("o200k_base", () => Promise.reject(thrown)),
    (e) => e instanceof CompactionError && e.code === "ENCODING_UNAVAILABLE" && e.cause === thrown,
  );
  // The wrong table for the name is refused, and the loaded table stays in use.
  await rejects(loadEncoding("o200k_base", readFileSync(new URL("encodings/cl100k_base.tiktoken", pathToFileURL(root)))), "INVALID_INPUT", "source");
  await rejects(loadEncoding("o200k_base", readFileSync(new URL("encodings/cl100k_base.ranks", pathToFileURL(root)))), "INVALID_INPUT", "source");
  assert.equal(countTokens("hello world", "o200k_base"), 2);
});

test("bad arguments throw CompactionError with the parameter as path", () => {
  assert.throws(
    () => countTokens("x", "gpt2"),
    (e) => e instanceof CompactionError && e instanceof Error && e.code === "INVALID_INPUT" && e.path === "encoding",
  );
  assert.throws(() => estimateTokens("x", "nope"), (e) => e.code === "INVALID_INPUT" && e.path === "tokenizer");
  assert.throws(() => countTokens("x", undefined), (e) => e.code === "INVALID_INPUT");
});

test("a piece over 4 MiB counts as tiktoken does (issue 23)", async () => {
  await loadEncoding("o200k_base");
  assert.equal(countTokens("aaab".repeat(1_048_577), "o200k_base"), 1_048_578);
});
