// The compaction queue with real processes sharing one SQLite file and one Redis server: four chat
// processes (proc-writer.mjs) append to one conversation while two worker processes
// (proc-worker.mjs) compact it through BullMQ; then a worker is killed with SIGKILL while its
// summarizer is awaited, and another one completes the job once the lock and the lease expired.
// Redis is the private server of scripts/redis.sh, started here (a failure fails the tests).
import assert from "node:assert/strict";
import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { Session } from "../../../js/node.mjs";
import { sqliteStore } from "../../../js/stores/sqlite.mjs";
import { compactionQueue } from "../../../js/stores/bullmq.mjs";
import { message, nextMessage, parseLog, scriptedSummarizer, sessionOptions, startRedis, texts } from "./queue-fixtures.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const prefix = `cc-test-${process.pid}`; // BullMQ keys of this run only
const children = new Set();
const closers = []; // what a test opened, closed in after() even when it failed
let connection;
let dir;
let db;

/** Forks a child script of this directory with its JSON config. */
function start(script, config) {
  const argument = JSON.stringify({ db, connection, prefix, ...config });
  const child = fork(join(here, script), [argument], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  children.add(child);
  child.once("exit", () => children.delete(child));
  return child;
}
const exited = (child) =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once("exit", resolve));
/** Asks a worker to close; resolves after its last message (IPC keeps the order) and its exit. */
async function closeWorker(child) {
  const closed = nextMessage(child, (m) => m.type === "closed", "closing");
  child.send({ type: "close" });
  await closed;
  await exited(child);
}
/** This process's view of the queue (no workers). */
function parentQueue(store, name, extra = {}) {
  const queue = compactionQueue({ Session, store, connection, name, prefix, session: () => sessionOptions(scriptedSummarizer()), ...extra });
  closers.push(async () => {
    await queue.queue.obliterate({ force: true });
    await queue.close();
  });
  return queue;
}
function openStore() {
  const store = sqliteStore({ path: db });
  closers.push(() => store.close());
  return store;
}

before(() => {
  connection = startRedis();
  dir = mkdtempSync(join(tmpdir(), "cc-queue-procs-"));
  db = join(dir, "shared.db");
});

after(async () => {
  for (const child of children) child.kill("SIGKILL");
  // Queues before stores (a queue's last job may still read its store).
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
});

describe("the compaction queue across processes", () => {
  it("4 writers and 2 workers: every message once and in order, one compaction entry per compacting job, one live context", async (t) => {
    const name = "procs-writers";
    const id = "chat-writers";
    const pairs = 16;
    const results = [];
    const failures = [];
    const workers = [0, 1].map(() => start("proc-worker.mjs", { name, delayMs: 150 }));
    for (const w of workers) {
      w.on("message", (m) => {
        if (m.type === "completed") results.push(m.result);
        if (m.type === "failed") failures.push(m);
      });
    }
    await Promise.all(workers.map((w) => nextMessage(w, (m) => m.type === "ready", "ready")));

    const writers = [0, 1, 2, 3].map((writer) => start("proc-writer.mjs", { name, conversationId: id, writer, pairs, pauseMs: 40 }));
    const done = await Promise.all(writers.map((w) => nextMessage(w, (m) => m.type === "done", "done")));
    assert.ok(done.some((d) => d.enqueues > 0));

    const store = openStore();
    const queue = parentQueue(store, name);
    const idle = await queue.waitForCompaction(id, { timeoutMs: 30_000 });
    assert.equal(idle.timedOut, false);
    await Promise.all(workers.map(closeWorker));
    assert.deepEqual(failures, []);

    // Every message once; each writer's in its own order.
    const log = parseLog((await store.read(id, 0)).lines);
    const tags = log.messages.map((m) => m.tag);
    assert.equal(tags.length, 4 * pairs * 2);
    assert.equal(new Set(tags).size, tags.length);
    for (let w = 0; w < 4; w++) {
      const expected = Array.from({ length: pairs }, (_, i) => [`w${w} u${i}`, `w${w} a${i}`]).flat();
      assert.deepEqual(tags.filter((t) => t.startsWith(`w${w} `)), expected);
    }

    // One compaction entry per job that compacted, each folding in the one before it.
    const compacted = results.filter((r) => r.compacted);
    t.diagnostic(`${results.length} jobs, ${compacted.length} compacted; enqueues ${done.map((d) => `${d.enqueues} (${d.deduplicated} joined)`).join(", ")}`);
    assert.ok(compacted.length >= 2, `${compacted.length} compactions`);
    assert.deepEqual(log.compactions.map((c) => c.id).sort(), compacted.map((r) => r.entryId).sort());
    log.compactions.forEach((c, i) => {
      assert.equal(c.round, i + 1);
      assert.match(c.summary, new RegExp(`^summary r${i + 1} after r${i} of \\d+ messages`));
    });

    // The live context from the store is what every writer renders after a sync; the last job
    // saw the last commit, so it is under the background threshold.
    const fresh = await Session.open(store, id, sessionOptions(scriptedSummarizer()));
    const live = texts(fresh.render().messages);
    assert.match(live[0], new RegExp(`summary r${log.compactions.length} after`));
    t.diagnostic(`live context: ${fresh.check().tokens} tokens`);
    assert.equal(fresh.check().background || fresh.check().shouldCompact, false);
    const finals = writers.map((w) => nextMessage(w, (m) => m.type === "final", "final"));
    for (const w of writers) w.send({ type: "final" });
    for (const final of await Promise.all(finals)) assert.deepEqual(final.messages, live);
    await Promise.all(writers.map(exited));

    fresh.free();
  });

  it("a worker killed mid-summary writes nothing; another completes the job once the lock and the lease expired", async () => {
    const name = "procs-kill";
    const id = "chat-kill";
    // The lease outlives the lock: the job runs again while the dead worker's lease still holds.
    const timing = { lockDuration: 1_500, stalledInterval: 300, leaseMs: 4_000 };
    const store = openStore();
    const session = await Session.open(store, id, sessionOptions(scriptedSummarizer()));
    for (let i = 0; i < 12; i++) session.append([message(9, "user", i), message(9, "assistant", i)]);
    await session.commit();
    // Past the background threshold, under the trigger: when the queue's jobs are enqueued.
    assert.deepEqual([session.check().background, session.check().shouldCompact], [true, false]);

    const doomed = start("proc-worker.mjs", { name, conversationId: id, hang: true, ...timing });
    await nextMessage(doomed, (m) => m.type === "ready", "ready");
    const queue = parentQueue(store, name, { lockDuration: timing.lockDuration });
    const { jobId } = await queue.enqueue(id);
    const { holder } = await nextMessage(doomed, (m) => m.type === "summarizing", "summarizing");
    const tag = holder.split(":").at(-1); // the holder is `<conversation>:<session tag>`
    const before = (await store.read(id, 0)).lines;
    doomed.kill("SIGKILL");
    await exited(doomed);

    // Nothing of that attempt is in the log; the job and the lease still say "compacting".
    const afterKill = (await store.read(id, 0)).lines;
    assert.deepEqual(afterKill, before);
    assert.equal(parseLog(afterKill).compactions.length, 0);
    assert.ok(!parseLog(afterKill).ids.some((e) => e.endsWith(`.${tag}`)));
    assert.equal(await queue.isCompacting(id), true);
    assert.equal(await queue.queue.getJobState(jobId), "active");

    const rescuer = start("proc-worker.mjs", { name, conversationId: id, ...timing });
    const finished = await nextMessage(rescuer, (m) => m.type === "completed" || m.type === "failed", "the job's end");
    assert.equal(finished.type, "completed", finished.error);
    assert.equal(finished.jobId, jobId);
    assert.equal(finished.result.compacted, true);
    await closeWorker(rescuer);

    const log = parseLog((await store.read(id, 0)).lines);
    assert.equal(log.compactions.length, 1);
    assert.equal(log.compactions[0].id, finished.result.entryId);
    assert.ok(!log.ids.some((e) => e.endsWith(`.${tag}`)));
    assert.equal((await queue.waitForCompaction(id, { timeoutMs: 5_000 })).timedOut, false);
    await session.sync();
    assert.match(texts(session.render().messages)[0], /summary r1 after r0 of \d+ messages/);

    session.free();
  });
});
