// plan().cost: what compacting now costs in each summary request mode (docs/cost.md), on the real
// Claude Code session at the point where Claude Code compacted it, and the options that choose the
// mode, the provider and the prices.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Compactor, CompactionError, Session, importSession } from "context-compaction";
import { fixtureText } from "./fixtures.mjs";

const session = importSession(fixtureText("claude-code/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"), "claude-code");
const before = session.history.slice(0, session.compactions[0].atMessage);

test("claude-code continues the conversation: the cached prefix is read, and it costs far less than a transcript", () => {
  const c = new Compactor({ preset: "claude-code", model: "claude-sonnet-4-5", summarize: "extractive" });
  const { cost, tokensBefore } = c.plan(before);
  assert.equal(cost.provider, "anthropic");
  assert.equal(cost.mode, "continue");
  const { continue: cont, transcript } = cost;
  assert.ok(cont.cacheRead > tokensBefore * 0.9, `${cont.cacheRead} of ${tokensBefore}`);
  assert.equal(cont.cacheWrite, 0);
  assert.equal(cont.cacheWrite5m + cont.cacheWrite1h, cont.cacheWrite);
  assert.ok(cont.fresh > 0 && cont.fresh < 5_000);
  assert.equal(transcript.cacheRead, 0);
  assert.ok(transcript.fresh > 10_000);
  assert.ok(cont.inputEquivalents * 2 < transcript.inputEquivalents, `${cont.inputEquivalents} vs ${transcript.inputEquivalents}`);
  assert.equal(cont.outputTokens, 20_000);
  assert.ok(Math.abs(cont.dollars - (cont.inputEquivalents * 3 + cont.outputTokens * 15) / 1e6) < 1e-4);
  c.free();
});

test("summaryMode and cost options: mode, provider rules and the price table", () => {
  const pi = new Compactor({ preset: "pi", model: "claude-sonnet-4-5", summarize: "extractive" });
  assert.equal(pi.plan(before).cost.mode, "transcript");
  pi.free();
  const chosen = new Compactor({ preset: "claude-code", contextWindow: 200_000, summaryMode: "transcript", summarize: "extractive" });
  assert.equal(chosen.plan(before).cost.mode, "transcript");
  chosen.free();
  // The example of docs/cost.md.
  const example = new Compactor({
    preset: "claude-code",
    model: "claude-sonnet-4-5",
    summarize: "extractive",
    cost: { provider: "anthropic", prices: { input: 3, output: 15, cacheRead: 0.1, cacheWrite5m: 1.25, cacheWrite1h: 2 }, minCacheTokens: 1024, cacheTtl: "1h" },
  });
  assert.equal(example.plan(before).cost.provider, "anthropic");
  example.free();
  const openai = new Compactor({ contextWindow: 400_000, summarize: "extractive", cost: { provider: "openai", prices: { cacheRead: 0.5 } } });
  const o = openai.plan(before).cost;
  assert.equal(o.provider, "openai");
  assert.equal((o.continue.cacheRead - 1024) % 128, 0);
  assert.equal(o.continue.inputEquivalents, Math.round(o.continue.fresh + o.continue.cacheRead * 0.5));
  openai.free();
  const none = new Compactor({ contextWindow: 400_000, summarize: "extractive", cost: { provider: "none" } });
  assert.equal(none.plan(before).cost.continue.cacheRead, 0);
  none.free();
  for (const [options, path] of [
    [{ summaryMode: "chat" }, "summaryMode"],
    [{ cost: { provider: "azure" } }, "cost.provider"],
    [{ cost: { prices: { output: -1 } } }, "cost.prices.output"],
    [{ cost: { cacheTtl: "1d" } }, "cost.cacheTtl"],
  ]) {
    assert.throws(() => new Compactor({ contextWindow: 100_000, summarize: "extractive", ...options }), (e) => e instanceof CompactionError && e.code === "INVALID_OPTIONS" && e.path === path);
  }
});

test("Session.plan() previews a compaction of the live context as Compactor.plan() does, cost included", () => {
  const options = { preset: "claude-code", model: "claude-sonnet-4-5", summarize: "extractive" };
  const c = new Compactor(options);
  const expected = c.plan(before);
  c.free();
  const s = new Session(options);
  assert.equal(s.plan().noop, true, "an empty session plans nothing");
  assert.equal(s.plan().cost, null);
  s.append(before);
  const version = s.version;
  const plan = s.plan();
  assert.equal(s.version, version, "nothing changed");
  assert.deepEqual(Object.keys(plan).sort(), Object.keys(expected).sort());
  for (const key of ["shouldCompact", "summarize", "kept", "system", "splitTurn", "noop"]) {
    assert.deepEqual(plan[key], expected[key], key);
  }
  assert.equal(plan.cost.mode, "continue");
  assert.equal(plan.cost.provider, "anthropic");
  assert.equal(plan.cost.continue.outputTokens, expected.cost.continue.outputTokens);
  assert.ok(plan.cost.continue.cacheRead > plan.tokensBefore * 0.9);
  assert.ok(plan.cost.continue.inputEquivalents * 2 < plan.cost.transcript.inputEquivalents);
  s.free();
});
