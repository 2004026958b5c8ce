// The redis store against the contract, on a private redis-server (scripts/redis.sh starts it, or
// fails the tests when it cannot: they never skip; the test runner stops it). Then what only a
// real server shows: appends from several processes, a connection killed while an append is in
// flight, an append that ioredis resends after a reconnect, and an acknowledged append surviving
// a crash of the server.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { redisStore } from "../../../js/stores/redis.mjs";
import { conformance } from "./conformance.mjs";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const redisSh = join(root, "scripts/redis.sh");
const header = '{"type":"session","version":1,"id":"s1","format":"ai-sdk"}';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const conv = (name) => `${name}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
const batch = (tag, n, size = 40) =>
  Array.from({ length: n }, (_, i) => ({ id: `${tag}-${i}`, line: JSON.stringify({ id: `${tag}-${i}`, text: "x".repeat(size) }) }));

let url;
/** A raw client for looking at the keys; closed after the tests. */
let raw;
before(() => {
  // Throws (and so fails every test of this file) when the server cannot start.
  execFileSync("bash", [redisSh, "start"], { stdio: ["ignore", "inherit", "inherit"], timeout: 180_000 });
  url = execFileSync("bash", [redisSh, "url"], { encoding: "utf8" }).trim();
  raw = new Redis(url);
});
after(() => raw?.disconnect());

conformance("redis", async () => redisStore({ url }));

/**
 * Asserts what any reader must see, through a fresh client: a version equal to the number of lines
 * and an ids hash naming each line's position. Returns the whole log and its entry ids.
 */
async function checkLog(id) {
  const fresh = redisStore({ url });
  try {
    const all = await fresh.read(id, 0);
    assert.equal(all.version, all.lines.length);
    const ids = all.lines.map((line) => JSON.parse(line).id);
    assert.equal(await raw.hlen(`cc:{${id}}:ids`), ids.length);
    const positions = ids.length ? await raw.hmget(`cc:{${id}}:ids`, ...ids) : [];
    assert.deepEqual(positions, ids.map((_, i) => String(i)));
    return { all, ids, load: await fresh.load(id) };
  } finally {
    await fresh.close();
  }
}

/** Asserts that the log is `base` then `batches` each whole or absent; returns which are present. */
function batchesPresent(ids, base, batches) {
  assert.deepEqual(ids.slice(0, base.length), base.map((l) => l.id));
  let at = base.length;
  const present = [];
  for (const lines of batches) {
    const here = ids.slice(at, at + lines.length);
    const whole = here.length > 0 && here[0] === lines[0].id;
    if (whole) assert.deepEqual(here, lines.map((l) => l.id), "a batch is there whole");
    if (whole) at += lines.length;
    present.push(whole);
  }
  assert.equal(at, ids.length, "no line outside the batches");
  return present;
}

describe("redis store on a real server", () => {
  it("keeps every batch of 4 processes exactly once, in one order", async () => {
    const id = conv("procs");
    const store = redisStore({ url });
    await store.append(id, { header, lines: [] }, 0);
    await store.close();
    const workers = 4;
    const batches = 30;
    const script = fileURLToPath(new URL("./redis-appender.mjs", import.meta.url));
    const outputs = await Promise.all(
      Array.from({ length: workers }, (_, w) =>
        new Promise((resolve, reject) => {
          const child = spawn(process.execPath, [script, url, id, String(w), String(batches)], { stdio: ["ignore", "pipe", "inherit"] });
          let out = "";
          child.stdout.on("data", (d) => (out += d));
          child.on("error", reject);
          child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`worker ${w} exited with ${code}`))));
        })),
    );
    assert.equal(outputs.length, workers);
    const { all, load } = await checkLog(id);
    assert.equal(all.version, workers * batches * 2);
    assert.deepEqual(load, all);
    const seen = new Map();
    for (let i = 0; i < all.lines.length; i += 2) {
      const [a, b] = all.lines.slice(i, i + 2).map((l) => JSON.parse(l));
      assert.deepEqual([a.worker, a.batch, a.k, b.worker, b.batch, b.k], [a.worker, a.batch, 0, a.worker, a.batch, 1], "a batch's lines are adjacent");
      const key = `${a.worker}/${a.batch}`;
      assert.ok(!seen.has(key), `batch ${key} once`);
      seen.set(key, i);
    }
    assert.equal(seen.size, workers * batches);
    for (let w = 0; w < workers; w++) {
      for (let b = 1; b < batches; b++) assert.ok(seen.get(`${w}/${b}`) > seen.get(`${w}/${b - 1}`), "each worker's batches in its order");
    }
  });

  it("an append whose connection is killed in flight settles, and commits whole or not at all", async () => {
    const killer = new Redis(url);
    const clients = [killer];
    try {
      const outcomes = [];
      // The client drops its socket (the server then holds part of the command, which it
      // discards), or the server kills the connection (CLIENT KILL from another one), after
      // `delay` ms.
      const rounds = [["client", 0], ["client", 0], ["client", 2], ["server", 0], ["server", 2], ["server", 20]];
      for (const [round, [how, delay]] of rounds.entries()) {
        const id = conv("kill");
        // No reconnection: the in-flight command fails instead of being resent (next test).
        const client = new Redis(url, { retryStrategy: () => null });
        clients.push(client);
        client.on("error", () => {});
        const store = redisStore({ client });
        const base = batch(`r${round}-base`, 3);
        await store.append(id, { header, lines: base }, 0);
        const lines = batch(`r${round}-big`, 300, 20_000); // 6 MB: the kill may land mid-transfer
        const clientId = await client.client("ID");
        // Handled from the start: it may reject while the kill is on its way.
        const pending = store
          .append(id, { lines, live: { from: lines[250].id, carry: [base[0].id] } }, 3)
          .then((result) => ({ result }), (error) => ({ error }));
        if (delay) await sleep(delay);
        if (how === "client") client.stream.destroy();
        else await killer.client("KILL", "ID", String(clientId)).catch(() => {});
        let timer;
        const settled = await Promise.race([
          pending,
          new Promise((resolve) => (timer = setTimeout(() => resolve({ hung: true }), 10_000))),
        ]);
        clearTimeout(timer);
        assert.ok(!settled.hung, "the append settles");
        if (settled.result) assert.deepEqual(settled.result, { ok: true, version: 303 });
        // The server may still be reading or running the command of a connection the client
        // dropped: look once that connection is gone from the server.
        for (let i = 0; i < 100 && (await killer.client("LIST")).includes(`id=${clientId} `); i++) await sleep(20);
        const log = await checkLog(id);
        const [present] = batchesPresent(log.ids, base, [lines]);
        if (settled.result) assert.equal(present, true, "a resolved append is in the log");
        const live = present ? [base[0], ...lines.slice(250)] : base;
        assert.deepEqual(log.load, { header, lines: live.map((l) => l.line), version: log.all.version });
        outcomes.push(`${present ? "applied" : "not applied"} (${settled.result ? "resolved" : `rejected: ${settled.error.message}`})`);
      }
      // Both outcomes are timing-dependent; each one was checked for consistency above.
      assert.equal(outcomes.length, rounds.length);
      if (process.env.CC_REDIS_DEBUG) console.log(outcomes);
    } finally {
      for (const client of clients) client.disconnect();
    }
  });

  it("an append ioredis resends after a reconnect is refused as a conflict, never applied twice", async () => {
    const id = conv("replay");
    const client = new Redis(url, { retryStrategy: () => 50 }); // reconnects; resends unanswered commands
    client.on("error", () => {});
    const store = redisStore({ client });
    try {
      const base = batch("base", 2);
      await store.append(id, { header, lines: base }, 0); // also caches the script on the server
      const lines = batch("replayed", 5);
      // Stop reading replies, send the append, wait until the server has applied it, then drop
      // the connection: ioredis holds an unanswered command, and sends it again once reconnected.
      client.stream.pause();
      const pending = store.append(id, { lines }, 2);
      for (let i = 0; (await raw.llen(`cc:{${id}}:lines`)) !== 7; i++) {
        assert.ok(i < 200, "the append reaches the server");
        await sleep(10);
      }
      client.stream.destroy();
      assert.deepEqual(await pending, { ok: false, version: 7 });
      const log = await checkLog(id);
      assert.deepEqual(batchesPresent(log.ids, base, [lines]), [true]);
      assert.deepEqual(log.load, log.all);
    } finally {
      client.disconnect();
    }
  });

  it("with a given client: its prefix, a flushed script cache, TypeErrors, and close leaves it open", async () => {
    const client = new Redis(url);
    try {
      const store = redisStore({ client, prefix: "other:" });
      const id = conv("given");
      const lines = batch("g", 3);
      assert.deepEqual(await store.append(id, { header, lines }, 0), { ok: true, version: 3 });
      assert.deepEqual(await client.keys(`other:{${id}}:*`).then((k) => k.sort()), ["header", "ids", "lines"].map((p) => `other:{${id}}:${p}`));
      assert.equal(await raw.exists(`cc:{${id}}:lines`), 0);
      await client.script("FLUSH"); // EVALSHA answers NOSCRIPT: the store sends the script itself
      assert.deepEqual((await store.load(id)).lines, lines.map((l) => l.line));
      await assert.rejects(store.append(id, { lines: [lines[1]] }, 3), (e) => e instanceof TypeError && /already in the conversation/.test(e.message));
      await assert.rejects(redisStore({ client }).append(conv("nohead"), { lines }, 0), TypeError);
      await store.close();
      assert.equal(await client.ping(), "PONG");
    } finally {
      client.disconnect();
    }
  });

  it("the same append sent twice applies once", async () => {
    const id = conv("twice");
    const store = redisStore({ url });
    try {
      const lines = batch("t", 4);
      const results = await Promise.all([store.append(id, { header, lines }, 0), store.append(id, { header, lines }, 0)]);
      assert.deepEqual(results.map((r) => r.ok).sort(), [false, true]);
      assert.deepEqual(results.map((r) => r.version), [4, 4]);
      const log = await checkLog(id);
      assert.deepEqual(log.ids, lines.map((l) => l.id));
    } finally {
      await store.close();
    }
  });

  it("an acknowledged append survives a crash of the server (append-only file, fsync always)", async () => {
    assert.deepEqual(await raw.config("GET", "appendfsync"), ["appendfsync", "always"]);
    const id = conv("crash");
    const store = redisStore({ url });
    const lines = batch("durable", 20);
    assert.deepEqual(await store.append(id, { header, lines, live: { from: "durable-15", carry: ["durable-2"] } }, 0), { ok: true, version: 20 });
    await store.close();
    raw.disconnect();
    const port = new URL(url).port;
    const pid = Number(readFileSync(join(root, `tests/.tmp/redis/redis-${port}.pid`), "utf8"));
    process.kill(pid, "SIGKILL");
    // Gone, or a zombie (its open files and port closed) that init has not reaped yet.
    const state = () => readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "")[0];
    for (let i = 0; i < 100 && (() => { try { return state() !== "Z"; } catch { return false; } })(); i++) await sleep(20);
    execFileSync("bash", [redisSh, "start"], { stdio: ["ignore", "inherit", "inherit"], timeout: 30_000 });
    raw = new Redis(url);
    const reopened = redisStore({ url });
    try {
      assert.deepEqual(await reopened.load(id), { header, lines: [lines[2], ...lines.slice(15)].map((l) => l.line), version: 20 });
      assert.deepEqual((await checkLog(id)).ids, lines.map((l) => l.id));
    } finally {
      await reopened.close();
    }
  });
});
