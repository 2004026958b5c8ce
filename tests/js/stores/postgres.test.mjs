// The postgres store against the contract, on the private cluster of scripts/postgres.sh (started
// here, stopped by the test runner), plus what only a real server shows: appends from several
// processes, and a connection lost in the middle of an append's transaction.
// A server that cannot start fails these tests; they never skip.
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { before, describe, it } from "node:test";
import { postgresStore } from "../../../js/stores/postgres.mjs";
import { conformance } from "./conformance.mjs";

const script = fileURLToPath(new URL("../../../scripts/postgres.sh", import.meta.url));
const worker = fileURLToPath(new URL("./postgres-worker.mjs", import.meta.url));
const pg = createRequire(import.meta.url)("pg");
const header = '{"type":"session","version":1,"id":"pg","format":"ai-sdk"}';
const entry = (n) => ({ id: `e${n}`, line: JSON.stringify({ type: "message", id: `e${n}`, n }) });
const entries = (from, to) => Array.from({ length: to - from + 1 }, (_, i) => entry(from + i));
const unique = (name) => `${name}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;

// A failed start fails every test with its reason (a throwing hook would only cancel them).
let started;
before(() => {
  try {
    execFileSync("bash", [script, "start"], { stdio: ["ignore", "ignore", "pipe"], timeout: 120_000 });
    started = execFileSync("bash", [script, "url"], { encoding: "utf8" }).trim();
  } catch (err) {
    started = new Error(`scripts/postgres.sh start failed: ${err.stderr?.toString().trim() || err.message}`);
  }
});
/** The test server's connection string; throws when it did not start. */
function url() {
  if (typeof started !== "string") throw started ?? new Error("the test server was not started");
  return started;
}

/** Runs `fn` with a pool of its own, dropping `schema` (when given) and ending the pool after. */
async function withPool(fn, schema) {
  const pool = new pg.Pool({ connectionString: url() });
  pool.on("error", () => {});
  try {
    return await fn(pool);
  } finally {
    if (schema) await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  }
}

conformance("postgres", async () => postgresStore({ connectionString: url() }));

describe("postgres store", () => {
  it("resolves the live set by id: unknown `from` is the whole log, unknown carried ids are ignored", async () => {
    const store = postgresStore({ connectionString: url() });
    try {
      const id = unique("liveids");
      await store.append(id, { header, lines: entries(1, 5), live: { from: "nope", carry: ["e1"] } }, 0);
      assert.deepEqual((await store.load(id)).lines, entries(1, 5).map((e) => e.line));
      await store.append(id, { lines: entries(6, 6), live: { from: "e4", carry: ["e2", "nope", "e5"] } }, 5);
      assert.deepEqual((await store.load(id)).lines, [entry(2), ...entries(4, 6)].map((e) => e.line));
    } finally {
      await store.close();
    }
  });

  it("uses a pool it is given without ending it, and the schema and table prefix it is told", async () => {
    const schema = unique("cc_opts");
    await withPool(async (pool) => {
      const store = postgresStore({ pool, schema, tablePrefix: "t_" });
      await store.append("c", { header, lines: entries(1, 2) }, 0);
      await store.close();
      const { rows } = await pool.query(`SELECT count(*)::int AS n FROM "${schema}".t_entries`);
      assert.equal(rows[0].n, 2);
      const again = postgresStore({ pool, schema, tablePrefix: "t_" });
      assert.equal((await again.load("c")).version, 2);
    }, schema);
  });

  it("rejects bad options", () => {
    assert.throws(() => postgresStore({}), TypeError);
    assert.throws(() => postgresStore({ pool: {} }), TypeError);
    assert.throws(() => postgresStore({ connectionString: url(), tablePrefix: "a-b" }), TypeError);
    assert.throws(() => postgresStore({ connectionString: url(), schema: "" }), TypeError);
  });

  it("four processes appending to one conversation commit every batch exactly once", async () => {
    // A fresh schema: the processes also race to create the tables and the conversation.
    const schema = unique("cc_multi");
    const id = "shared";
    const batches = 30;
    const run = promisify(execFile);
    const outputs = await Promise.all(
      [0, 1, 2, 3].map((w) => run(process.execPath, [worker, url(), schema, id, String(w), String(batches)], { timeout: 25_000 })),
    );
    const conflicts = outputs.reduce((n, { stdout }) => n + JSON.parse(stdout).conflicts, 0);
    await withPool(async (pool) => {
      const store = postgresStore({ pool, schema });
      const log = await store.read(id, 0);
      const parsed = log.lines.map((line) => JSON.parse(line));
      assert.equal(log.version, parsed.length);
      // Every batch of every worker, once, its lines together and in order.
      const perBatch = (b) => 1 + (b % 3);
      let expected = 0;
      for (let b = 0; b < batches; b++) expected += 4 * perBatch(b);
      assert.equal(parsed.length, expected);
      const seen = new Set();
      for (let i = 0; i < parsed.length; ) {
        const { worker: w, batch: b } = parsed[i];
        const key = `${w}/${b}`;
        assert.ok(!seen.has(key), `batch ${key} twice`);
        seen.add(key);
        for (let part = 0; part < perBatch(b); part++, i++) {
          assert.deepEqual([parsed[i].worker, parsed[i].batch, parsed[i].part], [w, b, part], `batch ${key} torn at line ${i}`);
        }
      }
      assert.equal(seen.size, 4 * batches);
      // Each worker's batches in its own order.
      for (let w = 0; w < 4; w++) {
        const order = parsed.filter((e) => e.worker === w && e.part === 0).map((e) => e.batch);
        assert.deepEqual(order, Array.from({ length: batches }, (_, b) => b));
      }
      assert.deepEqual(await store.load(id), log);
    }, schema);
    assert.ok(conflicts >= 0);
  });

  it("a connection lost inside an append's transaction commits nothing, and a retry succeeds", async () => {
    await withPool(async (real) => {
      const admin = new pg.Client({ connectionString: url() });
      await admin.connect();
      // A pool whose clients let the test kill their server process right after the INSERT of
      // the lines, before the live-set UPDATE and the COMMIT.
      let armed = false;
      let killed = 0;
      const wrapped = new WeakSet();
      const pool = {
        async connect() {
          const client = await real.connect();
          if (!wrapped.has(client)) {
            wrapped.add(client);
            const query = client.query.bind(client);
            client.query = async (text, values) => {
              const result = await query(text, values);
              if (armed && /^\s*INSERT INTO \S+entries"/.test(text)) {
                armed = false;
                // The second argument waits (up to 5 s) until the backend has exited.
                const { rows } = await admin.query("SELECT pg_terminate_backend($1, 5000) AS done", [client.processID]);
                assert.equal(rows[0].done, true);
                killed++;
              }
              return result;
            };
          }
          return client;
        },
      };
      try {
        const store = postgresStore({ pool });
        const id = unique("torn");
        await store.append(id, { header, lines: entries(1, 2) }, 0);
        const batch = { lines: entries(3, 6), live: { from: "e4", carry: ["e1"] } };
        armed = true;
        await assert.rejects(store.append(id, batch, 2), (err) => /connection|terminat/i.test(err.message));
        assert.equal(killed, 1);
        const other = postgresStore({ connectionString: url() });
        try {
          assert.deepEqual(await other.load(id), { header, lines: entries(1, 2).map((e) => e.line), version: 2 });
          assert.equal((await other.read(id, 0)).lines.length, 2);
          // The same store again: the pool dropped the dead client.
          assert.deepEqual(await store.append(id, batch, 2), { ok: true, version: 6 });
          assert.deepEqual((await other.load(id)).lines, [entry(1), ...entries(4, 6)].map((e) => e.line));
          assert.equal((await other.read(id, 0)).version, 6);
        } finally {
          await other.close();
        }
      } finally {
        await admin.end();
      }
    });
  });
});
