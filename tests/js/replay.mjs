import assert from "node:assert/strict";
// Shared replay of a real, long pi coding session for the agent-loop tests (agent-*.test.mjs).
// The session is read from tests/fixtures/pi/large-session.jsonl (in the repository) and
// turned into user turns of scripted model steps: each step's tool calls (name, id, arguments)
// and the outputs the tools really returned, so a replayed conversation grows like the real one.
import { Compactor, validateMessages } from "context-compaction";
import { isDeepStrictEqual } from "node:util";
import { parseSession, replayedGenerate, toolNames } from "./replay-session.mjs";
import { fixtureText } from "./fixtures.mjs";

export { parseSession, replayedGenerate, toolNames };


/** Compactor options shared by the loops: a small window so that compaction fires many times. */
export const compactorOptions = {
  contextWindow: 40_000,
  reserveTokens: 4_000,
  keepRecentTokens: 8_000,
  trigger: { fraction: 0.8 },
};

/** Marks our fake summaries, so the tests can find the summary message in a prompt. */
export const SUMMARY_MARK = "[replay summary";

/**
 * Loads the session (a missing fixture fails the test: it belongs in the repository).
 * @returns {{ turns: Turn[], chars: number, steps: number, calls: number }}
 */
export function loadSession() {
  return parseSession(fixtureText("pi/large-session.jsonl"));
}

/** A fake summarizer: no network, a short summary built from the transcript's first and last lines. */
export function fakeSummarize(stats) {
  return async (req) => {
    stats.summaries += 1;
    if (typeof req.transcript !== "string" || req.transcript.length === 0) throw new Error("empty transcript");
    const lines = req.transcript.split("\n").filter((l) => l.trim());
    const clip = (s) => (s.length > 120 ? `${s.slice(0, 120)}…` : s);
    const head = `${SUMMARY_MARK} #${stats.summaries}, ${req.purpose}, round ${req.round}] ${req.messages.length} messages.`;
    return `${head} First: ${clip(lines[0] ?? "")} Last: ${clip(lines.at(-1) ?? "")}`;
  };
}

/**
 * Wraps `compactor.maybeCompact` with the checks every loop makes: the input is never mutated
 * (deep-equal snapshot before and after, for every `every`-th call), `validate` runs on every
 * compacted array, the calls and compactions are counted, and the largest estimate of what
 * maybeCompact returned is kept (it must fit the window).
 */
export function checkedMaybeCompact(compactor, stats, validate, every = 1) {
  return async (messages) => {
    stats.calls += 1;
    const before = stats.calls % every === 0 ? structuredClone(messages) : null;
    const result = await compactor.maybeCompact(messages);
    if (before) {
      stats.snapshots += 1;
      if (!isDeepStrictEqual(before, messages)) stats.mutations.push(stats.calls);
    }
    stats.maxTokens = Math.max(stats.maxTokens, compactor.estimate(result).total);
    if (result !== messages) {
      stats.compacted += 1;
      stats.shrunk.push([messages.length, result.length]);
      validate(result);
    }
    return result;
  };
}

/** The most tokens a request may carry: the window less the room kept for the reply. */
export const budget = compactorOptions.contextWindow - compactorOptions.reserveTokens;

export function newStats() {
  return { calls: 0, compacted: 0, summaries: 0, afterEvents: 0, mutations: [], shrunk: [], requests: 0, snapshots: 0, maxTokens: 0 };
}

/**
 * A Compactor for a replay loop in `format`, counting its compactions, and its checked
 * maybeCompact: every changed array must pass `validateMessages` (and `extraCheck`, if given);
 * problems are pushed to `problems`.
 */
export function instrumentedCompactor(format, options, stats, problems, extraCheck = () => []) {
  const compactor = new Compactor({
    ...compactorOptions,
    ...options,
    format,
    summarize: fakeSummarize(stats),
    onAfterCompaction: () => {
      stats.afterEvents += 1;
    },
  });
  const maybeCompact = checkedMaybeCompact(compactor, stats, (compacted) => {
    for (const v of validateMessages(compacted, format)) problems.push(`validateMessages: ${v.kind} at ${v.path}: ${v.detail}`);
    problems.push(...extraCheck(compacted));
  });
  return { compactor, maybeCompact };
}

/** The closing checks of a provider-format replay loop (OpenAI, Anthropic). */
export function assertLoopCompleted(t, { session, turns, finished, executed, requests, stats, problems }) {
  t.diagnostic(
    `turns ${finished}, requests ${requests}, tool calls ${executed}, compactions ${stats.compacted}, ` +
      `summaries ${stats.summaries}, largest request ${stats.maxTokens} tokens (budget ${budget})`,
  );
  assert.deepEqual(problems.slice(0, 10), [], `${problems.length} problems`);
  assert.deepEqual(stats.mutations, [], "maybeCompact never mutates its input");
  assert.equal(finished, turns.length, "the session completes");
  assert.equal(executed, session.calls, "every recorded tool call was executed");
  assert.equal(requests, session.steps + turns.length);
  assert.ok(stats.withSummary > 0, "requests after a compaction carry the summary");
  assert.ok(stats.compacted >= 2, `compaction fired ${stats.compacted} times`);
  assert.equal(stats.afterEvents, stats.compacted, "onAfterCompaction fired once per compaction");
  assert.ok(stats.maxTokens <= budget, `every request fits the window (largest ${stats.maxTokens} tokens)`);
}

