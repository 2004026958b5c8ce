// The cost of the trap guard's copy of each Session's log (js/guard.mjs): the JS memory the copy
// holds, relative to the log's size, and how much slower `append` is through the public class
// (forwarding plus the copy of the new lines) than on the wasm-bindgen object underneath.
//   node --expose-gc bench/reset-copy.mjs           logs of 8, 32 and 128 MiB read back, and grown by
//                                                  20,000 appends of 1 message or 2,000 of 20
//   SCALE=0.25 node --expose-gc bench/reset-copy.mjs   the log sizes × 0.25
//   RUNS=9 node --expose-gc bench/reset-copy.mjs        the fastest of 9 runs of each append loop (5)
// Prints a Markdown table; docs/BENCHMARKS.md holds its last figures.
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";

const require = createRequire(import.meta.url);
const { Session } = require("../js/node.cjs");
// The same instance's unguarded class (the one the public class forwards to).
const glue = require("../pkg/node/context_compaction.js");

if (typeof globalThis.gc !== "function") {
  console.error("run with node --expose-gc");
  process.exit(1);
}
const scale = Number(process.env.SCALE ?? 1);
const runs = Number(process.env.RUNS ?? 5);
const options = { contextWindow: 100_000_000, summarize: "extractive" };
const MiB = 1 << 20;

const message = (i, words) => ({ role: i % 2 ? "assistant" : "user", content: `message ${i} ` + "lorem ipsum dolor ".repeat(words) });

// The JS heap and the array buffers (the copy holds its lines as UTF-8 bytes).
function heap() {
  for (let i = 0; i < 3; i++) globalThis.gc();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

// A log of about `bytes`, written by a session on the glue (no copy), as JSONL text.
function logOf(bytes) {
  const s = new glue.Session(options);
  let n = 0;
  while (n * 1100 < bytes) {
    const batch = [];
    for (let k = 0; k < 100; k++, n++) batch.push(message(n, 60));
    s.append(batch);
  }
  const text = s.toJSONL();
  s.free();
  return text;
}

// The JS heap a Session read from the log holds (the log's text is kept outside the JS heap, in a
// Buffer, and the string made from it for the call is collected before the measure).
function copyMemory(bytes) {
  const log = Buffer.from(logOf(bytes));
  const before = heap();
  const session = Session.fromJSONL(log.toString(), options);
  const held = heap() - before;
  const out = { size: log.length, held };
  session.free();
  return out;
}

// The JS heap a session grown by `count` appends of `batch` messages holds through the public
// class, less what the same session holds on the glue (the caller's message objects, which both
// keep for rendering): the copy, in one piece per append.
function grownMemory(count, batch) {
  const held = {};
  let size = 0;
  for (const [name, Class] of [["glue", glue.Session], ["guarded", Session]]) {
    const before = heap();
    const s = new Class(options);
    for (let i = 0; i < count; i++) {
      const messages = [];
      for (let k = 0; k < batch; k++) messages.push(message(i * batch + k, 60));
      s.append(messages);
    }
    held[name] = heap() - before;
    size = Buffer.byteLength(s.toJSONL());
    s.free();
  }
  return { size, held: held.guarded - held.glue };
}

// Appends of `batch` messages each, timed on the public class and on the glue's.
function appendTimes(count, batch) {
  const times = {};
  // Alternated, the fastest of `runs` kept for each (the machine may be shared).
  const order = [];
  for (let r = 0; r < runs; r++) order.push(["guarded", Session], ["glue", glue.Session]);
  for (const [name, Class] of order) {
    const s = new Class(options);
    const start = performance.now();
    for (let i = 0; i < count; i++) {
      const messages = [];
      for (let k = 0; k < batch; k++) messages.push(message(i * batch + k, 20));
      s.append(messages);
    }
    times[name] = Math.min(times[name] ?? Infinity, performance.now() - start);
    s.free();
  }
  return times;
}

console.log("| log (read back, or grown by appends) | JS heap held by the copy | copy / log |");
console.log("|---:|---:|---:|");
for (const mib of [8, 32, 128]) {
  const { size, held } = copyMemory(mib * scale * MiB);
  console.log(`| ${(size / MiB).toFixed(1)} MiB | ${(held / MiB).toFixed(1)} MiB | ${(held / size).toFixed(2)}× |`);
}
for (const [count, batch] of [[Math.round(20_000 * scale), 1], [Math.round(2_000 * scale), 20]]) {
  const { size, held } = grownMemory(count, batch);
  console.log(`| ${(size / MiB).toFixed(1)} MiB (${count} appends of ${batch}) | ${(held / MiB).toFixed(1)} MiB | ${(held / size).toFixed(2)}× |`);
}
console.log("");
console.log("| appends | messages each | glue | public class | slowdown |");
console.log("|---:|---:|---:|---:|---:|");
for (const [count, batch] of [[20_000, 1], [2_000, 20]]) {
  const t = appendTimes(count, batch);
  console.log(`| ${count} | ${batch} | ${t.glue.toFixed(0)} ms | ${t.guarded.toFixed(0)} ms | ${(t.guarded / t.glue).toFixed(2)}× |`);
}
console.log("");
console.log(`load average: ${loadavg().map((l) => l.toFixed(2)).join(", ")}`);
