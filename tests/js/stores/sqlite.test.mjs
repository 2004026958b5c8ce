// The SQLite store against the contract (on a file and in memory), and what only it promises:
// the file outlives the store, table prefixes keep stores apart, a caller's database stays
// open, several processes append to one conversation safely, and a process killed inside an
// append leaves nothing of it behind.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { sqliteStore } from "../../../js/stores/sqlite.mjs";
import { conformance } from "./conformance.mjs";

const Database = createRequire(import.meta.url)("better-sqlite3");
const dir = mkdtempSync(join(tmpdir(), "cc-sqlite-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
/** A path for a new database file in this run's temporary directory. */
const freshPath = () => join(dir, `store-${files++}.sqlite`);

conformance("sqlite (file)", async () => sqliteStore({ path: freshPath() }));
conformance("sqlite (memory)", async () => sqliteStore());

const header = '{"type":"session","version":1,"id":"s1","format":"ai-sdk"}';
const line = (id) => ({ id, line: JSON.stringify({ type: "message", id }) });

/**
 * Runs `node <script> ...args` from this directory; resolves with its stdout once it exits with 0.
 * `onLine(line, child)` sees each line of its stdout as it comes.
 */
function runChild(script, args, onLine = () => {}) {
  const child = spawn(process.execPath, [fileURLToPath(new URL(script, import.meta.url)), ...args]);
  let stdout = "";
  let partial = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk) => {
    stdout += chunk;
    const lines = (partial + chunk).split("\n");
    partial = lines.pop();
    for (const l of lines) onLine(l, child);
  });
  child.stderr.setEncoding("utf8").on("data", (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code, signal) => (code === 0 ? resolve(stdout) : reject(Object.assign(new Error(`${script} exited with ${code ?? signal}: ${stderr}`), { code, signal }))));
  });
}

describe("sqlite store", () => {
  it("keeps conversations in the file after the store closes, apart by table prefix", async () => {
    const path = freshPath();
    const first = sqliteStore({ path });
    await first.append("c", { header, lines: [line("e1"), line("e2")] }, 0);
    await first.close();
    const again = sqliteStore({ path });
    assert.deepEqual(await again.load("c"), { header, lines: [line("e1").line, line("e2").line], version: 2 });
    const other = sqliteStore({ path, tablePrefix: "other_" });
    assert.equal(await other.load("c"), null);
    await Promise.all([again.close(), other.close()]);
    assert.throws(() => sqliteStore({ tablePrefix: 'x"; DROP TABLE y; --' }), TypeError);
  });

  it("leaves a caller's database open, and turns SQLite's errors into rejections", async () => {
    const db = new Database(":memory:");
    const store = sqliteStore({ database: db });
    await store.append("c", { header, lines: [line("e1")] }, 0);
    await store.close();
    assert.equal(db.open, true);
    assert.equal((await sqliteStore({ database: db }).load("c")).version, 1);
    db.close();
    const pending = store.load("c"); // the connection is closed: better-sqlite3 throws
    assert.ok(pending instanceof Promise);
    await assert.rejects(pending, /not open/);
  });

  it("takes 200 batches from 4 processes, each exactly once and whole, version = line count", async (t) => {
    const path = freshPath();
    const store = sqliteStore({ path });
    await store.append("shared", { header, lines: [] }, 0);
    // Every writer opens its store first, then all start at once (their stdin closes).
    const ready = [];
    const startWhenAllReady = (l, child) => l === "ready" && ready.push(child) === 4 && ready.forEach((c) => c.stdin.end());
    const outputs = await Promise.all([0, 1, 2, 3].map((w) => runChild("sqlite-writer.mjs", [path, "shared", String(w), "50"], startWhenAllReady)));
    const log = await store.read("shared", 0);
    assert.equal(log.version, 600);
    assert.equal(log.lines.length, 600);
    const parsed = log.lines.map((l) => JSON.parse(l));
    const nextBatch = [0, 0, 0, 0];
    for (let i = 0; i < parsed.length; i += 3) {
      const { w, b } = parsed[i];
      // A batch's three lines are adjacent and in order; each writer's batches come in its order.
      assert.deepEqual(parsed.slice(i, i + 3), [0, 1, 2].map((l) => ({ w, b, l })));
      assert.equal(b, nextBatch[w]++);
    }
    assert.deepEqual(nextBatch, [50, 50, 50, 50]);
    assert.deepEqual(await store.load("shared"), log);
    // How many appends lost a race depends on scheduling; the log above must not.
    t.diagnostic(`version conflicts retried: ${outputs.reduce((n, out) => n + JSON.parse(out.split("\n").at(-2)).conflicts, 0)}`);
    await store.close();
  });

  it("opens from 6 processes that create the same file at the same moment (WAL switch under contention)", async () => {
    // Each round a new file: the processes race to create it and switch it to WAL, where SQLite
    // may answer SQLITE_BUSY without waiting (the store retries it within its busy timeout).
    for (let round = 0; round < 30; round++) {
      const path = freshPath();
      const startAt = String(Date.now() + 400);
      const outputs = await Promise.all([0, 1, 2, 3, 4, 5].map((w) => runChild("sqlite-opener.mjs", [path, startAt, `p${w}`])));
      for (const out of outputs) assert.equal(out.trim(), "ok");
      const store = sqliteStore({ path });
      const { lines } = await store.read("c", 0);
      assert.equal(lines.length, 6, `round ${round}`);
      await store.close();
    }
  });

  it("keeps nothing of an append whose process is killed mid-transaction", async () => {
    const path = freshPath();
    const store = sqliteStore({ path });
    const seed = Array.from({ length: 10 }, (_, i) => line(`e${i}`));
    await store.append("crash", { header, lines: seed }, 0);
    const died = await runChild("sqlite-crash.mjs", [path, "crash", "10"], (l, child) => {
      if (l === "mid") child.kill("SIGKILL");
    }).then(
      () => assert.fail("the child committed"),
      (error) => error,
    );
    assert.equal(died.signal, "SIGKILL", died.message);
    const expected = { header, lines: seed.map((e) => e.line), version: 10 };
    // The connection that stayed open, and a new one, see the last commit and only it.
    assert.deepEqual(await store.load("crash"), expected);
    const fresh = sqliteStore({ path });
    assert.deepEqual(await fresh.load("crash"), expected);
    assert.deepEqual(await fresh.read("crash", 0), expected);
    // The dead process's lock is gone, and so are its entry ids: the same batch commits now.
    assert.deepEqual(await fresh.append("crash", { lines: [line("c0"), line("hang")] }, 10), { ok: true, version: 12 });
    assert.equal((await store.load("crash")).version, 12);
    await Promise.all([store.close(), fresh.close()]);
  });
});
