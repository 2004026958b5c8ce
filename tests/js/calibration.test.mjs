// Model-aware estimates and self-calibration through the package's API. Every real session with
// usage numbers is replayed as an agent loop would run it: before each request, `check(messages,
// { usage })` with the usage of the previous response; its count is set against the prompt the
// provider then reported. The growth of the count since the previous response (what `check`
// estimates) is compared with the provider's growth, first with the base estimate (no model), then
// with the model-aware estimate calibrating itself. The same for a Session with recordUsage, whose
// calibration survives toJSONL / fromJSONL; and safetyMargin "auto" keeps more room before any
// usage than after. (The native `tests/calibration_replay.rs` reports the per-turn ratios on the
// fit and held-out sessions.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { Compactor, Session, importSession } from "context-compaction";
import { fixtureText } from "./fixtures.mjs";

// The growth measured is the tail `check` estimates: the messages after the previous response,
// against the provider's `prompt − previous input − previous output`.
// The pi sessions: their history keeps each assistant message's usage (a Claude Code history holds
// the API messages alone; the native replay reads Claude Code's usage from the file's lines).
const SESSIONS = [
  ["pi", "pi/large-session.jsonl"],
  ["pi", "pi/before-compaction.jsonl"],
];

/** Disjoint usage numbers of a pi or Anthropic usage object, or null. */
function usageOf(message) {
  const u = message.usage;
  if (!u) return null;
  const n = (x) => (typeof x === "number" ? x : 0);
  const input = n(u.input ?? u.input_tokens);
  const cacheRead = n(u.cacheRead ?? u.cache_read_input_tokens);
  const cacheWrite = n(u.cacheWrite ?? u.cache_creation_input_tokens);
  const output = n(u.output ?? u.output_tokens);
  const prompt = input + cacheRead + cacheWrite;
  return prompt > 0 ? { usage: { input, output, cacheRead, cacheWrite }, prompt, total: prompt + output } : null;
}

/** `[messages, usage index pairs]` of a session file: the history and its assistant usages. */
function load(kind, file) {
  const session = importSession(fixtureText(file), kind);
  const messages = session.history;
  const usages = [];
  for (const [i, m] of messages.entries()) {
    if (m.role !== "assistant") continue;
    const u = usageOf(m);
    if (u) usages.push({ at: i, model: m.model, ...u });
  }
  const cuts = session.compactions.map((c) => c.atMessage);
  return { format: session.format, messages, usages, cuts };
}

/**
 * Replays a session through `compactor.check`, as an agent loop would. For each request, returns
 * `[base, model-aware, self-calibrated, provider]` tokens of the tail: `base.estimate` and
 * `compactor.estimate` of the messages after the previous response (estimate() never learns), and
 * what `check` with the previous usage added to it (the count minus that usage).
 */
function replay(base, compactor, { messages, usages, cuts }) {
  const rows = [];
  for (let k = 1; k < usages.length; k++) {
    const prev = usages[k - 1];
    const next = usages[k];
    // the provider's count of one context: same model, no compaction in between
    if (prev.model !== next.model || cuts.some((c) => c > prev.at && c <= next.at)) continue;
    const before = messages.slice(0, next.at);
    // only when the previous response is the latest assistant message before the request
    const between = messages.slice(prev.at + 1, next.at);
    if (between.length === 0 || between.some((m) => m.role === "assistant")) continue;
    const { tokens } = compactor.check(before, { usage: prev.usage });
    const provider = next.prompt - prev.total;
    if (provider > 0 && next.prompt > prev.prompt) {
      rows.push([base.estimate(between).total, compactor.estimate(between).total, tokens - prev.total, provider]);
    }
  }
  return rows;
}

function stats(pairs) {
  const sum = (i) => pairs.reduce((a, p) => a + p[i], 0);
  const ratios = pairs.map(([e, p]) => e / p).sort((a, b) => a - b);
  return { aggregate: sum(0) / sum(1), median: ratios[Math.floor(ratios.length / 2)], turns: pairs.length };
}

test("check learns from usage: the model-aware, self-calibrated count follows Anthropic's", () => {
  const rows = [];
  for (const [kind, file] of SESSIONS) {
    const data = load(kind, file);
    assert.ok(data.usages.length > 5, `${file}: usage numbers`);
    const plain = new Compactor({ contextWindow: 10_000_000, summarize: "extractive", format: data.format });
    const claude = new Compactor({ model: "claude-sonnet-4-5", contextWindow: 10_000_000, summarize: "extractive", format: data.format });
    rows.push(...replay(plain, claude, data));
    const { calibration } = claude.estimate([]);
    assert.equal(calibration.provider, "anthropic");
    assert.ok(calibration.samples > 100, `${file}: learned from usage (${JSON.stringify(calibration)})`);
    for (const f of Object.values(calibration.factors)) assert.ok(f >= 0.5 && f <= 2, `${file}: factor ${f}`);
    assert.equal(plain.estimate([]).calibration.provider, "o200k");
  }
  const [base, aware, calibrated] = [0, 1, 2].map((i) => stats(rows.map((r) => [r[i], r[3]])));
  console.log(`tail estimate / provider: base ${JSON.stringify(base)}; model-aware ${JSON.stringify(aware)}; self-calibrated ${JSON.stringify(calibrated)}`);
  assert.ok(rows.length > 500);
  assert.ok(base.aggregate < 0.9, `the base estimate undercounts Anthropic (${base.aggregate})`);
  for (const s of [aware, calibrated]) assert.ok(s.aggregate > 0.9 && s.aggregate < 1.1, JSON.stringify(s));
});

test("the same response checked twice teaches nothing; an outlier is bounded", () => {
  const data = load("pi", "pi/large-session.jsonl");
  const c = new Compactor({ model: "claude-opus-4-5", contextWindow: 10_000_000, summarize: "extractive", format: "pi" });
  const [a, b] = data.usages.filter((u, i, all) => i > 0 && u.prompt - all[i - 1].prompt > 2_000);
  const upto = (u) => data.messages.slice(0, u.at + 1);
  c.check(upto(a), { usage: a.usage });
  c.check(upto(b), { usage: b.usage });
  const once = c.estimate([]).calibration;
  c.check(upto(b), { usage: b.usage });
  assert.deepEqual(c.estimate([]).calibration, once, "same anchor: no second lesson");
  // a usage reported after a provider-side truncation (the prompt shrank) teaches nothing either
  const later = data.usages[data.usages.length - 1];
  c.check(upto(later), { usage: { ...later.usage, cacheRead: 0, cacheWrite: 0, input: 10 } });
  const after = c.estimate([]).calibration;
  assert.equal(after.samples, once.samples);
  // switched off, usage calibrates the count but teaches nothing
  const off = new Compactor({ model: "claude-opus-4-5", contextWindow: 10_000_000, summarize: "extractive", format: "pi", selfCalibration: false });
  off.check(upto(a), { usage: a.usage });
  off.check(upto(b), { usage: b.usage });
  assert.equal(off.estimate([]).calibration.samples, 0);
  assert.throws(() => new Compactor({ contextWindow: 1_000, summarize: "extractive", selfCalibration: 1 }), (e) => e.path === "selfCalibration");
});

test("a Session learns from recordUsage, reports the error, and keeps its calibration in the log", () => {
  const data = load("pi", "pi/large-session.jsonl");
  const options = { model: "claude-sonnet-4-5", contextWindow: 10_000_000, summarize: "extractive", safetyMargin: "auto" };
  const s = new Session(options);
  const first = s.check();
  assert.equal(first.calibration.samples, 0);
  assert.equal(first.calibration.error, 0.18, "the Anthropic profile's expected error");
  let next = 0;
  let margins = [];
  for (const u of data.usages.slice(0, 120)) {
    s.append(data.messages.slice(next, u.at + 1));
    next = u.at + 1;
    const check = s.check();
    margins.push(check.tokensError / Math.max(1, check.tokens));
    s.recordUsage(u.usage);
  }
  const { calibration, tokensError, tokens } = s.check();
  assert.ok(calibration.samples > 50, JSON.stringify(calibration));
  assert.ok(calibration.error < first.calibration.error, "calibrated: smaller expected error");
  assert.ok(tokensError >= 0 && tokensError < tokens);
  // before any usage the whole count is estimated; afterwards only the tail is
  assert.ok(margins[0] > margins[margins.length - 1]);
  const text = s.toJSONL();
  const loaded = Session.fromJSONL(text, options);
  assert.equal(loaded.toJSONL(), text);
  assert.deepEqual(loaded.check().calibration, calibration);
  // a log written before self-calibration loads: no calibration, the model's prior
  const old = text
    .split("\n")
    .map((line) => (line.startsWith('{"type":"usage"') ? line.replace(/,"calibration":\{.*\}\}$/, "}") : line))
    .join("\n");
  assert.ok(!old.split("\n").some((l) => l.startsWith('{"type":"usage"') && l.includes('"calibration"')));
  const legacy = Session.fromJSONL(old, options);
  assert.equal(legacy.check().calibration.samples, 0);
});

test("safetyMargin \"auto\": an uncalibrated estimate leaves more room than a calibrated one", () => {
  const data = load("pi", "pi/large-session.jsonl");
  const options = { model: "claude-sonnet-4-5", contextWindow: 200_000, reserveTokens: 16_000, summarize: "extractive", trigger: { fraction: 1 } };
  const auto = new Compactor({ ...options, safetyMargin: "auto" });
  const fixed = new Compactor(options);
  const messages = data.messages.slice(0, data.usages[30].at);
  const usage = data.usages[29].usage;
  // the whole context estimated: a large margin
  const cold = auto.check(messages);
  assert.ok(cold.tokensError > 1_000, JSON.stringify(cold));
  assert.equal(cold.threshold, fixed.check(messages).threshold - cold.tokensError);
  // with usage, only the tail is estimated: a smaller margin, and calibration shrinks it further
  for (let k = 1; k < 30; k++) auto.check(data.messages.slice(0, data.usages[k].at + 1), { usage: data.usages[k].usage });
  const warm = auto.check(messages, { usage });
  assert.ok(warm.tokensError < cold.tokensError);
  assert.ok(warm.threshold > cold.threshold);
  assert.throws(() => new Compactor({ ...options, safetyMargin: "big" }), (e) => e.code === "INVALID_OPTIONS" && e.path === "safetyMargin");
});

test("a Session with safetyMargin \"auto\" compacts where its check fires, below the plain threshold", async () => {
  const options = { model: "claude-sonnet-4-5", contextWindow: 20_000, reserveTokens: 2_000, keepRecentTokens: 2_000, summarize: "extractive", trigger: { fraction: 1 }, format: "ai-sdk" };
  const auto = new Session({ ...options, safetyMargin: "auto" });
  const plain = new Session(options);
  let i = 0;
  while (!auto.check().shouldCompact) {
    const turn = [
      { role: "user", content: `request ${i}: ` + "please look at the build output again ".repeat(20) },
      { role: "assistant", content: `answer ${i}: ` + "the build fails in the linker step ".repeat(20) },
    ];
    auto.append(turn);
    plain.append(turn);
    i++;
    assert.ok(i < 200, "the trigger fires");
  }
  const check = auto.check();
  assert.ok(check.tokensError > 0);
  assert.ok(!plain.check().shouldCompact, "without the margin the trigger does not fire yet");
  assert.equal(check.threshold, plain.check().threshold - check.tokensError);
  await auto.prepare();
  assert.ok(auto.entries().some((e) => e.type === "compaction"), "prepare() compacted");
  assert.ok(!auto.check().shouldCompact, JSON.stringify(auto.check()));
});
