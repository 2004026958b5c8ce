// compactionQueue (js/stores/bullmq.mjs) on the private Redis server of scripts/redis.sh (started
// here; a failure fails the tests) and a SQLite file: options passed to BullMQ, de-duplication per
// conversation, "compacting" visible from another queue instance and another process, waiting for
// a compaction with a timeout, and `prepare()`, which waits only over the trigger. The workers run
// in this process; processes.test.mjs runs them in their own.
import assert from "node:assert/strict";
import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { Queue } from "bullmq";
import { Session } from "../../../js/node.mjs";
import { sqliteStore } from "../../../js/stores/sqlite.mjs";
import { compactionQueue } from "../../../js/stores/bullmq.mjs";
import { message, nextMessage, parseLog, scriptedSummarizer, sessionOptions, startRedis, texts } from "./queue-fixtures.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const prefix = `cc-test-${process.pid}`;
const closers = [];
const names = new Set(); // the BullMQ queues the tests made, emptied after them
let connection;
let dir;
let db;

const deferred = () => {
  let resolve;
  const promise = new Promise((r) => (resolve = r));
  return { promise, resolve };
};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function openStore() {
  const store = sqliteStore({ path: db });
  closers.push(() => store.close());
  return store;
}
/** A queue named for one test (its workers take no other test's jobs), closed after the tests. */
function makeQueue(store, name, summarize = scriptedSummarizer(), extra = {}) {
  const queue = compactionQueue({ Session, store, connection, name, prefix, session: () => sessionOptions(summarize), ...extra });
  names.add(queue.queue.name);
  closers.push(() => queue.close());
  return queue;
}
/** A conversation of `pairs` user/assistant pairs (about 316 tokens each), committed. */
async function conversation(store, id, pairs, summarize = scriptedSummarizer()) {
  const session = await Session.open(store, id, sessionOptions(summarize));
  for (let i = 0; i < pairs; i++) session.append([message(0, "user", i), message(0, "assistant", i)]);
  await session.commit();
  return session;
}
/** A summarizer that reports its calls and answers only once `gate` opens. */
function gated() {
  const gate = deferred();
  const started = deferred();
  const summarize = scriptedSummarizer({
    onCall: async () => {
      started.resolve();
      await gate.promise;
    },
  });
  return { summarize, open: gate.resolve, started: started.promise };
}

before(() => {
  connection = startRedis();
  dir = mkdtempSync(join(tmpdir(), "cc-queue-"));
  db = join(dir, "queue.db");
});

after(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
  for (const name of names) {
    const queue = new Queue(name, { connection, prefix });
    await queue.obliterate({ force: true });
    await queue.close();
  }
  rmSync(dir, { recursive: true, force: true });
});

describe("compactionQueue", () => {
  it("checks its options", () => {
    const store = openStore();
    const base = { Session, store, connection, session: () => ({}) };
    assert.throws(() => compactionQueue({ ...base, Session: undefined }), /options\.Session/);
    assert.throws(() => compactionQueue({ ...base, store: {} }), /ConversationStore/);
    assert.throws(() => compactionQueue({ ...base, session: undefined }), /options\.session/);
    assert.throws(() => compactionQueue({ ...base, lockDuration: 0 }), /lockDuration/);
    assert.throws(() => compactionQueue({ ...base, maxStalledCount: 0 }), /maxStalledCount/);
  });

  it("passes the seed's defaults, or the given options, to BullMQ", async () => {
    const store = openStore();
    const defaults = makeQueue(store, undefined); // this run's own key prefix keeps it apart
    assert.equal(defaults.queue.name, "context-compaction");
    const { jobId } = await defaults.enqueue("c-defaults");
    const job = await defaults.queue.getJob(jobId);
    assert.equal(job.opts.attempts, 2);
    assert.deepEqual(job.opts.backoff, { type: "exponential", delay: 3_000 });
    assert.equal(job.opts.deduplication.id, "compact:conversation:c-defaults");
    assert.deepEqual(job.data, { conversationId: "c-defaults", force: false });
    const worker = defaults.startWorkers();
    assert.equal(worker.opts.lockDuration, 300_000);
    assert.equal(worker.opts.concurrency, 2);
    assert.equal(worker.opts.maxStalledCount, 1);

    const custom = makeQueue(store, "q-custom", undefined, { lockDuration: 2_500, attempts: 3, backoff: { type: "fixed", delay: 50 }, concurrency: 3, stalledInterval: 700, domain: "chat" });
    const forced = await custom.enqueue("c-custom", { force: true });
    const customJob = await custom.queue.getJob(forced.jobId);
    assert.equal(customJob.opts.attempts, 3);
    assert.deepEqual(customJob.opts.backoff, { type: "fixed", delay: 50 });
    assert.equal(customJob.opts.deduplication.id, "compact:chat:c-custom");
    assert.equal(customJob.data.force, true);
    const customWorker = custom.startWorkers({ concurrency: 1 });
    assert.equal(customWorker.opts.lockDuration, 2_500);
    assert.equal(customWorker.opts.stalledInterval, 700);
    assert.equal(customWorker.opts.concurrency, 1);
  });

  it("adds one job for five requests while it waits, and a new one once it completed", async () => {
    const store = openStore();
    const queue = makeQueue(store, "q-dedup");
    const session = await conversation(store, "c-dedup", 12); // past the background threshold
    assert.equal(session.check().background, true);
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await queue.enqueue("c-dedup"));
    assert.equal(new Set(answers.map((a) => a.jobId)).size, 1);
    assert.deepEqual(answers.map((a) => a.deduplicated), [false, true, true, true, true]);
    const counts = await queue.queue.getJobCounts("waiting", "active", "delayed", "prioritized");
    assert.equal(counts.waiting + counts.active + counts.delayed + counts.prioritized, 1);

    const worker = queue.startWorkers({ concurrency: 1 });
    const completed = new Promise((resolve) => worker.once("completed", (job, result) => resolve({ job, result })));
    const { job, result } = await completed;
    assert.equal(job.id, answers[0].jobId);
    assert.equal(result.compacted, true);
    assert.equal((await queue.waitForCompaction("c-dedup")).timedOut, false);
    const again = await queue.enqueue("c-dedup");
    assert.equal(again.deduplicated, false);
    assert.notEqual(again.jobId, answers[0].jobId);
    // Not due any more: the job looks and writes nothing.
    const second = await new Promise((resolve) => worker.once("completed", (_job, r) => resolve(r)));
    assert.equal(second.compacted, false);
    assert.equal(parseLog((await store.read("c-dedup", 0)).lines).compactions.length, 1);
    session.free();
  });

  it("says 'compacting' to another queue instance and another process, for a job or the store's lease", async () => {
    const store = openStore();
    const queue = makeQueue(store, "q-visible");
    const other = makeQueue(openStore(), "q-visible");
    const probe = async (id) => {
      const child = fork(join(here, "proc-worker.mjs"), [JSON.stringify({ db, connection, prefix, name: "q-visible", probe: id })], {
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      });
      return (await nextMessage(child, (m) => m.type === "probe", "the probe")).compacting;
    };
    assert.equal(await other.isCompacting("c-visible"), false);
    await queue.enqueue("c-visible");
    assert.equal(await other.isCompacting("c-visible"), true);
    assert.equal(await probe("c-visible"), true);
    // The lease alone (a process compacting in-process with Session.prepare) counts too.
    assert.equal(await store.acquireLease("c-lease", "someone", 60_000), true);
    assert.equal(await other.isCompacting("c-lease"), true);
    assert.equal(await probe("c-lease"), true);
    await store.releaseLease("c-lease", "someone");
    assert.equal(await other.isCompacting("c-lease"), false);
    assert.equal(await probe("c-lease"), false);
  });

  it("waitForCompaction waits for the job, and resolves with timedOut at its timeout", async () => {
    const store = openStore();
    const { summarize, open, started } = gated();
    const queue = makeQueue(store, "q-wait", summarize);
    const session = await conversation(store, "c-wait", 12);
    assert.deepEqual(await queue.waitForCompaction("c-wait"), { waited: false, timedOut: false });
    await assert.rejects(queue.waitForCompaction("c-wait", { timeoutMs: Number.NaN }), TypeError);
    await queue.enqueue("c-wait");
    queue.startWorkers({ concurrency: 1 });
    await started;
    const t0 = Date.now();
    assert.deepEqual(await queue.waitForCompaction("c-wait", { timeoutMs: 300 }), { waited: true, timedOut: true });
    assert.ok(Date.now() - t0 >= 290);
    const waiting = queue.waitForCompaction("c-wait", { timeoutMs: 30_000 });
    open();
    assert.deepEqual(await waiting, { waited: true, timedOut: false });
    assert.equal(await queue.isCompacting("c-wait"), false);
    assert.equal(parseLog((await store.read("c-wait", 0)).lines).compactions.length, 1);
    session.free();
  });

  it("a job waits out the lease of a process that died, then compacts what it left past the background threshold", async () => {
    const store = openStore();
    let calledAt = 0;
    const queue = makeQueue(store, "q-dead-lease", scriptedSummarizer({ onCall: () => void (calledAt ||= Date.now()) }));
    const session = await conversation(store, "c-dead-lease", 12);
    assert.deepEqual([session.check().background, session.check().shouldCompact], [true, false]);
    assert.equal(await store.acquireLease("c-dead-lease", "a-worker-that-died", 600), true);
    const leaseEnds = Date.now() + 600;
    await queue.enqueue("c-dead-lease");
    const worker = queue.startWorkers({ concurrency: 1 });
    const result = await new Promise((resolve) => worker.once("completed", (_job, r) => resolve(r)));
    assert.equal(result.compacted, true);
    assert.ok(calledAt >= leaseEnds - 5, "summarized only once the lease had expired");
    assert.equal(parseLog((await store.read("c-dead-lease", 0)).lines).compactions.length, 1);
    session.free();
  });

  it("prepare() goes on past the background threshold and waits over the trigger", async () => {
    const store = openStore();
    const { summarize, open, started } = gated();
    const queue = makeQueue(store, "q-prepare", summarize);
    queue.startWorkers({ concurrency: 1 });
    const session = await conversation(store, "c-prepare", 12);
    assert.equal(session.check().background, true);
    assert.equal(session.check().shouldCompact, false);

    // Past the background threshold: enqueued, not waited (the summarizer is still held).
    const first = await queue.prepare(session);
    assert.equal(first.enqueued, true);
    assert.equal(first.waited, false);
    assert.equal(first.summaryIndex, null);
    await started;
    const second = await queue.prepare(session);
    assert.deepEqual([second.enqueued, second.waited], [false, false]);

    // Over the trigger while the job runs: this request waits for it.
    for (let i = 12; i < 24; i++) session.append([message(0, "user", i), message(0, "assistant", i)]);
    assert.equal(session.check().shouldCompact, true);
    let settled = false;
    const third = queue.prepare(session).finally(() => (settled = true));
    await sleep(500);
    assert.equal(settled, false);
    open();
    const r = await third;
    assert.equal(r.waited, true);
    assert.equal(r.timedOut, false);
    assert.match(texts(r.messages)[r.summaryIndex], /summary r1 after r0/);
    assert.equal(texts(r.messages).at(-1), message(0, "assistant", 23).content);
    session.free();
  });
});
