// The "real client" proof for the Vercel AI SDK: a tool-calling agent loop with `generateText`
// (tools, `stopWhen`, `prepareStep` calling `maybeCompact`) driven by the SDK's own mock language
// model, over a replay of a long real coding session. Every prompt the model receives must be valid
// for the SDK, carry no orphaned tool result, and the session must run to its end.
import { test } from "node:test";
import assert from "node:assert/strict";
import { generateText, jsonSchema, stepCountIs, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";

import { promptViolations, schemaErrors, summaryPlacement } from "./prompt-checks.mjs";
import {
  budget,
  instrumentedCompactor,
  loadSession,
  newStats,
  replayedGenerate,
  toolNames,
} from "./replay.mjs";

globalThis.AI_SDK_LOG_WARNINGS = false;

const SYSTEM = "You are a coding agent working in the pi-mono repository. Use the tools.";

/** A scripted model: per turn, the session's tool steps, then its final text answer. */
function scriptedModel(turns, stats, problems) {
  const cursor = { turn: -1, step: 0 };
  const model = new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      stats.requests += 1;
      for (const p of promptViolations(prompt)) problems.push(`request ${stats.requests}: ${p}`);
      const misplaced = summaryPlacement(prompt);
      if (misplaced) problems.push(`request ${stats.requests}: ${misplaced}`);
      if (prompt[0]?.role !== "system" || prompt[0].content !== SYSTEM) problems.push(`request ${stats.requests}: system prompt lost`);
      stats.maxPromptChars = Math.max(stats.maxPromptChars ?? 0, JSON.stringify(prompt).length);
      const turn = turns[cursor.turn];
      const usage = {
        inputTokens: { total: 1000, noCache: 1000, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 100, text: 100, reasoning: 0 },
      };
      return replayedGenerate(turn, cursor, usage);
    },
  });
  return { model, startTurn: (i) => Object.assign(cursor, { turn: i, step: 0 }), cursor };
}

async function runLoop(t, options) {
  const session = loadSession();
  const { turns } = session;
  assert.ok(session.chars > 300_000, `the replay is long (${session.chars} characters)`);
  const byId = new Map(turns.flatMap((turn) => turn.steps.flatMap((s) => s.calls.map((c) => [c.id, c]))));
  assert.equal(byId.size, session.calls, "tool call ids are unique");

  const stats = newStats();
  const problems = [];
  const { compactor, maybeCompact } = instrumentedCompactor("ai-sdk", options, stats, problems, (c) => schemaErrors(c, "compacted"));

  const executed = [];
  const tools = Object.fromEntries(
    toolNames(turns).map((name) => [
      name,
      tool({
        description: `Replayed ${name} tool`,
        inputSchema: jsonSchema({ type: "object", additionalProperties: true }),
        execute: async (input, { toolCallId }) => {
          const call = byId.get(toolCallId);
          assert.ok(call && call.name === name, `known call ${toolCallId}`);
          assert.deepEqual(input, call.args, "the SDK passes the arguments through");
          executed.push(toolCallId);
          if (call.isError) throw new Error(call.output);
          return call.output;
        },
      }),
    ]),
  );

  const { model, startTurn, cursor } = scriptedModel(turns, stats, problems);
  let history = [];
  let inPrepareStep = 0;
  let finished = 0;
  for (const [i, turn] of turns.entries()) {
    // The application keeps its history compacted between turns…
    history = await maybeCompact([...history, { role: "user", content: turn.user }]);
    problems.push(...schemaErrors(history, `turn ${i} history`));
    startTurn(i);
    const result = await generateText({
      model,
      system: SYSTEM,
      messages: history,
      tools,
      stopWhen: stepCountIs(turn.steps.length + 5),
      // …and the SDK's growing step messages are compacted before every model call.
      prepareStep: async ({ messages }) => {
        const before = stats.compacted;
        const compacted = await maybeCompact(messages);
        inPrepareStep += stats.compacted - before;
        return { messages: compacted };
      },
    });
    assert.equal(result.finishReason, "stop", `turn ${i} ends with the model's answer`);
    assert.equal(result.text, turn.final, `turn ${i} final text`);
    assert.equal(result.steps.length, turn.steps.length + 1, `turn ${i} ran every scripted step`);
    assert.equal(cursor.step, turn.steps.length + 1);
    history = [...history, ...result.response.messages];
    finished += 1;
  }

  t.diagnostic(
    `turns ${finished}, model calls ${stats.requests}, tool calls ${executed.length}, maybeCompact calls ${stats.calls}, ` +
      `compactions ${stats.compacted} (${inPrepareStep} in prepareStep), summaries ${stats.summaries}, ` +
      `largest prompt ${stats.maxPromptChars} chars (${stats.maxTokens} tokens) of ${session.chars} replayed`,
  );
  assert.deepEqual(problems.slice(0, 10), [], `${problems.length} problems`);
  assert.deepEqual(stats.mutations, [], "maybeCompact never mutates its input");
  assert.equal(stats.snapshots, stats.calls);
  assert.equal(finished, turns.length, "the session completes");
  assert.equal(executed.length, session.calls, "every recorded tool call was executed");
  assert.equal(stats.requests, session.steps + turns.length);
  assert.ok(stats.compacted >= 2, `compaction fired ${stats.compacted} times`);
  assert.ok(inPrepareStep >= 1, "compaction fired inside prepareStep");
  // prepareStep receives the whole history on every step: after a compaction, later steps continue
  // from it (a changed array, no new summary) instead of summarizing again.
  assert.ok(stats.afterEvents >= 2 && stats.afterEvents < stats.compacted, `${stats.afterEvents} compactions, ${stats.compacted} changed arrays`);
  assert.ok(stats.summaries <= 3 * stats.afterEvents, `${stats.summaries} summarizer calls for ${stats.afterEvents} compactions`);
  assert.ok(stats.maxTokens <= budget, `every prompt fits the window (largest ${stats.maxTokens} tokens)`);
  assert.ok(stats.maxPromptChars < session.chars / 2, "no prompt carried the whole session");
}

// The default turn boundary ("split"): a short request before a huge tool result stays verbatim
// rather than being summarized as a split-turn prefix (the NO_PROGRESS bug this test found).
test(
  "AI SDK generateText loop with prepareStep → maybeCompact over a long real session",
  (t) => runLoop(t, {}),
);

test("AI SDK generateText loop, turnBoundary: snap", (t) => runLoop(t, { turnBoundary: "snap" }));
