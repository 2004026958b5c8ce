// The stateless path with a store: a serverless route builds a fresh Compactor (or middleware) per
// request and hands it the application's whole stored history. Without a store every request past
// the trigger summarizes the history again; with one, a request continues from the summary an
// earlier request saved. Replayed over the long real pi session, request by request, against the
// embedded store on a temp file, counting the summarizer's calls.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { Compactor, compactionMiddleware } from "context-compaction";
import { sqliteStore } from "../../../js/stores/sqlite.mjs";
import { budget, compactorOptions, fakeSummarize, loadSession, newStats } from "../replay.mjs";

const REQUESTS = 200;

/** The session as the requests a chat route receives: the history grows by one step each time. */
function requests() {
  const { turns } = loadSession();
  const out = [];
  let history = [];
  for (const turn of turns) {
    history = [...history, { role: "user", content: [{ type: "text", text: turn.user }] }];
    out.push(history);
    for (const step of turn.steps) {
      const calls = step.calls.map((c) => ({ type: "tool-call", toolCallId: c.id, toolName: c.name, input: c.args }));
      const results = step.calls.map((c) => ({
        type: "tool-result",
        toolCallId: c.id,
        toolName: c.name,
        output: { type: c.isError ? "error-text" : "text", value: c.output },
      }));
      history = [...history, { role: "assistant", content: calls }, { role: "tool", content: results }];
      out.push(history);
    }
    history = [...history, { role: "assistant", content: [{ type: "text", text: turn.final }] }];
    if (out.length >= REQUESTS) break;
  }
  return out.slice(0, REQUESTS);
}

const histories = requests();
const options = { ...compactorOptions, format: "ai-sdk" };

test("serverless replay: fresh Compactors with the embedded store summarize once per compaction", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "cc-serverless-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  assert.equal(histories.length, REQUESTS);

  // One long-lived Compactor (no store): what a single process would do.
  const baseline = newStats();
  const one = new Compactor({ ...options, summarize: fakeSummarize(baseline) });
  for (const h of histories) await one.maybeCompact(h);

  // A fresh Compactor per request, no store: the cost the issue measured.
  const forgetful = newStats();
  for (const h of histories.slice(0, 60)) {
    await new Compactor({ ...options, summarize: fakeSummarize(forgetful) }).maybeCompact(h);
  }

  // A fresh Compactor per request, over a new store connection each time (a new process).
  const path = join(dir, "chats.db");
  const stored = newStats();
  let largest = 0;
  for (const h of histories) {
    const store = sqliteStore({ path });
    const c = new Compactor({ ...options, summarize: fakeSummarize(stored), store, conversationId: "pi-session" });
    const out = await c.maybeCompact(h);
    largest = Math.max(largest, c.estimate(out).total);
    await store.close();
  }
  const check = sqliteStore({ path });
  const records = (await check.read("pi-session", 0)).lines.length;
  await check.close();
  t.diagnostic(
    `${REQUESTS} requests: one Compactor ${baseline.summaries} summarizer calls; fresh with the store ` +
      `${stored.summaries} calls for ${records} saved compactions; fresh without it ${forgetful.summaries} calls in the first 60`,
  );
  assert.ok(baseline.summaries >= 2, "the replay passes the trigger several times");
  assert.ok(records >= 2, `${records} compactions saved`);
  assert.ok(stored.summaries <= 3 * records, `${stored.summaries} calls for ${records} compactions`);
  assert.ok(stored.summaries <= baseline.summaries + 2, `${stored.summaries} calls against ${baseline.summaries} for one Compactor`);
  assert.ok(forgetful.summaries > 3 * stored.summaries * (60 / REQUESTS), "without the store, requests summarize again");
  assert.ok(largest <= budget, `every request fits (largest ${largest})`);
});

test("serverless replay: 200 requests through the AI SDK middleware, fresh per request, the conversation named per call", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "cc-serverless-mw-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, "chats.db");
  const stats = newStats();
  let largest = 0;
  const measure = new Compactor({ ...options, summarize: "extractive" });
  for (const h of histories) {
    // A fresh process per request: a new store connection and a new middleware.
    const store = sqliteStore({ path });
    const middleware = compactionMiddleware({
      ...options,
      summarize: fakeSummarize(stats),
      store,
      conversationId: (params) => params.providerOptions?.app?.chatId,
    });
    const params = { prompt: h, providerOptions: { app: { chatId: "chat-7" } } };
    const out = await middleware.transformParams({ type: "generate", params, model: {} });
    largest = Math.max(largest, measure.estimate(out.prompt).total);
    await store.close();
  }
  const check = sqliteStore({ path });
  const records = (await check.read("chat-7", 0)).lines.length;
  await check.close();
  t.diagnostic(`${REQUESTS} requests through fresh middlewares: ${stats.summaries} summarizer calls, ${records} saved compactions`);
  assert.ok(records >= 1);
  assert.ok(stats.summaries <= 3 * records, `${stats.summaries} calls for ${records} compactions`);
  assert.ok(largest <= budget);
});

test("serverless replay: LangChain's middleware, fresh per request, the conversation named by the runtime", async (t) => {
  const { compactionMiddleware, toBaseMessages } = await import("context-compaction/langchain");
  const { convertMessages, memoryStore } = await import("context-compaction");
  const store = memoryStore();
  const stats = newStats();
  for (const h of histories) {
    const middleware = compactionMiddleware({
      ...compactorOptions,
      summarize: fakeSummarize(stats),
      store,
      conversationId: (_state, runtime) => runtime.context.threadId,
    });
    const messages = toBaseMessages(convertMessages(h, { from: "ai-sdk", to: "langchain" }));
    await middleware.beforeModel({ messages }, { context: { threadId: "thread-3" } });
  }
  const records = (await store.read("thread-3", 0)).lines.length;
  t.diagnostic(`120 requests through fresh LangChain middlewares: ${stats.summaries} summarizer calls, ${records} saved compactions`);
  assert.ok(records >= 1);
  assert.ok(stats.summaries <= 3 * records, `${stats.summaries} calls for ${records} compactions`);
});
