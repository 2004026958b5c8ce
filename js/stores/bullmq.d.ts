// Types of js/stores/bullmq.mjs (`context-compaction/bullmq`): `compactionQueue`, compactions of
// store-backed conversations run as BullMQ jobs by worker processes.
import type { Queue, Worker, ConnectionOptions, BackoffOptions } from "bullmq";
import type { ConversationStore } from "./contract.js";
import type { StoredSession, StoredSessionOptions, RenderResult } from "../index.js";

/** What a compaction job resolves to (BullMQ keeps it as the job's return value). */
export interface CompactionJobResult {
  /** Whether the job wrote a compaction; `false` when the conversation was not due (or another process had just compacted it). */
  compacted: boolean;
  /** Tokens of the live context before. */
  tokensBefore: number;
  /** Tokens of the live context after. */
  tokensAfter: number;
  /** The compaction entry's id in the log, or `null`. */
  entryId: string | null;
}

/** Options of {@link compactionQueue}. */
export interface CompactionQueueOptions<M extends object = object> {
  /**
   * The package's `Session` class (`import { Session } from "context-compaction"`). Required: this
   * entry does not load the WebAssembly module itself, so that it works from either module system
   * and shares the one instance your app already loaded.
   */
  Session: {
    /** `Session.open`: opens a conversation of the store (the workers' sessions). */
    open(store: ConversationStore, conversationId: string, options: StoredSessionOptions<M>): Promise<StoredSession<M>>;
  };
  /**
   * BullMQ's Redis connection: ioredis options (`{ host, port }`, or `{ url }`), or an ioredis
   * instance (with `maxRetriesPerRequest: null` where workers use it). Queue and workers open their own clients from options.
   */
  connection: ConnectionOptions;
  /** The store every process shares (sqlite file, postgres, redis...); the queue never closes it. */
  store: ConversationStore;
  /**
   * The options a worker opens a conversation with (`Session.open`), the summarizer included; the
   * same as your chat processes use (set `background` so that jobs compact before the trigger).
   * `leaseMs` is raised to at least `lockDuration`.
   */
  session: (conversationId: string) => StoredSessionOptions<M> | Promise<StoredSessionOptions<M>>;
  /** The BullMQ queue's name. Default `"context-compaction"`. */
  name?: string;
  /** The start of BullMQ's Redis keys. Default BullMQ's (`"bull"`). */
  prefix?: string;
  /** Jobs one `startWorkers()` runs at once. Default 2. */
  concurrency?: number;
  /**
   * How long a job's lock lasts, in milliseconds (the worker renews it every half); a job whose
   * worker died is run again once it expired. Default 300,000 (5 minutes).
   */
  lockDuration?: number;
  /** How often workers look for jobs whose lock expired, in milliseconds. Default 30,000. */
  stalledInterval?: number;
  /** How many times a job whose worker died is run again before it fails. Default 1 (at least 1). */
  maxStalledCount?: number;
  /** Runs of a job that fails (a summarizer error, a lost race) before it is given up; set on the jobs this queue enqueues. Default 2. */
  attempts?: number;
  /** The wait before a failed job runs again; set on the jobs this queue enqueues. Default `{ type: "exponential", delay: 3000 }`. */
  backoff?: number | BackoffOptions;
  /** The middle of the de-duplication id `compact:{domain}:{conversationId}`. Default `"conversation"`. */
  domain?: string;
  /** Called with a worker's error events (lost connections, which BullMQ retries). Default: `console.error`. */
  onError?: (error: Error) => void;
}

/** What {@link CompactionQueue.prepare} returns: the live context, and what the request did. */
export type QueuePrepareResult<M extends object = object> = RenderResult<M> & {
  /** The request waited for a compaction (it was over the trigger). */
  waited: boolean;
  /** The request asked for a compaction. */
  enqueued: boolean;
  /** The wait ended at `timeoutMs` with the compaction unfinished: the context may still be over the trigger. */
  timedOut: boolean;
};

/** A compaction queue: enqueue from chat processes, run workers anywhere. */
export interface CompactionQueue<M extends object = object> {
  /** The BullMQ queue. */
  readonly queue: Queue;
  /**
   * Asks for a compaction of the conversation. While a job for it waits, is delayed or runs, no
   * second job is added (`deduplicated: true`, `jobId` the pending job's); a request made while
   * the job is active is kept and runs once after it. A request that joins a pending job keeps
   * that job's `force`. A job compacts only when the conversation's check says `shouldCompact` or
   * `background` when it runs (after any other process's compaction under way), or with `force`.
   */
  enqueue(conversationId: string, options?: { force?: boolean }): Promise<{ jobId: string; deduplicated: boolean }>;
  /** True while a job for the conversation is waiting, delayed or active, or any process holds its compaction lease. */
  isCompacting(conversationId: string): Promise<boolean>;
  /**
   * Resolves once no compaction of the conversation is pending or running (`waited`: it had to
   * wait), or after `timeoutMs` (default 60,000) with `timedOut: true`; never rejects for a timeout.
   */
  waitForCompaction(conversationId: string, options?: { timeoutMs?: number }): Promise<{ waited: boolean; timedOut: boolean }>;
  /**
   * Starts one BullMQ worker in this process running `concurrency` jobs at once (default the
   * queue's `concurrency`). Each job opens the conversation, compacts it when it is due, commits.
   */
  startWorkers(options?: { concurrency?: number }): Worker;
  /**
   * For a chat request: commits the session, then, over the trigger (`check().shouldCompact`),
   * waits for the compaction (enqueuing one if none is pending) and syncs, once more if a
   * compaction already under way left it over the trigger (all within `timeoutMs`); past the background
   * threshold only, enqueues one if none is pending and goes on without waiting. Returns the
   * session's `render()`.
   */
  prepare(session: StoredSession<M>, options?: { timeoutMs?: number }): Promise<QueuePrepareResult<M>>;
  /** Closes this process's workers (waiting for their running jobs) and the queue; not the store. */
  close(): Promise<void>;
}

/**
 * A BullMQ queue of compactions over a shared conversation store: de-duplicated per conversation,
 * with a lock and retries, its state visible to every process.
 * @example
 * const compactions = compactionQueue({ Session, connection, store, session: () => ({ contextWindow, background: 0.75, summarize }) });
 * compactions.startWorkers(); // in worker processes
 * const { messages } = await compactions.prepare(session); // in chat handlers
 */
export declare function compactionQueue<M extends object = object>(options: CompactionQueueOptions<M>): CompactionQueue<M>;
