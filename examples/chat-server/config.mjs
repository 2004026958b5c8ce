// What server.mjs and worker.mjs share: the store that holds the conversations, the Session
// options, and (with REDIS_URL) the compaction queue. Chosen by the environment:
//   DATABASE_URL=postgres://...  conversations in PostgreSQL
//   REDIS_URL=redis://...        conversations in Redis (unless DATABASE_URL is set too), and
//                                compactions run by the queue's workers (worker.mjs)
//   neither                      the embedded SQLite store in .data/chats.db (SQLITE_PATH to move it)
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { Session } from "context-compaction";
import { sqliteStore } from "context-compaction/sqlite";
import { postgresStore } from "context-compaction/postgres";
import { redisStore } from "context-compaction/redis";
import { summarize } from "./model.mjs";

/** A small window, so that a short scripted chat compacts a few times. */
export const CONTEXT_WINDOW = 6_000;
/** Kept free for the reply: a context past 6,000 − 1,500 = 4,500 tokens is compacted. */
export const RESERVE_TOKENS = 1_500;

/** The options of every `Session.open` (the worker's too: it writes the summaries then). */
export function sessionOptions(overrides = {}) {
  return {
    contextWindow: CONTEXT_WINDOW,
    reserveTokens: RESERVE_TOKENS,
    format: "ai-sdk",              // messages are { role, content }
    summarize,                     // the model call that writes a summary (model.mjs)
    // With the queue, a worker starts summarizing at 60% of the usable window, before the trigger.
    background: process.env.REDIS_URL ? 0.6 : false,
    ...overrides,
  };
}

/** The conversation store, and a description of it for the logs. */
export function openStore() {
  if (process.env.DATABASE_URL) {
    return { store: postgresStore({ connectionString: process.env.DATABASE_URL }), where: "postgres" };
  }
  if (process.env.REDIS_URL) {
    return { store: redisStore({ url: process.env.REDIS_URL }), where: "redis" };
  }
  const path = process.env.SQLITE_PATH ?? fileURLToPath(new URL(".data/chats.db", import.meta.url));
  mkdirSync(dirname(path), { recursive: true });
  return { store: sqliteStore({ path }), where: `sqlite ${path}` };
}

/** The BullMQ compaction queue over `store`, or null without REDIS_URL. */
export async function openQueue(store) {
  if (!process.env.REDIS_URL) return null;
  // Loaded only here: without Redis the example needs neither bullmq nor ioredis.
  const { compactionQueue } = await import("context-compaction/bullmq");
  // BullMQ's Redis connection: a URL here; ioredis options or an ioredis instance work too.
  const connection = { url: process.env.REDIS_URL, maxRetriesPerRequest: null };
  return compactionQueue({ Session, connection, store, session: () => sessionOptions() });
}
