// An AI SDK `generateText` agent loop with a Session behind `prepareStep`, over the replay of a long
// real pi session, driven by the SDK's own mock model. No Node-only imports: the Node test
// (session-ai-sdk.test.mjs) and the browser app (tests/session-app) run the same code.
//
// The pattern under test: the application appends what the SDK produced to the Session and asks
// `session.prepare()` for the context of every model call; compaction (in the background past 60%
// of the window, in the foreground at the trigger) happens inside the loop.
import { promptViolations } from "./prompt-pairs.mjs";
import { parseSession, replayedGenerate, toolNames } from "./replay-session.mjs";

const SYSTEM = "You are a coding agent working in the pi-mono repository. Use the tools.";
const MARK = "[session summary";

/**
 * Runs the loop; returns its numbers and problems (the caller asserts).
 * @param {{ Session: any, ai: any, aiTest: any, text: string, window?: number }} deps
 */
export async function runSessionLoop({ Session, ai, aiTest, text, window = 40_000 }) {
  const { generateText, jsonSchema, stepCountIs, tool } = ai;
  const { turns, steps, calls, chars } = parseSession(text);
  const stats = { requests: 0, summaries: 0, maxTokens: 0, maxPromptChars: 0, backgroundStarts: 0, executed: 0, problems: [] };
  const session = new Session({
    contextWindow: window,
    reserveTokens: 4_000,
    keepRecentTokens: 8_000,
    trigger: { fraction: 0.8 },
    background: 0.6,
    format: "ai-sdk",
    sessionId: "replay",
    summarize: async (req) => {
      stats.summaries += 1;
      await new Promise((r) => setTimeout(r, 0));
      return `${MARK} #${stats.summaries} round ${req.round}] ${req.messages.length} messages; last: ${req.transcript.slice(-80)}`;
    },
  });
  const byId = new Map(turns.flatMap((t) => t.steps.flatMap((s) => s.calls.map((c) => [c.id, c]))));
  const tools = Object.fromEntries(
    toolNames(turns).map((name) => [
      name,
      tool({
        description: `Replayed ${name}`,
        inputSchema: jsonSchema({ type: "object", additionalProperties: true }),
        execute: async (_input, { toolCallId }) => {
          const call = byId.get(toolCallId);
          stats.executed += 1;
          if (call.isError) throw new Error(call.output);
          return call.output;
        },
      }),
    ]),
  );
  const cursor = { turn: 0, step: 0 };
  const model = new aiTest.MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      stats.requests += 1;
      for (const p of promptViolations(prompt)) stats.problems.push(`request ${stats.requests}: ${p}`);
      if (prompt[0]?.role !== "system") stats.problems.push(`request ${stats.requests}: system prompt lost`);
      stats.maxPromptChars = Math.max(stats.maxPromptChars, JSON.stringify(prompt).length);
      const turn = turns[cursor.turn];
      const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
      return replayedGenerate(turn, cursor, usage);
    },
  });

  for (const [i, turn] of turns.entries()) {
    Object.assign(cursor, { turn: i, step: 0 });
    session.append({ role: "user", content: turn.user });
    const start = await session.prepare();
    const initial = start.messages.length;
    let seen = initial;
    await generateText({
      model,
      system: SYSTEM,
      messages: start.messages,
      tools,
      stopWhen: stepCountIs(turn.steps.length + 5),
      prepareStep: async ({ messages }) => {
        // The SDK's array is the context it started from plus every response since: append the
        // new ones, then send the session's context.
        session.append(messages.slice(seen));
        seen = messages.length;
        const wasCompacting = session.isCompacting;
        const r = await session.prepare();
        if (!wasCompacting && session.isCompacting) stats.backgroundStarts += 1;
        stats.maxTokens = Math.max(stats.maxTokens, r.tokens);
        return { messages: r.messages };
      },
    }).then((result) => {
      session.append(result.response.messages.slice(seen - initial));
      if (result.text !== turn.final) stats.problems.push(`turn ${i}: final text differs`);
    });
  }
  while (session.isCompacting) await new Promise((r) => setTimeout(r, 1));
  const log = session.toJSONL();
  const entries = session.entries();
  const reloaded = Session.fromJSONL(log, { contextWindow: window, format: "ai-sdk" });
  return {
    ...stats,
    turns: turns.length,
    steps,
    calls,
    chars,
    budget: window - 4_000,
    compactions: entries.filter((e) => e.type === "compaction").length,
    messagesInLog: entries.filter((e) => e.type === "message").length,
    roundTrip: reloaded.toJSONL() === log,
    finalTokens: session.check().tokens,
  };
}
