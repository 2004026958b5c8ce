// compactionQueue: compactions of store-backed conversations run as BullMQ jobs (the
// `context-compaction/bullmq` entry; bullmq is an optional peer dependency, imported only here).
// A chat process enqueues a compaction when a conversation passes its background threshold; worker
// processes open the conversation from the shared store (`Session.open`), summarize under the
// store's compaction lease, and commit. One job per conversation at a time: BullMQ's
// de-duplication by `compact:{domain}:{conversationId}`. A worker that dies mid-summary writes
// nothing (a compaction is committed only after its summary); its job's lock and its store lease
// expire, and another worker runs the job again. Whether a conversation is being compacted (a job
// waiting, delayed or active, or the lease held) lives in Redis and the store, so every process
// sees it: chat requests over the hard trigger wait for it (`prepare`), the others go on.
import { randomUUID } from "node:crypto";
import { Queue, Worker } from "bullmq";
import { checkId } from "./checks.mjs";

const POLL_MS = 100;
/** Job states in which a compaction is still to come or running. */
const PENDING = new Set(["waiting", "delayed", "active", "prioritized", "waiting-children"]);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const positive = (v) => Number.isSafeInteger(v) && v > 0;

function checkOptions(options) {
  if (options === null || typeof options !== "object") throw new TypeError("compactionQueue: options must be an object");
  const o = {
    name: "context-compaction",
    concurrency: 2,
    lockDuration: 300_000,
    stalledInterval: 30_000,
    maxStalledCount: 1,
    attempts: 2,
    backoff: { type: "exponential", delay: 3_000 },
    domain: "conversation",
    ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)),
  };
  if (typeof o.Session?.open !== "function") {
    throw new TypeError("compactionQueue: options.Session must be the package's Session class (it has Session.open)");
  }
  for (const m of ["load", "append", "read", "acquireLease", "releaseLease", "leaseHolder"]) {
    if (typeof o.store?.[m] !== "function") throw new TypeError(`compactionQueue: options.store must be a ConversationStore (no ${m}())`);
  }
  if (typeof o.session !== "function") throw new TypeError("compactionQueue: options.session must be a function of the conversation id");
  if (o.connection === null || typeof o.connection !== "object") throw new TypeError("compactionQueue: options.connection is required (ioredis options or instance)");
  for (const key of ["concurrency", "lockDuration", "stalledInterval", "attempts"]) {
    if (!positive(o[key])) throw new TypeError(`compactionQueue: options.${key} must be a positive integer`);
  }
  if (!Number.isSafeInteger(o.maxStalledCount) || o.maxStalledCount < 1) {
    throw new TypeError("compactionQueue: options.maxStalledCount must be at least 1 (a killed worker's job is run again)");
  }
  if (typeof o.domain !== "string" || o.domain === "") throw new TypeError("compactionQueue: options.domain must be a non-empty string");
  return o;
}

/**
 * A BullMQ queue of compactions over a shared conversation store.
 * @param {import("./bullmq").CompactionQueueOptions} options
 * @returns {import("./bullmq").CompactionQueue}
 */
export function compactionQueue(options) {
  const o = checkOptions(options);
  const base = { connection: o.connection, ...(o.prefix !== undefined && { prefix: o.prefix }) };
  const queue = new Queue(o.name, base);
  const workers = [];
  const dedupId = (conversationId) => `compact:${o.domain}:${conversationId}`;

  async function enqueue(conversationId, { force = false } = {}) {
    checkId(conversationId);
    // A fresh id of our own: when BullMQ answers with another, the job was de-duplicated.
    const jobId = `cc-${randomUUID()}`;
    const job = await queue.add(
      "compact",
      { conversationId, force: force === true },
      {
        jobId,
        // Until the job completes or fails, adds with the same id join it; one made while it is
        // active is kept and runs once after it (the conversation grew during the summary).
        deduplication: { id: dedupId(conversationId), keepLastIfActive: true },
        attempts: o.attempts,
        backoff: o.backoff,
        removeOnComplete: true,
        removeOnFail: 100,
      },
    );
    return { jobId: job.id, deduplicated: job.id !== jobId };
  }

  // Whether a job for the conversation is waiting, delayed or active. The de-duplication key names
  // the job; a key whose job is no longer pending (left by an outage) counts for nothing.
  async function jobPending(conversationId) {
    for (let i = 0; i < 3; i++) {
      const jobId = await queue.getDeduplicationJobId(dedupId(conversationId));
      if (!jobId) return false;
      if (PENDING.has(await queue.getJobState(jobId))) return true;
      // The job finished between the two reads and a follow-up may have replaced it: read again.
      if ((await queue.getDeduplicationJobId(dedupId(conversationId))) === jobId) return false;
    }
    return false;
  }

  async function isCompacting(conversationId) {
    checkId(conversationId);
    const [pending, holder] = await Promise.all([jobPending(conversationId), o.store.leaseHolder(conversationId)]);
    return pending || holder !== null;
  }

  async function waitForCompaction(conversationId, { timeoutMs = 60_000 } = {}) {
    if (!(Number.isFinite(timeoutMs) && timeoutMs >= 0)) throw new TypeError("timeoutMs must be a non-negative number of milliseconds");
    const deadline = Date.now() + timeoutMs;
    let waited = false;
    while (await isCompacting(conversationId)) {
      const left = deadline - Date.now();
      if (left <= 0) return { waited: true, timedOut: true };
      waited = true;
      await sleep(Math.min(POLL_MS, left));
    }
    return { waited, timedOut: false };
  }

  // One job: open the conversation, compact it if it is (still) due, commit.
  async function run(job, signal) {
    const { conversationId, force } = job.data;
    const sessionOptions = { ...(await o.session(conversationId)) };
    // The lease lasts at least the job's lock: a stalled job run again elsewhere finds it expired
    // or waits for it.
    sessionOptions.leaseMs = Math.max(sessionOptions.leaseMs ?? 0, o.lockDuration);
    const session = await o.Session.open(o.store, conversationId, sessionOptions);
    try {
      // A lease another process holds (compacting in-process, or dead mid-summary): wait for it to
      // end and look again, so that its compaction is not repeated and a lost one is still made.
      const deadline = Date.now() + (sessionOptions.compactionWaitMs ?? 60_000);
      while ((await o.store.leaseHolder(conversationId)) !== null && Date.now() < deadline) await sleep(POLL_MS);
      await session.sync();
      const check = session.check();
      if (!force && !check.shouldCompact && !check.background) {
        return { compacted: false, tokensBefore: check.tokens, tokensAfter: check.tokens, entryId: null };
      }
      const r = await session.compact({ force: force === true, ...(signal && { signal }) });
      await session.commit();
      return { compacted: r.compacted, tokensBefore: r.tokensBefore, tokensAfter: r.tokensAfter, entryId: r.entryId ?? null };
    } finally {
      session.free?.();
    }
  }

  function startWorkers({ concurrency = o.concurrency } = {}) {
    if (!positive(concurrency)) throw new TypeError("startWorkers: concurrency must be a positive integer");
    const worker = new Worker(o.name, (job, _token, signal) => run(job, signal), {
      ...base,
      concurrency,
      lockDuration: o.lockDuration,
      stalledInterval: o.stalledInterval,
      maxStalledCount: o.maxStalledCount,
    });
    // An 'error' event without a listener would end the process; connection errors are retried.
    worker.on("error", (error) => (o.onError ? o.onError(error) : console.error("context-compaction queue:", error)));
    workers.push(worker);
    return worker;
  }

  async function prepare(session, { timeoutMs = 60_000 } = {}) {
    const id = session.conversationId;
    await session.commit();
    const check = session.check();
    let waited = false;
    let timedOut = false;
    let enqueued = false;
    if (check.shouldCompact) {
      // Over the trigger: this request waits for the compaction (asking for one if none is
      // pending). A compaction already running when it came may have covered an older state of
      // the conversation: if it is still over the trigger, it asks once more and waits again.
      const deadline = Date.now() + timeoutMs;
      for (let round = 0; round < 2 && !timedOut && session.check().shouldCompact; round++) {
        if (!(await isCompacting(id))) {
          await enqueue(id);
          enqueued = true;
        }
        const w = await waitForCompaction(id, { timeoutMs: Math.max(1, deadline - Date.now()) });
        waited ||= w.waited;
        timedOut = w.timedOut;
        await session.sync();
      }
    } else if (check.background && !(await isCompacting(id))) {
      // Past the background threshold: ask for a compaction and go on.
      await enqueue(id);
      enqueued = true;
    }
    return { ...session.render(), waited, enqueued, timedOut };
  }

  async function close() {
    await Promise.all(workers.splice(0).map((w) => w.close()));
    await queue.close();
  }

  return { queue, enqueue, isCompacting, waitForCompaction, startWorkers, prepare, close };
}
