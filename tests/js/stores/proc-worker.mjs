// A child process of the compaction-queue tests: a compaction worker (`startWorkers`) over the
// shared SQLite store, reporting over IPC. Run with fork(); argv[2] is JSON:
//   { db, connection, name, prefix, conversationId?, lockDuration?, stalledInterval?, leaseMs?,
//     delayMs?, hang?, probe? }
// Messages to the parent: { type: "ready" } once the worker listens; { type: "summarizing", holder }
// when its summarizer is called; { type: "completed", jobId, result } / { type: "failed", jobId,
// error } per job. With `hang`, the summarizer never answers (the test kills the process).
// With `probe: id`, it only reports { type: "probe", compacting } (isCompacting from another
// process) and exits. The parent's { type: "close" } closes the worker, answers { type: "closed" }
// (after every other message) and ends the process.
import { Session } from "../../../js/node.mjs";
import { sqliteStore } from "../../../js/stores/sqlite.mjs";
import { compactionQueue } from "../../../js/stores/bullmq.mjs";
import { scriptedSummarizer, sessionOptions } from "./queue-fixtures.mjs";

const config = JSON.parse(process.argv[2]);
const send = (m) => new Promise((resolve) => process.send(m, resolve));
const store = sqliteStore({ path: config.db });

const summarize = scriptedSummarizer({
  delayMs: config.delayMs ?? 0,
  onCall: async (request) => {
    if (request.purpose !== "history") return;
    const id = config.conversationId;
    await send({ type: "summarizing", holder: id ? await store.leaseHolder(id) : null });
    if (config.hang) await new Promise(() => {});
  },
});

const queue = compactionQueue({
  Session,
  store,
  connection: config.connection,
  name: config.name,
  prefix: config.prefix,
  lockDuration: config.lockDuration,
  stalledInterval: config.stalledInterval,
  session: () => ({ ...sessionOptions(summarize), leaseMs: config.leaseMs }),
});

if (config.probe) {
  const compacting = await queue.isCompacting(config.probe);
  await send({ type: "probe", compacting });
  await queue.close();
  await store.close();
  process.exit(0);
}

const worker = queue.startWorkers({ concurrency: 1 });
worker.on("completed", (job, result) => send({ type: "completed", jobId: job.id, result }));
worker.on("failed", (job, error) => send({ type: "failed", jobId: job?.id, error: String(error?.message ?? error) }));
process.on("message", async (m) => {
  if (m?.type !== "close") return;
  await queue.close();
  await store.close();
  await send({ type: "closed" });
  process.exit(0);
});
await worker.waitUntilReady();
await send({ type: "ready" });
