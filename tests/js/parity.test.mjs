// One behaviour per preset, whichever handle runs it: every preset runs the same real sessions
// (tests/fixtures) through `Compactor.maybeCompact`, `Compactor.compact` and `Session.prepare`,
// turn by turn over several rounds, and the decisions are compared: when each compacts, the
// summary requests (purpose, round, budget), the rounds, the continue message, and what a failing
// summarizer does. Both handles drive the core's pipeline (src/core/pipeline).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Compactor, Session, importSession } from "context-compaction";
import { fixtureText } from "./fixtures.mjs";

const PRESETS = [
  "pi", "codex", "opencode", "claude-code", "langchain", "anthropic-api",
  "pi-plan", "compaction-layer", "block-pipeline", "workstream",
  "seed-000", "seed-001", "seed-003", "seed-004",
];

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

/** A summarizer that records what it was asked and answers briefly. */
function recorder() {
  const requests = [];
  const summarize = (r) => {
    requests.push({ purpose: r.purpose, round: r.round, maxTokens: r.maxTokens });
    return `Summary ${requests.length}: the user worked on the project; ${r.messages.length} messages.`;
  };
  return { requests, summarize };
}

let window = 24_000;
const options = (preset, summarize) => ({ preset, contextWindow: window, reserveTokens: 2_000, summarize, retries: 0 });

/** Whether the context ends with OpenCode's continue message. */
const continues = (messages) => /Continue if you have next steps/.test(JSON.stringify(messages.at(-1)));

/** The decisions of `maybeCompact` over the turns, keeping what it returns as an agent does. */
async function viaCompactor(preset, list) {
  const { requests, summarize } = recorder();
  let messages = [];
  const steps = [];
  const auto = new Compactor(options(preset, summarize));
  for (const t of list) {
    messages = [...messages, ...t];
    const before = requests.length;
    const out = await auto.maybeCompact(messages);
    const compacted = out !== messages && requests.length > before;
    steps.push({ compacted, requests: requests.slice(before), continued: compacted && continues(out) });
    messages = out;
  }
  return steps;
}

/** The decisions of `Session.prepare` over the same turns. */
async function viaSession(preset, list, format) {
  const { requests, summarize } = recorder();
  const s = new Session({ ...options(preset, summarize), format });
  const steps = [];
  for (const t of list) {
    s.append(t);
    const before = requests.length;
    const count = s.entries().filter((e) => e.type === "compaction").length;
    await s.prepare();
    const compacted = s.entries().filter((e) => e.type === "compaction").length > count;
    steps.push({ compacted, requests: requests.slice(before), continued: compacted && continues(s.render().messages) });
  }
  return steps;
}

for (const [file, kind, limit, size] of SESSIONS) {
  const imported = importSession(fixtureText(file), kind);
  const list = turns(imported.history.slice(0, limit));

  test(`${file}: every preset makes the same compaction decisions through maybeCompact and Session.prepare`, async () => {
    window = size;
    for (const preset of PRESETS) {
      const a = await viaCompactor(preset, list);
      const b = await viaSession(preset, list, imported.format);
      const first = (steps) => steps.findIndex((s) => s.compacted);
      assert.ok(first(a) >= 0, `${preset}: the session is long enough to compact`);
      assert.equal(first(b), first(a), `${preset}: both compact first at the same turn`);
      // The first compaction sees the same history: the same summary requests.
      assert.deepEqual(b[first(b)].requests, a[first(a)].requests, `${preset}: the same summary requests`);
      const continued = (steps) => steps.find((s) => s.compacted).continued;
      assert.equal(continued(b), continued(a), `${preset}: the same continue message`);
      assert.equal(continued(a), preset === "opencode", `${preset}: only OpenCode continues`);
      const rounds = (steps) => steps.flatMap((s) => s.requests.map((r) => r.round));
      assert.ok(rounds(a).length > 0 && rounds(b).length > 0, `${preset}: summaries were written`);
      assert.equal(rounds(a)[0], 1, `${preset}: the first round is 1`);
      assert.equal(rounds(b)[0], 1, `${preset}: the first round is 1`);
    }
  });

  test(`${file}: a failing summarizer gets the same answer from both handles under every policy`, async () => {
    window = size;
    const history = list.flat();
    for (const preset of ["pi", "opencode", "seed-000"]) {
      for (const onFailure of ["auto", "unchanged", "extractive", "reject"]) {
        const failing = async () => {
          throw new Error("provider down");
        };
        const o = { ...options(preset, failing), onFailure, onError: () => {} };
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
      }
    }
  });
}
