// fileStore: the store contract on plain files, for CLIs and single-process agents; correct with
// several processes on one machine (not on network file systems whose locks and renames lie).
//
// Per conversation, in `dir`, under a name from `conversationFileName(id)`:
//   <name>.jsonl  the session log itself: the header line, then one line per entry, exactly what
//                 `Session.flush()` writes, so `Session.fromJSONL` and people can read it.
//   <name>.idx    append-only, one line per entry: `<byte offset in .jsonl> <id as JSON>\n`.
//                 Appends add to it (O(batch)); it is read only from where this process last
//                 stopped (an in-process cache of ids and offsets), for the duplicate-id check,
//                 for resolving a new live set and for `read(id, k)`.
//   <name>.state  small JSON, replaced whole (temp file, fsync, rename): the commit point. It holds
//                 the version, the committed byte lengths of .jsonl and .idx, the header's end and
//                 the live set resolved to byte offsets (`from` and `[start, end]` per carried
//                 line). `load` reads it, then only the header, the carried lines and the bytes
//                 from `from` to the committed end: O(live context), never the whole file.
//   <name>.lease  `{ holder, expires }`, replaced whole under the lock.
//   <name>.lock   the writers' lock, holding pid, host, time and a token: written to a temp file
//                 and hard-linked in (fails if it exists, like O_EXCL, but never half-written).
// An append, under the lock: reads .state, compares the version, checks ids, truncates any
// uncommitted tail of .jsonl/.idx (a crash after their write, before the rename), writes all its
// lines with one append-mode write and fsyncs, does the same for .idx, then renames the new
// .state in (and fsyncs the directory). Readers never lock: they read only committed bytes, which
// are never rewritten. A crash at any point leaves either the old state or the new one.
// Locks (file-lock.mjs): waited for up to `lockTimeoutMs`; one whose pid is dead (same host) or
// older than `staleLockMs` is broken, so `staleLockMs` must exceed the longest append. Live ids are resolved when the live set is appended (unknown `from`: the whole
// log; unknown carried ids are dropped), as the memory store resolves them.
import { createHash, randomUUID } from "node:crypto";
import { mkdir, open, readFile, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { checkAppend, checkId, checkLease } from "./checks.mjs";
import { fileLocks } from "./file-lock.mjs";

const FORMAT = 1;

/**
 * The base name of a conversation's files (`<name>.jsonl`...): the id's UTF-8 bytes with all but
 * `a-z 0-9 _ -` written `%xx` (so `decodeURIComponent` gives the id back; no dots, no case
 * clashes), or `+<sha256>` for a long or ill-formed id (its `.state` file holds the id).
 * @param {string} conversationId
 */
export function conversationFileName(conversationId) {
  checkId(conversationId);
  let name = "";
  if (!/\p{Surrogate}/u.test(conversationId)) {
    for (const byte of Buffer.from(conversationId, "utf8")) {
      const c = String.fromCharCode(byte);
      name += /[a-z0-9_-]/.test(c) ? c : `%${byte.toString(16).padStart(2, "0")}`;
    }
    // Names Windows reserves, whatever the extension.
    if (/^(con|prn|aux|nul|com\d|lpt\d)$/.test(name)) name = `${name.slice(0, -1)}%${name.charCodeAt(name.length - 1).toString(16)}`;
  }
  if (name === "" || name.length > 200) name = `+${createHash("sha256").update(Buffer.from(conversationId, "utf16le")).digest("hex")}`;
  return name;
}

/** Reads byte ranges `[start, end)` of a file as UTF-8 strings. */
async function readSpans(file, spans) {
  const fh = await open(file, "r");
  try {
    const out = [];
    for (const [start, end] of spans) {
      const buf = Buffer.allocUnsafe(end - start);
      for (let done = 0; done < buf.length; ) {
        const { bytesRead } = await fh.read(buf, done, buf.length - done, start + done);
        if (bytesRead === 0) throw new Error(`fileStore: ${file} is shorter than its index says`);
        done += bytesRead;
      }
      out.push(buf.toString("utf8"));
    }
    return out;
  } finally {
    await fh.close();
  }
}

/** The lines of a text whose every line ends in "\n". */
const splitLines = (text) => (text === "" ? [] : text.slice(0, -1).split("\n"));

/** A file's JSON, or `null` when it does not exist. */
async function readJson(file) {
  try {
    return JSON.parse(await readFile(file, "utf8"));
  } catch (e) {
    if (e.code === "ENOENT") return null;
    throw e;
  }
}

/** Writes `buf` at the end of `file` after cutting it to `committed` bytes (`null`: a new file). */
async function writeTail(file, committed, buf) {
  const fh = await open(file, committed === null ? "w" : "a");
  try {
    if (committed !== null) {
      const { size } = await fh.stat();
      if (size < committed) throw new Error(`fileStore: ${file} is shorter than its index says`);
      if (size > committed) await fh.truncate(committed);
    }
    for (let done = 0; done < buf.length; ) done += (await fh.write(buf, done, buf.length - done)).bytesWritten;
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Replaces a file whole: a temp file, fsync'd, renamed over it. */
async function replaceFile(file, text) {
  const tmp = `${file}.tmp`;
  const fh = await open(tmp, "w");
  try {
    await fh.writeFile(text);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, file);
}

/**
 * A store that keeps each conversation in a JSONL file under `options.dir`.
 * @param {import("./file.js").FileStoreOptions} options
 * @returns {import("./contract.js").ConversationStore}
 */
export function fileStore(options) {
  if (options === null || typeof options !== "object" || typeof options.dir !== "string" || options.dir === "") {
    throw new TypeError("fileStore: options.dir must be a directory path");
  }
  const { dir, lockTimeoutMs = 10_000, staleLockMs = 30_000, now = Date.now } = options;
  for (const [k, v] of Object.entries({ lockTimeoutMs, staleLockMs })) {
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0) throw new TypeError(`fileStore: options.${k} must be a non-negative number`);
  }
  if (typeof now !== "function") throw new TypeError("fileStore: options.now must be a function");

  const locks = fileLocks({ lockTimeoutMs, staleLockMs });
  let made;
  const ensureDir = () => (made ??= mkdir(dir, { recursive: true }).catch((e) => ((made = undefined), Promise.reject(e))));
  const paths = (id) => {
    const base = join(dir, conversationFileName(id));
    return { id, key: base, data: `${base}.jsonl`, idx: `${base}.idx`, state: `${base}.state`, lease: `${base}.lease`, lock: `${base}.lock` };
  };
  async function readState(p) {
    const s = await readJson(p.state);
    if (s && (s.format !== FORMAT || s.id !== p.id)) throw new Error(`fileStore: ${p.state} is not this conversation's (format ${s.format}, id ${JSON.stringify(s.id)})`);
    return s;
  }

  // Ids and offsets per conversation, read from .idx as far as a committed state said; the 64
  // most recently used conversations are kept.
  /** @type {Map<string, { uid: string, idxSize: number, ids: Map<string, number>, offsets: number[] }>} */
  const cache = new Map();
  async function entries(p, s) {
    let c = cache.get(p.key);
    if (!c || c.uid !== s.uid) c = { uid: s.uid, idxSize: 0, ids: new Map(), offsets: [] };
    cache.delete(p.key);
    cache.set(p.key, c);
    if (cache.size > 64) cache.delete(cache.keys().next().value);
    while (c.idxSize < s.idxSize) {
      const start = c.idxSize;
      const [text] = await readSpans(p.idx, [[start, s.idxSize]]);
      if (c.idxSize !== start) continue; // another call of this process read it meanwhile
      for (const line of splitLines(text)) {
        const sp = line.indexOf(" ");
        c.ids.set(JSON.parse(line.slice(sp + 1)), c.offsets.length);
        c.offsets.push(Number(line.slice(0, sp)));
      }
      c.idxSize = s.idxSize;
    }
    return c;
  }

  const withLock = async (p, fn) => (await ensureDir(), locks(p.lock, fn));
  async function syncDir() {
    try {
      const fh = await open(dir, "r");
      try {
        await fh.sync();
      } finally {
        await fh.close();
      }
    } catch {} // not every platform can fsync a directory
  }

  return {
    async load(conversationId) {
      checkId(conversationId);
      const p = paths(conversationId);
      const s = await readState(p);
      if (!s) return null;
      const [header, ...rest] = await readSpans(p.data, [[0, s.headerEnd - 1], ...s.carry, [s.from, s.size]]);
      const tail = rest.pop();
      return { header, lines: [...rest, ...splitLines(tail)], version: s.version };
    },
    async append(conversationId, batch, expectedVersion) {
      checkId(conversationId);
      checkAppend(batch, expectedVersion);
      const p = paths(conversationId);
      return withLock(p, async () => {
        const s = await readState(p);
        const version = s ? s.version : 0;
        if (version !== expectedVersion) return { ok: false, version };
        if (!s && typeof batch.header !== "string") throw new TypeError("append: a new conversation needs batch.header");
        const c = s ? await entries(p, s) : { uid: randomUUID(), idxSize: 0, ids: new Map(), offsets: [] };
        for (const { id } of batch.lines) {
          if (c.ids.has(id)) throw new TypeError(`append: entry id "${id}" is already in the conversation`);
        }
        const headerEnd = s ? s.headerEnd : Buffer.byteLength(batch.header) + 1;
        const offsets = [];
        let size = s ? s.size : headerEnd;
        let text = s ? "" : `${batch.header}\n`;
        let idxText = "";
        for (const { id, line } of batch.lines) {
          offsets.push(size);
          idxText += `${size} ${JSON.stringify(id)}\n`;
          size += Buffer.byteLength(line) + 1;
          text += `${line}\n`;
        }
        const newVersion = version + batch.lines.length;
        let from = s ? s.from : headerEnd;
        let carry = s ? s.carry : [];
        if (batch.live) {
          const batchIds = new Map(batch.lines.map((l, i) => [l.id, version + i]));
          const indexOf = (id) => c.ids.get(id) ?? batchIds.get(id);
          const offsetOf = (k) => (k < version ? c.offsets[k] : k < newVersion ? offsets[k - version] : size);
          const fk = batch.live.from === null ? 0 : (indexOf(batch.live.from) ?? 0);
          from = offsetOf(fk);
          carry = batch.live.carry
            .map(indexOf)
            .filter((k) => k !== undefined && k < fk)
            .sort((a, b) => a - b)
            .map((k) => [offsetOf(k), offsetOf(k + 1) - 1]);
        }
        if (text !== "" || !s) await writeTail(p.data, s ? s.size : null, Buffer.from(text));
        const idxBuf = Buffer.from(idxText);
        if (idxBuf.length > 0 || !s) await writeTail(p.idx, s ? s.idxSize : null, idxBuf);
        const idxSize = (s ? s.idxSize : 0) + idxBuf.length;
        const next = { format: FORMAT, id: conversationId, uid: c.uid, version: newVersion, size, idxSize, headerEnd, from, carry };
        await replaceFile(p.state, JSON.stringify(next));
        await syncDir();
        // Keep the cache in step, unless another call of this process already read past it.
        if (c.idxSize === (s ? s.idxSize : 0)) {
          batch.lines.forEach(({ id }, i) => {
            c.ids.set(id, version + i);
            c.offsets.push(offsets[i]);
          });
          c.idxSize = idxSize;
          if (!s) cache.set(p.key, c);
        }
        return { ok: true, version: newVersion };
      });
    },
    async read(conversationId, fromVersion) {
      checkId(conversationId);
      const p = paths(conversationId);
      const s = await readState(p);
      if (!s) return null;
      const k = Math.max(0, Math.trunc(fromVersion) || 0);
      const start = k === 0 ? s.headerEnd : k >= s.version ? s.size : (await entries(p, s)).offsets[k];
      const [header, tail] = await readSpans(p.data, [[0, s.headerEnd - 1], [start, s.size]]);
      return { header, lines: splitLines(tail), version: s.version };
    },
    async acquireLease(conversationId, holder, ttlMs) {
      checkId(conversationId);
      checkLease(holder, ttlMs);
      const p = paths(conversationId);
      return withLock(p, async () => {
        const t = now();
        const lease = await readJson(p.lease);
        if (lease && lease.holder !== holder && lease.expires > t) return false;
        await replaceFile(p.lease, JSON.stringify({ holder, expires: t + ttlMs }));
        return true;
      });
    },
    async releaseLease(conversationId, holder) {
      checkId(conversationId);
      const p = paths(conversationId);
      await withLock(p, async () => {
        if ((await readJson(p.lease))?.holder === holder) await unlink(p.lease).catch(() => {});
      });
    },
    async leaseHolder(conversationId) {
      checkId(conversationId);
      const lease = await readJson(paths(conversationId).lease);
      return lease && lease.expires > now() ? lease.holder : null;
    },
    async close() {
      cache.clear();
    },
  };
}
