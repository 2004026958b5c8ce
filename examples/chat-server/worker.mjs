// The compaction worker, for REDIS_URL: runs the BullMQ queue's jobs, which the chat servers add
// when a conversation passes its background threshold. A job opens the conversation from the
// store, writes the summary (model.mjs) under the store's lease and commits it; the chat servers
// go on answering meanwhile. Run as many as you like: one job per conversation at a time, and a
// job whose worker died runs again elsewhere. CONCURRENCY (default 2) jobs at once per process.
import { openQueue, openStore } from "./config.mjs";

const { store, where } = openStore();
const queue = await openQueue(store);
if (!queue) {
  console.error("worker.mjs runs the compaction queue: set REDIS_URL (see README.md)");
  process.exit(2);
}
queue.startWorkers({ concurrency: Number(process.env.CONCURRENCY ?? 2) });
console.log(`compaction worker ready (${where})`);

// Finish the jobs under way (their summaries are committed), then close.
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, async () => {
    await queue.close();
    await store.close?.();
    process.exit(0);
  });
}
