// The pieces of the queue benchmark (bench/queue.mjs) that its worker processes share with it, and
// the worker process itself: a compaction queue (js/stores/bullmq.mjs) over the shared SQLite file
// whose `startWorkers` runs the jobs, reporting over IPC. Run with fork(); argv[2] is JSON:
//   { db, connection, name, prefix, delayMs, concurrency }
// Messages to the parent: { type: "ready" } once its worker listens; { type: "committed", id, at }
// when a compaction of conversation `id` is stored (`at`: epoch milliseconds, sub-millisecond);
// { type: "completed", id, compacted } / { type: "failed", id, error } per job. The parent's
// { type: "close" } closes the worker and the store, answers { type: "closed", calls } (summarizer
// calls) and ends the process.
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { Session } from "../js/node.mjs";
import { sqliteStore } from "../js/stores/sqlite.mjs";
import { compactionQueue } from "../js/stores/bullmq.mjs";

/** A clock shared by processes: epoch milliseconds with performance.now()'s resolution. */
export const now = () => performance.timeOrigin + performance.now();

/**
 * Session options of the queued conversations: an 8,000-token window (the trigger near 7,000
 * tokens, the background threshold at half of it), so that a conversation over it is cheap to build.
 */
export const queueSessionOptions = (summarize) => ({
  contextWindow: 8_000,
  reserveTokens: 1_000,
  keepRecentTokens: 1_500,
  background: 0.5,
  format: "ai-sdk",
  summarize,
});

/** A summarizer that answers after `delayMs` (a model's latency, no CPU), counting its calls in `counter.calls`. */
export function fixedLatency(delayMs, counter) {
  return async (request) => {
    counter.calls++;
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    return `Summary (round ${request.round}) of ${request.messages.length} messages: the user asked for changes to the report, the assistant made them.`;
  };
}

/** `store` with `onCommit(id, at)` called once an append that holds a compaction entry succeeded. */
export function watchCompactions(store, onCommit) {
  return {
    ...store,
    async append(id, batch, expectedVersion) {
      const result = await store.append(id, batch, expectedVersion);
      if (result.ok && batch.lines.some((l) => l.line.includes('"type":"compaction"'))) onCommit(id, now());
      return result;
    },
  };
}

/** The worker process. */
async function main({ db, connection, name, prefix, delayMs, concurrency }) {
  const send = (m) => new Promise((resolve) => process.send(m, resolve));
  const store = sqliteStore({ path: db });
  const counter = { calls: 0 };
  const summarize = fixedLatency(delayMs, counter);
  const queue = compactionQueue({
    Session,
    connection,
    name,
    prefix,
    store: watchCompactions(store, (id, at) => send({ type: "committed", id, at })),
    session: () => queueSessionOptions(summarize),
  });
  const worker = queue.startWorkers({ concurrency });
  worker.on("completed", (job, result) => send({ type: "completed", id: job.data.conversationId, compacted: result.compacted }));
  worker.on("failed", (job, error) => send({ type: "failed", id: job?.data?.conversationId, error: String(error?.message ?? error) }));
  process.on("message", async (m) => {
    if (m?.type !== "close") return;
    await queue.close();
    await store.close();
    await send({ type: "closed", calls: counter.calls });
    process.exit(0);
  });
  await worker.waitUntilReady();
  await send({ type: "ready" });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main(JSON.parse(process.argv[2]));
