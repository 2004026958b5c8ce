// The file store against the contract, then what only files have: several processes appending to
// one conversation, a writer killed mid-append, torn tails, stale locks, and the data file being
// a plain JSONL session log. Each test works in its own temp directory, removed afterwards.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { appendFile, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { conversationFileName, fileStore } from "../../../js/stores/file.mjs";
import { conformance } from "./conformance.mjs";

const worker = fileURLToPath(new URL("./file-worker.mjs", import.meta.url));
const header = '{"type":"session","version":1,"id":"s1","format":"ai-sdk"}';
const entry = (n) => ({ id: `e${n}`, line: JSON.stringify({ type: "message", id: `e${n}`, message: { role: "user", content: `message ${n}` } }) });
const entries = (from, to) => Array.from({ length: to - from + 1 }, (_, i) => entry(from + i));

const dirs = [];
async function tempDir() {
  const dir = await mkdtemp(join(tmpdir(), "cc-file-store-"));
  dirs.push(dir);
  return dir;
}
after(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

conformance("file", async () => {
  const dir = await tempDir();
  const store = fileStore({ dir });
  return { ...store, close: async () => (await store.close(), await rm(dir, { recursive: true, force: true })) };
});

/** Runs the worker; resolves with its stdout lines and exit code. */
function run(args, onLine) {
  const child = spawn(process.execPath, [worker, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => {
    out += d;
    onLine?.(child);
  });
  child.stderr.on("data", (d) => (err += d));
  const exit = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal, lines: out.split("\n").filter(Boolean), err })));
  return { child, exit };
}

/** Asserts that the conversation loads whole batches only and that its file is clean JSONL. */
async function assertConsistent(dir, id) {
  const store = fileStore({ dir });
  const all = await store.read(id, 0);
  const loaded = await store.load(id);
  assert.equal(loaded.version, all.lines.length);
  assert.deepEqual(loaded, all);
  const parsed = all.lines.map((l) => JSON.parse(l));
  const counts = new Map();
  for (const m of parsed) counts.set(m.batch, (counts.get(m.batch) ?? 0) + 1);
  for (const m of parsed) assert.equal(counts.get(m.batch), m.size, `batch ${m.batch} is whole`);
  return { store, batches: counts, version: loaded.version };
}

/** The .jsonl file's lines, checked to end in a newline and each parse. */
async function fileLines(dir, id) {
  const text = await readFile(join(dir, `${conversationFileName(id)}.jsonl`), "utf8");
  assert.ok(text.endsWith("\n"));
  const lines = text.slice(0, -1).split("\n");
  for (const l of lines) JSON.parse(l);
  return lines;
}

describe("file store", () => {
  it("4 processes appending 30 batches each: every batch exactly once", { timeout: 30_000 }, async () => {
    const dir = await tempDir();
    const runs = Array.from({ length: 4 }, (_, k) => run([dir, "shared", `p${k}`, "30", "3", "10"]).exit);
    for (const r of await Promise.all(runs)) assert.equal(r.code, 0, r.err);
    const { store, batches, version } = await assertConsistent(dir, "shared");
    assert.equal(version, 4 * 30 * 3);
    assert.equal(batches.size, 120);
    for (let k = 0; k < 4; k++) for (let b = 0; b < 30; b++) assert.equal(batches.get(`p${k}-${b}`), 3);
    const lines = await fileLines(dir, "shared");
    assert.equal(lines.length, version + 1);
    assert.equal(JSON.parse(lines[0]).type, "session");
    assert.deepEqual((await store.read("shared", 300)).lines, lines.slice(301));
  });

  it("a writer killed with SIGKILL mid-append leaves a consistent log", { timeout: 30_000 }, async () => {
    const dir = await tempDir();
    let total = 0;
    for (let round = 0; round < 3; round++) {
      let timer;
      const { exit } = run([dir, "killed", `r${round}`, "0", "20", "20000"], (child) => {
        timer ??= setTimeout(() => child.kill("SIGKILL"), 200);
      });
      const r = await exit;
      assert.equal(r.signal, "SIGKILL", r.err);
      const { batches, version } = await assertConsistent(dir, "killed");
      assert.ok(version > total, "the round committed batches");
      assert.ok(version % 20 === 0);
      assert.ok(batches.size === version / 20);
      total = version;
    }
    // The dead child's lock is broken at once; the append truncates any torn tail.
    const store = fileStore({ dir, lockTimeoutMs: 2000, staleLockMs: 60_000 });
    const more = [{ id: "after", line: JSON.stringify({ type: "message", id: "after", batch: "after", size: 1 }) }];
    assert.deepEqual(await store.append("killed", { lines: more }, total), { ok: true, version: total + 1 });
    await assertConsistent(dir, "killed");
    const lines = await fileLines(dir, "killed");
    assert.equal(lines.length, total + 2);
    assert.equal(lines.at(-1), more[0].line);
  });

  it("ignores an uncommitted tail on load and cuts it before the next append", async () => {
    const dir = await tempDir();
    const store = fileStore({ dir });
    await store.append("torn", { header, lines: entries(1, 3), live: { from: "e2", carry: ["e1"] } }, 0);
    const name = join(dir, conversationFileName("torn"));
    // A crash after the data (and part of the index) were written, before the commit.
    await appendFile(`${name}.jsonl`, `${entry(4).line}\n{"type":"message","id":"e5","mess`);
    await appendFile(`${name}.idx`, `999 "e4"\n12`);
    const fresh = fileStore({ dir });
    assert.deepEqual(await fresh.load("torn"), { header, lines: [entry(1), entry(2), entry(3)].map((e) => e.line), version: 3 });
    assert.equal((await fresh.read("torn", 0)).lines.length, 3);
    // The ids of the torn tail are not taken; the append cuts the tail.
    assert.deepEqual(await fresh.append("torn", { lines: entries(4, 5) }, 3), { ok: true, version: 5 });
    assert.deepEqual(await fileLines(dir, "torn"), [header, ...entries(1, 5).map((e) => e.line)]);
    assert.deepEqual((await fileStore({ dir }).read("torn", 3)).lines, entries(4, 5).map((e) => e.line));
    await assert.rejects(fresh.append("torn", { lines: [entry(4)] }, 5));
  });

  it("breaks a lock left by a dead process or too old, and waits for a live one", { timeout: 20_000 }, async () => {
    const dir = await tempDir();
    const store = fileStore({ dir, lockTimeoutMs: 300, staleLockMs: 60_000 });
    await store.append("locked", { header, lines: entries(1, 1) }, 0);
    const lock = join(dir, `${conversationFileName("locked")}.lock`);
    const dead = spawn(process.execPath, ["-e", ""]);
    await new Promise((r) => dead.on("exit", r));
    const info = (pid, time) => JSON.stringify({ pid, host: hostname(), time, token: "t" });
    // A dead pid: broken at once, though fresh, with the temp file its process left and a breaker
    // that died too.
    await writeFile(lock, info(dead.pid, Date.now()));
    const junk = `${lock}.${dead.pid}-00000000-0000-4000-8000-000000000000`;
    await writeFile(junk, info(dead.pid, Date.now()));
    await writeFile(`${lock}.break`, info(dead.pid, Date.now()));
    assert.deepEqual(await store.append("locked", { lines: entries(2, 2) }, 1), { ok: true, version: 2 });
    await assert.rejects(stat(junk), { code: "ENOENT" });
    await assert.rejects(stat(`${lock}.break`), { code: "ENOENT" });
    // A live holder (this process): waited for, then the append rejects and writes nothing.
    await writeFile(lock, info(process.pid, Date.now()));
    await assert.rejects(store.append("locked", { lines: entries(3, 3) }, 2), (e) => e.code === "LOCK_TIMEOUT");
    await assert.rejects(store.acquireLease("locked", "w", 1000), (e) => e.code === "LOCK_TIMEOUT");
    assert.equal((await store.load("locked")).version, 2);
    // Older than staleLockMs, though its process lives: broken.
    await writeFile(lock, info(process.pid, Date.now() - 120_000));
    assert.deepEqual(await store.append("locked", { lines: entries(3, 3) }, 2), { ok: true, version: 3 });
    // Empty (a crash between creating and writing it): judged by its age.
    await writeFile(lock, "");
    const old = new Date(Date.now() - 120_000);
    await utimes(lock, old, old);
    assert.equal(await store.acquireLease("locked", "w", 1000), true);
    await assert.rejects(stat(lock), { code: "ENOENT" });
  });

  it("writes a plain JSONL session log: header first, every line in order", async () => {
    const dir = await tempDir();
    const store = fileStore({ dir });
    await store.append("log", { header, lines: entries(1, 4) }, 0);
    await store.append("log", { lines: entries(5, 6), live: { from: "e5", carry: ["e1"] } }, 4);
    await store.append("log", { lines: [] }, 6);
    await store.append("log", { lines: entries(7, 7) }, 6);
    assert.deepEqual(await fileLines(dir, "log"), [header, ...entries(1, 7).map((e) => e.line)]);
    assert.deepEqual((await store.load("log")).lines, [entry(1), ...entries(5, 7)].map((e) => e.line));
  });

  it("gives any conversation id its own safe file name", async () => {
    const dir = await tempDir();
    const store = fileStore({ dir });
    const ids = ["a", "A", "../up", "a/b", ".", "..", "con", "with space", "%41", "日本", "x".repeat(512), "y".repeat(512), "\ud800", "\ud801"];
    for (const [i, id] of ids.entries()) await store.append(id, { header: header.replace("s1", `s${i}`), lines: entries(1, i + 1) }, 0);
    for (const [i, id] of ids.entries()) {
      const loaded = await store.load(id);
      assert.equal(loaded.version, i + 1);
      assert.match(loaded.header, new RegExp(`"s${i}"`));
      const name = conversationFileName(id);
      assert.match(name, /^([a-z0-9_-]|%[0-9a-f]{2})+$|^\+[0-9a-f]{64}$/);
      if (!name.startsWith("+")) assert.equal(decodeURIComponent(name), id);
    }
    const files = await readdir(dir);
    assert.equal(files.filter((f) => f.endsWith(".jsonl")).length, ids.length);
  });
});
