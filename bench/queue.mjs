// The compaction-queue part of the Stores section (bench/stores.mjs calls `queueSection`): the
// throughput of `compactionQueue` (js/stores/bullmq.mjs). M conversations, each built just over
// the trigger of an 8,000-token window in a shared SQLite file, are enqueued at once; workers
// compact them, in this process (`startWorkers`) or in worker processes (bench/queue-worker.mjs),
// with a summarizer of fixed latency. Figures: compactions/s, the time from a conversation's
// enqueue to its compaction being stored, and a check of each log (exactly one compaction entry).
// BullMQ runs on the Redis server the section uses, under a key prefix of this run, emptied at the end.
import { fork } from "node:child_process";
import { createRequire } from "node:module";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import { Queue } from "bullmq";
import { Session } from "../js/node.mjs";
import { sqliteStore } from "../js/stores/sqlite.mjs";
import { compactionQueue } from "../js/stores/bullmq.mjs";
import { fixedLatency, now, queueSessionOptions, watchCompactions } from "./queue-worker.mjs";

const WORKER = fileURLToPath(new URL("./queue-worker.mjs", import.meta.url));
const M = Number(process.env.BENCH_QUEUE_CONVERSATIONS ?? 40);
const PAIRS = 26; // user/assistant pairs per conversation: about 7,400 tokens, over the trigger
const TIMEOUT_MS = 30_000;
/** The runs: where the workers are, how many jobs each runs at once, the summarizer's latency. */
const RUNS = [
  { processes: 0, concurrency: 2, delayMs: 50 },
  { processes: 0, concurrency: 2, delayMs: 0 },
  { processes: 2, concurrency: 1, delayMs: 50 },
  { processes: 2, concurrency: 1, delayMs: 0 },
  { processes: 2, concurrency: 2, delayMs: 50 },
  { processes: 2, concurrency: 2, delayMs: 0 },
];

const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms >= 1 ? ms.toFixed(1) : ms.toFixed(2));
const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

/** Message `i` of a conversation (about 160 tokens). */
function message(id, role, i) {
  const body = role === "user" ? "Please revise the quarterly report: tighten the summary, fix the totals in table three and explain the variance. " : "Done: the summary is shorter, the totals in table three now add up, and the variance comes from the delayed invoices. ";
  return { role, content: `${id} ${role} ${i}. ${body.repeat(5)}` };
}

/** Conversation `id`, committed just over the trigger (a chat process would now ask for a compaction). */
async function build(store, id) {
  const session = await Session.open(store, id, queueSessionOptions(fixedLatency(0, { calls: 0 })));
  for (let i = 0; i < PAIRS; i++) session.append([message(id, "user", i), message(id, "assistant", i)]);
  await session.commit();
  const check = session.check();
  session.free();
  if (!check.shouldCompact) throw new Error(`queue: conversation ${id} is at ${check.tokens} tokens, under the trigger`);
  return check.tokens;
}

/** A worker process: `ready` resolves once it listens; `close()` ends it and resolves with its summarizer calls. */
function startProcess(args, on) {
  const child = fork(WORKER, [JSON.stringify(args)], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  let readyResolve;
  let closedResolve;
  const ready = new Promise((resolve) => (readyResolve = resolve));
  const closed = new Promise((resolve) => (closedResolve = resolve));
  const exited = new Promise((_, reject) => child.once("exit", (code, signal) => reject(new Error(`queue worker exited (${code ?? signal})`))));
  exited.catch(() => {});
  child.on("message", (m) => {
    if (m.type === "ready") readyResolve();
    else if (m.type === "closed") closedResolve(m.calls);
    else on(m);
  });
  return {
    ready: Promise.race([ready, exited]),
    // Ends the worker (killing it when it does not answer in 10 s); resolves with its summarizer calls.
    close: () => {
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(0);
      child.send({ type: "close" });
      let timer;
      const late = new Promise((resolve) => (timer = setTimeout(() => resolve(child.kill("SIGKILL") && 0), 10_000)));
      return Promise.race([closed, exited.catch(() => 0), late]).finally(() => clearTimeout(timer));
    },
  };
}

/** One run: builds M conversations, starts the workers, enqueues every conversation at once, waits, checks each log. */
async function run({ store, db, connection, prefix, tag, index }, { processes, concurrency, delayMs }) {
  const name = `bench-${index}`;
  const ids = Array.from({ length: M }, (_, i) => `${tag}-q${index}-${i}`);
  const tokens = [];
  for (const id of ids) tokens.push(await build(store, id));
  const committed = new Map();
  const completed = new Map();
  const failures = [];
  let allDone;
  const done = new Promise((resolve) => (allDone = resolve));
  const on = (m) => {
    if (m.type === "committed" && !committed.has(m.id)) committed.set(m.id, m.at);
    if (m.type === "failed") failures.push(m.error);
    if (m.type === "completed") {
      completed.set(m.id, m.compacted);
      if (completed.size === M) allDone();
    }
  };
  const counter = { calls: 0 };
  const queue = compactionQueue({
    Session,
    connection,
    name,
    prefix,
    store: watchCompactions(store, (id, at) => on({ type: "committed", id, at })),
    session: () => queueSessionOptions(fixedLatency(delayMs, counter)),
  });
  const children = [];
  let t0;
  let answers;
  let enqueueMs;
  const enqueuedAt = new Map();
  try {
    if (processes === 0) {
      const worker = queue.startWorkers({ concurrency });
      worker.on("completed", (job, result) => on({ type: "completed", id: job.data.conversationId, compacted: result.compacted }));
      worker.on("failed", (_job, error) => on({ type: "failed", error: String(error?.message ?? error) }));
      await worker.waitUntilReady();
    } else {
      for (let p = 0; p < processes; p++) children.push(startProcess({ db, connection, name, prefix, delayMs, concurrency }, on));
      await Promise.all(children.map((c) => c.ready));
    }
    t0 = now();
    answers = await Promise.all(ids.map((id) => {
      enqueuedAt.set(id, now());
      return queue.enqueue(id);
    }));
    enqueueMs = now() - t0;
    let timer;
    await Promise.race([done, new Promise((resolve) => (timer = setTimeout(resolve, TIMEOUT_MS)))]);
    clearTimeout(timer);
  } finally {
    for (const child of children) counter.calls += await child.close();
    await queue.close();
  }

  let once = answers.every((a) => !a.deduplicated) && completed.size === M && [...completed.values()].every(Boolean);
  for (const id of ids) {
    const log = await store.read(id, 0);
    const entries = log.lines.filter((l) => JSON.parse(l).type === "compaction").length;
    if (entries !== 1) once = false;
  }
  const latencies = ids.filter((id) => committed.has(id)).map((id) => committed.get(id) - enqueuedAt.get(id)).sort((a, b) => a - b);
  const last = Math.max(t0, ...committed.values());
  return {
    processes,
    concurrency,
    delayMs,
    name,
    tokens: Math.max(...tokens),
    perSecond: committed.size === 0 ? 0 : committed.size / ((last - t0) / 1000),
    enqueueMs,
    p50: quantile(latencies, 0.5),
    p90: quantile(latencies, 0.9),
    max: latencies.at(-1) ?? Number.NaN,
    callsPerCompaction: counter.calls / Math.max(1, committed.size),
    committed: committed.size,
    failures,
    once,
  };
}

/** Empties the queues of this run and any key left under its prefix; returns the keys deleted by hand. */
async function cleanUp(connection, prefix, names, url) {
  for (const name of names) {
    const queue = new Queue(name, { connection, prefix });
    await queue.obliterate({ force: true });
    await queue.close();
  }
  const Redis = createRequire(import.meta.url)("ioredis");
  const client = new (Redis.default ?? Redis)(url);
  const keys = await client.keys(`${prefix}:*`);
  if (keys.length > 0) await client.del(...keys);
  await client.quit();
  return keys.length;
}

/** The queue part: `{ lines }` (markdown: a subsection of Stores). `url`: the Redis server; `dir`: where its SQLite file goes. */
export async function queueSection({ url, dir }) {
  const { hostname, port } = new URL(url);
  const connection = { host: hostname, port: Number(port) };
  const prefix = `ccbench-q-${process.pid}-${Date.now().toString(36)}`;
  const db = `${dir}queue.db`;
  const store = sqliteStore({ path: db });
  const context = { store, db, connection, prefix, tag: prefix };
  const results = [];
  try {
    for (const [index, conf] of RUNS.entries()) {
      const r = await run({ ...context, index }, conf);
      results.push(r);
      console.error(`  queue ${where(r)}, ${r.delayMs} ms: ${r.perSecond.toFixed(1)} compactions/s, ${M} enqueued in ${fmt(r.enqueueMs)} ms, enqueue→committed p50 ${fmt(r.p50)} p90 ${fmt(r.p90)} ms, ${r.committed}/${M} committed, once ${r.once}${r.failures.length ? `, failures: ${r.failures.join("; ")}` : ""}`);
    }
  } finally {
    await store.close();
    const left = await cleanUp(connection, prefix, RUNS.map((_, i) => `bench-${i}`), url);
    if (left > 0) console.error(`  queue: ${left} BullMQ keys left after obliterate, deleted`);
  }
  return { lines: render(results) };
}

const where = (r) => (r.processes === 0 ? `this process, concurrency ${r.concurrency}` : `${r.processes} processes × concurrency ${r.concurrency}`);

function render(results) {
  const out = ["### Compaction queue (BullMQ)", ""];
  out.push(`\`compactionQueue\` (js/stores/bullmq.mjs; bench/queue.mjs): ${M} conversations, each committed just over the trigger of an 8,000-token window (${PAIRS * 2} messages, ${Math.max(...results.map((r) => r.tokens)).toLocaleString("en-US")} tokens) in a SQLite file (FULL) shared by every process, are enqueued at once (\`enqueue\`, ${M} calls in parallel); the workers, started and listening before, each open a conversation (\`Session.open\`), summarize it and commit. Workers: \`startWorkers\` in the enqueuing process at the default concurrency of 2, or 2 worker processes (bench/queue-worker.mjs) of concurrency 1 or 2. The summarizer answers after a fixed latency (50 ms, a model's latency that costs no CPU, or 0 ms: the queue's and the store's own cost). Compactions/s: ${M} over the time from the first enqueue to the last compaction stored; enqueue → committed: from a conversation's \`enqueue\` call to the store's acceptance of its compaction entry. Every run is checked: no request de-duplicated, every job completed with a compaction, and each log read back holds exactly one compaction entry. BullMQ runs on the Redis server above (every write fsync'd), under a key prefix of this run, obliterated at the end.`, "");
  out.push("| workers | summarizer latency | compactions/s | enqueue → committed p50 (ms) | p90 (ms) | max (ms) | summarizer calls per compaction | one compaction per conversation |");
  out.push("|---|---|---|---|---|---|---|---|");
  for (const r of results) {
    const failed = r.failures.length ? ` (${r.failures.length} failed attempts: ${r.failures[0]})` : "";
    const missing = r.committed < M ? ` (${r.committed} of ${M} compacted within ${TIMEOUT_MS / 1000} s)` : "";
    out.push(`| ${where(r)} | ${r.delayMs} ms | ${r.perSecond.toFixed(1)} | ${fmt(r.p50)} | ${fmt(r.p90)} | ${fmt(r.max)} | ${r.callsPerCompaction.toFixed(1)} | ${r.once ? "yes" : "**no**"}${missing}${failed} |`);
  }
  const slow = results.filter((r) => r.delayMs > 0);
  const bound = (r) => (Math.max(1, r.processes) * r.concurrency * 1000) / (r.delayMs * Math.max(1, r.callsPerCompaction));
  out.push("", `With the 50 ms summarizer, jobs running at once bound the throughput: ${slow.map((r) => `${where(r)}, at most ${bound(r).toFixed(0)}/s`).join("; ")} (${M} jobs, so the first and last rounds weigh). At 0 ms the work is the queue's Redis round trips, \`Session.open\` of the conversation and the commit, on the machine's ${cpus().length} cores shared with the enqueuing process; the p50 and p90 grow with a conversation's place in the queue, since all ${M} are enqueued at once. A run at 0 ms lasts well under a second, so its rows move between runs more than the others (the machine is shared: see the load average above).`, "");
  return out;
}
