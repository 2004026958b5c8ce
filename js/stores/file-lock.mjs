// The file store's lock (js/stores/file.mjs): one lock file per conversation, for the processes
// of one machine, and an in-memory queue for the calls of one store.
//
// A lock file holds `{ pid, host, time, token }`. It is written to a temp file and hard-linked to
// its name, which fails when the name exists (like `open(path, "wx")`, but the lock never exists
// half-written; where the file system has no hard links it falls back to "wx"). A waiter polls
// with short sleeps up to `lockTimeoutMs`, then rejects with `code: "LOCK_TIMEOUT"`. A lock is
// stale when it is older than `staleLockMs` or its process is gone (same host, `kill(pid, 0)`
// says ESRCH); stale locks are broken by one breaker at a time (`<lock>.break`, itself a lock),
// which judges the lock again before removing it, so two waiters cannot both break a lock and
// remove a fresh one; the breaker also removes the temp files of dead processes (a crash between
// writing and removing one). A holder removes only its own lock (same token). `staleLockMs` must exceed
// the longest hold: a live holder past it loses its lock.
import { randomUUID } from "node:crypto";
import { link, open, readdir, readFile, unlink, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";

const HOST = hostname();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Is this process alive? (`kill(pid, 0)`: ESRCH means gone, EPERM means someone else's.) */
function alive(pid) {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === "EPERM";
  }
}

/**
 * Locks by lock file path.
 * @param {{ lockTimeoutMs: number, staleLockMs: number }} options
 * @returns {<T>(file: string, fn: () => Promise<T>) => Promise<T>} runs `fn` holding the lock `file`
 */
export function fileLocks({ lockTimeoutMs, staleLockMs }) {
  const queues = new Map();
  return async function withLock(file, fn) {
    const deadline = Date.now() + lockTimeoutMs;
    const prev = queues.get(file) ?? Promise.resolve();
    /** @type {() => void} */
    let done = () => {};
    const mine = new Promise((r) => (done = () => r(undefined)));
    const tail = prev.then(() => mine);
    queues.set(file, tail);
    await prev;
    try {
      const lock = await takeLock(file, deadline);
      try {
        return await fn();
      } finally {
        await dropLock(file, lock);
      }
    } finally {
      done();
      if (queues.get(file) === tail) queues.delete(file);
    }
  };

  /** Creates a lock file holding pid, host, time and a token: its content, or null if taken. */
  async function tryCreate(file) {
    const token = randomUUID();
    const body = JSON.stringify({ pid: process.pid, host: HOST, time: Date.now(), token });
    const tmp = `${file}.${process.pid}-${token}`;
    await writeFile(tmp, body, { flag: "wx" });
    try {
      await link(tmp, file);
      return body;
    } catch (e) {
      if (e.code === "EEXIST") return null;
      if (!["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS"].includes(e.code)) throw e;
    } finally {
      await unlink(tmp).catch(() => {});
    }
    try {
      await writeFile(file, body, { flag: "wx" });
      return body;
    } catch (e) {
      if (e.code === "EEXIST") return null;
      throw e;
    }
  }
  async function takeLock(file, deadline) {
    for (let attempt = 0; ; attempt++) {
      const body = await tryCreate(file);
      if (body) return body;
      if ((await lockState(file)) === "stale" && (await breakLock(file))) continue;
      if (Date.now() >= deadline) {
        throw Object.assign(new Error(`fileStore: timed out after ${lockTimeoutMs} ms waiting for ${file}`), { code: "LOCK_TIMEOUT" });
      }
      await sleep(Math.min(20, 1 + attempt) * (0.5 + Math.random()));
    }
  }
  /** "free", "held" or "stale". */
  async function lockState(file) {
    let fh;
    try {
      fh = await open(file, "r");
    } catch (e) {
      if (e.code === "ENOENT") return "free";
      throw e;
    }
    try {
      const { mtimeMs } = await fh.stat();
      let info = null;
      try {
        info = JSON.parse(await fh.readFile("utf8"));
      } catch {} // being written, or left empty by a crash: judged by its age
      const since = typeof info?.time === "number" ? info.time : mtimeMs;
      if (Date.now() - since > staleLockMs) return "stale";
      return info && info.host === HOST && !alive(info.pid) ? "stale" : "held";
    } finally {
      await fh.close();
    }
  }
  /** Removes a stale lock, one breaker at a time; true when the lock is gone. */
  async function breakLock(file) {
    const breaker = `${file}.break`;
    const body = await tryCreate(breaker);
    if (!body) {
      if ((await lockState(breaker)) === "stale") await unlink(breaker).catch(() => {}); // its breaker died
      return false;
    }
    try {
      const state = await lockState(file); // again: another breaker may have been first
      if (state === "stale") {
        await unlink(file).catch((e) => (e.code === "ENOENT" ? undefined : Promise.reject(e)));
        await sweep(file);
      }
      return state !== "held";
    } finally {
      await dropLock(breaker, body);
    }
  }
  /** Removes the temp files (`<lock>.<pid>-<token>`) that dead processes left (rare: crashes). */
  async function sweep(file) {
    const prefix = `${basename(file)}.`;
    for (const name of await readdir(dirname(file)).catch(() => [])) {
      const m = name.startsWith(prefix) && /^(?:break\.)?(\d+)-[0-9a-f-]{36}$/.exec(name.slice(prefix.length));
      if (m && !alive(Number(m[1]))) await unlink(join(dirname(file), name)).catch(() => {});
    }
  }
  async function dropLock(file, body) {
    // Only our own: a lock broken as stale may since be someone else's.
    if ((await readFile(file, "utf8").catch(() => null)) === body) await unlink(file).catch(() => {});
  }
}
