// One behaviour per preset, whichever handle runs it (issue 22): every preset runs the same real
// sessions (tests/fixtures, pi and Claude Code) turn by turn over several compaction rounds through
// three handles, each fed what an agent would send:
// - `Compactor.maybeCompact` (the agent keeps what it returns),
// - `Compactor.check` + `Compactor.compact` on the same input (the manual loop of docs/api.md),
// - `Session.append` + `Session.prepare`.
// At every turn they must agree on whether to compact, on the summary requests (purpose, round,
// budget, what is summarized, the previous summary, the prompt) and on the live context the model
// gets next, on every round. With `pi` and `seed-000` (settings.keep_after_compaction) a later
// compaction does not keep again what the previous one kept: the Session knows those messages from
// its log's compaction entry (docs/session.md, "the loader rule"), the Compactor from what it
// returned. The one documented difference is asserted, not skipped: `compact()` is not an
// automatic compaction, so it never adds the preset's continue message (OpenCode's "Continue if
// you have next steps"), which `maybeCompact` and `prepare()` add.
// A failing summarizer gets the same answer from both handles under every preset and policy,
// forced and mid-run (the breaker). The summarizer is a deterministic fake.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Compactor, Session, importSession } from "context-compaction";
import { fixtureText } from "./fixtures.mjs";

const PRESETS = [
  "pi", "codex", "opencode", "claude-code", "langchain", "anthropic-api",
  "pi-plan", "compaction-layer", "block-pipeline", "workstream",
  "seed-000", "seed-001", "seed-003", "seed-004",
];
/** The presets whose later compactions never keep again what the previous one kept. */
const KEEP_AFTER_COMPACTION = new Set(["pi", "seed-000"]);
const CONTINUES = new Set(["opencode"]);

// File, kind, messages used, context window.
const SESSIONS = [
  ["pi/large-session.jsonl", "pi", 240, 24_000],
  ["claude-code/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl", "claude-code", 400, 24_000],
];

/** Turns of a history: each starts at a message a user wrote (the last one ends the history). */
function turns(history) {
  const starts = history
    .map((m, i) => (m.role === "user" && (typeof m.content === "string" || m.content?.some?.((p) => p.type === "text")) ? i : -1))
    .filter((i) => i >= 0);
  if (starts[0] !== 0) starts.unshift(0);
  return starts.map((s, k) => history.slice(s, starts[k + 1] ?? history.length)).filter((t) => t.length > 0);
}

/** A deterministic summarizer that records what it was asked (`fail(n)`: the nth call throws). */
function recorder(fail = () => false) {
  const requests = [];
  const summarize = (r) => {
    requests.push({
      purpose: r.purpose,
      round: r.round,
      maxTokens: r.maxTokens,
      messages: r.messages.length,
      previousSummary: r.previousSummary ?? null,
      prompt: r.prompt,
    });
    if (fail(requests.length)) throw new Error("provider down");
    return `Summary ${requests.length} (${r.purpose}, round ${r.round}): the user worked on the project; ${r.messages.length} messages.`;
  };
  return { requests, summarize };
}

const options = (preset, summarize, window) => ({ preset, contextWindow: window, reserveTokens: 2_000, summarize, retries: 0 });

/** Whether the context ends with OpenCode's continue message. */
const continues = (messages) => /Continue if you have next steps/.test(JSON.stringify(messages.at(-1)));

/** One turn at a time through the three handles; what each did at every turn. */
async function run(preset, list, format, window) {
  const [a, c, b] = [recorder(), recorder(), recorder()];
  const auto = new Compactor(options(preset, a.summarize, window));
  const manual = new Compactor(options(preset, c.summarize, window));
  const session = new Session({ ...options(preset, b.summarize, window), format });
  const steps = [];
  let live = [];
  for (const t of list) {
    const input = [...live, ...t];
    const before = [a.requests.length, c.requests.length, b.requests.length];
    const out = await auto.maybeCompact(input);
    const check = manual.check(input);
    const compacted = check.shouldCompact ? (await manual.compact(input)).messages : input;
    session.append(t);
    const count = session.entries().filter((e) => e.type === "compaction").length;
    const prepared = (await session.prepare({ cacheControl: false })).messages;
    steps.push({
      maybeCompact: { compacted: out !== input, requests: a.requests.slice(before[0]), live: out },
      compact: { compacted: check.shouldCompact, requests: c.requests.slice(before[1]), live: compacted },
      prepare: {
        compacted: session.entries().filter((e) => e.type === "compaction").length > count,
        requests: b.requests.slice(before[2]),
        live: prepared,
      },
    });
    live = out;
  }
  auto.free();
  manual.free();
  session.free();
  return steps;
}

for (const [file, kind, limit, window] of SESSIONS) {
  const imported = importSession(fixtureText(file), kind);
  const list = turns(imported.history.slice(0, limit));

  test(`${file}: every preset compacts alike through maybeCompact, compact and Session.prepare, round after round`, async () => {
    for (const preset of PRESETS) {
      const steps = await run(preset, list, imported.format, window);
      const where = (k) => `${preset}, turn ${k}`;
      let rounds = 0;
      for (const [k, { maybeCompact: a, compact: c, prepare: b }] of steps.entries()) {
        // maybeCompact and check + compact get the same input: the same decision, the same
        // requests, the same context but for the continue message of automatic compactions.
        assert.equal(c.compacted, a.compacted, `${where(k)}: check() agrees with maybeCompact`);
        assert.deepEqual(c.requests, a.requests, `${where(k)}: compact() asks the same`);
        const continued = a.compacted && continues(a.live);
        if (continued) assert.ok(CONTINUES.has(preset), `${where(k)}: only OpenCode continues`);
        if (a.compacted && CONTINUES.has(preset) && !continued) {
          assert.equal(a.live.at(-1).role, "user", `${where(k)}: the continue message is left out only after a user message`);
        }
        assert.deepEqual(c.live, continued ? a.live.slice(0, -1) : a.live, `${where(k)}: compact() returns the same context, without a continue message`);
        if (a.compacted) {
          rounds += 1;
          assert.equal(a.requests.find((r) => r.purpose !== "turn-prefix")?.round ?? rounds, rounds, `${where(k)}: round ${rounds}`);
        }
        assert.equal(b.compacted, a.compacted, `${where(k)}: the Session compacts at the same turn`);
        if (a.compacted && rounds > 1 && KEEP_AFTER_COMPACTION.has(preset)) {
          // What the previous compaction returned is summarized, none of it kept again.
          const previous = steps.slice(0, k).findLast((s) => s.maybeCompact.compacted).maybeCompact.live;
          const kept = (m) => a.live.some((x) => x === m);
          assert.ok(!previous.filter((m) => m.role !== "system").some(kept), `${where(k)}: nothing the previous compaction returned is kept again`);
        }
        assert.deepEqual(b.requests.map(({ prompt, ...r }) => r), a.requests.map(({ prompt, ...r }) => r), `${where(k)}: the same summary requests`);
        assert.deepEqual(b.requests.map((r) => r.prompt), a.requests.map((r) => r.prompt), `${where(k)}: the same prompts`);
        assert.deepEqual(b.live, a.live, `${where(k)}: the same live context`);
      }
      assert.ok(rounds >= 2, `${preset}: the run reaches a second round (${rounds})`);
    }
  });

  test(`${file}: a failing summarizer gets the same answer from both handles under every preset and policy`, async () => {
    const history = list.flat();
    for (const preset of PRESETS) {
      for (const onFailure of ["auto", "unchanged", "extractive", "reject"]) {
        const failing = async () => {
          throw new Error("provider down");
        };
        const o = { ...options(preset, failing, window), onFailure, onError: () => {} };
        const c = new Compactor(o);
        const a = await c.maybeCompact(history, { force: true }).then(
          (m) => (m === history ? "unchanged" : "compacted"),
          (e) => e.code,
        );
        const s = new Session({ ...o, format: imported.format });
        s.append(history);
        const b = await s.prepare({ force: true }).then(
          () => (s.entries().some((e) => e.type === "compaction") ? "compacted" : "unchanged"),
          (e) => e.code,
        );
        assert.equal(b, a, `${preset} with onFailure ${onFailure}`);
        // `compact()` rejects on both, whatever the policy.
        await assert.rejects(c.compact(history), (e) => e.code === "SUMMARIZER_FAILED");
        const fresh = new Session({ ...o, format: imported.format });
        fresh.append(history);
        await assert.rejects(fresh.compact(), (e) => e.code === "SUMMARIZER_FAILED");
        c.free();
        s.free();
        fresh.free();
      }
    }
  });

  test(`${file}: a summarizer that fails after the first round: the same outcome at every turn, breaker included`, async () => {
    for (const preset of ["pi", "pi-plan", "codex", "opencode", "claude-code", "seed-000", "seed-001"]) {
      for (const onFailure of ["auto", "unchanged", "reject"]) {
        // The first request succeeds, every later one fails.
        const a = recorder((n) => n > 1);
        const b = recorder((n) => n > 1);
        const o = (summarize) => ({ ...options(preset, summarize, window), onFailure, maxConsecutiveFailures: 2, onError: () => {} });
        const auto = new Compactor(o(a.summarize));
        const session = new Session({ ...o(b.summarize), format: imported.format });
        let live = [];
        for (const [k, t] of list.entries()) {
          const input = [...live, ...t];
          const before = [a.requests.length, b.requests.length];
          const x = await auto.maybeCompact(input).then((m) => ((live = m), m === input ? "unchanged" : "compacted"), (e) => ((live = input), e.code));
          session.append(t);
          const count = session.entries().filter((e) => e.type === "compaction").length;
          const y = await session.prepare().then(
            () => (session.entries().filter((e) => e.type === "compaction").length > count ? "compacted" : "unchanged"),
            (e) => e.code,
          );
          const where = `${preset}, onFailure ${onFailure}, turn ${k}`;
          assert.equal(y, x, where);
          assert.equal(b.requests.length - before[1], a.requests.length - before[0], `${where}: the same summarizer calls`);
        }
        assert.ok(a.requests.length >= 2, `${preset}: a failing round happened`);
        auto.free();
        session.free();
      }
    }
  });
}
