// indexedDBStore: the store contract (contract.d.ts) in the browser's IndexedDB, through `idb` (an
// optional peer dependency; a bundler or an import map resolves the bare "idb").
//
// Three object stores:
//   conversations  key: conversation id;       { header, version, liveFrom: seq | null, liveCarry: seq[] }
//   entries        key: [conversationId, seq]; { conversationId, seq, entryId, line },
//                  index "entryId" on [conversationId, entryId], unique
//   leases         key: conversation id;       { holder, expires }
// A line's seq is its 0-based position in the log, so `version` is the next seq. Every operation is
// one IndexedDB transaction (atomic, and serialized against every other tab's overlapping
// readwrite transactions): an append reads the version and writes the lines in the same
// transaction, so a tab closed mid-append leaves the whole batch or none of it. Nothing inside a
// transaction awaits anything but the transaction's own requests, which would let it auto-commit.
import { wrap } from "idb";
import { checkAppend, checkId, checkLease } from "./checks.mjs";

const SCHEMA = 1;

/**
 * A store that keeps conversations in an IndexedDB database, shared by every tab of the origin.
 * @param {{ name?: string, indexedDB?: IDBFactory, now?: () => number }} [options]
 *   `name`: the database ("context-compaction"); `indexedDB`: the factory (globalThis.indexedDB);
 *   `now`: the clock leases expire by (Date.now).
 */
export function indexedDBStore(options = {}) {
  const name = options.name ?? "context-compaction";
  const now = options.now ?? Date.now;
  /** @type {Promise<any> | undefined} */
  let opening;

  /** The connection, opened on first use (and again after `close` or a version change). */
  function db() {
    if (!opening) {
      const attempt = open(options.indexedDB ?? globalThis.indexedDB, name, () => {
        if (opening === attempt) opening = undefined;
      });
      opening = attempt;
      attempt.catch(() => {
        if (opening === attempt) opening = undefined;
      });
    }
    return opening;
  }

  return {
    async load(conversationId) {
      checkId(conversationId);
      const tx = begin(await db(), ["conversations", "entries"], "readonly");
      const c = await tx.objectStore("conversations").get(conversationId);
      if (!c) return null;
      const entries = tx.objectStore("entries");
      const from = c.liveFrom ?? 0;
      const carried = c.liveCarry.filter((seq) => seq < from).map((seq) => entries.get([conversationId, seq]));
      const [range, ...carry] = await Promise.all([entries.getAll(fromSeq(conversationId, from)), ...carried]);
      const lines = carry.filter(Boolean).map((e) => e.line);
      for (const e of range) lines.push(e.line);
      return { header: c.header, lines, version: c.version };
    },

    async append(conversationId, batch, expectedVersion) {
      checkId(conversationId);
      checkAppend(batch, expectedVersion);
      const tx = begin(await db(), ["conversations", "entries"], "readwrite");
      const conversations = tx.objectStore("conversations");
      const entries = tx.objectStore("entries");
      const c = await conversations.get(conversationId);
      const version = c ? c.version : 0;
      if (version !== expectedVersion) return { ok: false, version };
      if (!c && typeof batch.header !== "string") throw new TypeError("append: a new conversation needs batch.header");

      // Seqs of this batch's ids, then one lookup per id that must not exist (the batch's) or
      // that the live set names outside the batch; all in flight at once, in this transaction.
      /** @type {Map<string, number>} */
      const seqs = new Map(batch.lines.map((l, i) => [l.id, version + i]));
      const byEntryId = entries.index("entryId");
      const fresh = c ? batch.lines.map((l) => l.id) : [];
      const named = batch.live ? [batch.live.from, ...batch.live.carry].filter((id) => id !== null && !seqs.has(id)) : [];
      const wanted = c ? [...new Set(named)] : [];
      const keys = await Promise.all([...fresh, ...wanted].map((id) => byEntryId.getKey([conversationId, id])));
      const taken = fresh.findIndex((_, i) => keys[i] !== undefined);
      if (taken >= 0) throw new TypeError(`append: entry id "${fresh[taken]}" is already in the conversation`);
      wanted.forEach((id, i) => {
        const key = keys[fresh.length + i];
        if (key !== undefined) seqs.set(id, key[1]);
      });

      let liveFrom = c ? c.liveFrom : null;
      let liveCarry = c ? c.liveCarry : [];
      if (batch.live) {
        // An unknown `from` means the whole log; unknown carried ids are dropped.
        liveFrom = batch.live.from === null ? null : (seqs.get(batch.live.from) ?? null);
        const start = liveFrom ?? 0;
        const carry = batch.live.carry.map((id) => seqs.get(id)).filter((seq) => seq !== undefined && seq < start);
        liveCarry = [...new Set(carry)].sort((a, b) => a - b);
      }
      const header = c ? c.header : batch.header;
      const next = version + batch.lines.length;
      // `add` (not `put`): a key or entry id that is somehow taken fails its request, which aborts
      // the transaction, so nothing of the batch is written and the append rejects.
      const writes = batch.lines.map((l, i) =>
        entries.add({ conversationId, seq: version + i, entryId: l.id, line: l.line }),
      );
      writes.push(conversations.put({ header, version: next, liveFrom, liveCarry }, conversationId));
      await Promise.all([...writes, tx.done]);
      return { ok: true, version: next };
    },

    async read(conversationId, fromVersion) {
      checkId(conversationId);
      const tx = begin(await db(), ["conversations", "entries"], "readonly");
      const c = await tx.objectStore("conversations").get(conversationId);
      if (!c) return null;
      const start = Math.max(0, Math.trunc(Number(fromVersion)) || 0);
      const range = start < c.version ? await tx.objectStore("entries").getAll(fromSeq(conversationId, start)) : [];
      return { header: c.header, lines: range.map((e) => e.line), version: c.version };
    },

    async acquireLease(conversationId, holder, ttlMs) {
      checkId(conversationId);
      checkLease(holder, ttlMs);
      const tx = begin(await db(), "leases", "readwrite");
      const lease = await tx.store.get(conversationId);
      const t = now();
      if (lease && lease.holder !== holder && lease.expires > t) return false;
      await Promise.all([tx.store.put({ holder, expires: t + ttlMs }, conversationId), tx.done]);
      return true;
    },

    async releaseLease(conversationId, holder) {
      checkId(conversationId);
      const tx = begin(await db(), "leases", "readwrite");
      const lease = await tx.store.get(conversationId);
      if (lease?.holder === holder) await Promise.all([tx.store.delete(conversationId), tx.done]);
    },

    async leaseHolder(conversationId) {
      checkId(conversationId);
      const lease = await (await db()).get("leases", conversationId);
      return lease && lease.expires > now() ? lease.holder : null;
    },

    async close() {
      const pending = opening;
      opening = undefined;
      if (pending) (await pending.catch(() => null))?.close();
    },
  };
}

/**
 * A transaction whose failure is reported by the requests awaited in it (or by `done` where that
 * is awaited), never as an unhandled rejection of its `done`.
 */
function begin(db, stores, mode) {
  const tx = db.transaction(stores, mode);
  tx.done.catch(() => {});
  return tx;
}

/** The key range of a conversation's entries from `seq` on. */
function fromSeq(conversationId, seq) {
  return IDBKeyRange.bound([conversationId, seq], [conversationId, Infinity]);
}

/**
 * Opens (creating or upgrading) the database through `factory`: what idb's openDB does with the
 * global factory, for any factory of this realm. `lost` runs when the connection is gone.
 */
function open(factory, name, lost) {
  if (!factory) return Promise.reject(new TypeError("indexedDBStore: no IndexedDB here (pass options.indexedDB)"));
  const request = factory.open(name, SCHEMA);
  request.addEventListener("upgradeneeded", (event) => {
    const db = request.result;
    if (event.oldVersion < 1) {
      db.createObjectStore("conversations");
      const entries = db.createObjectStore("entries", { keyPath: ["conversationId", "seq"] });
      entries.createIndex("entryId", ["conversationId", "entryId"], { unique: true });
      db.createObjectStore("leases");
    }
  });
  return wrap(request).then((db) => {
    db.addEventListener("close", lost);
    // Another tab wants a newer schema: step aside; the next call reopens at that version.
    db.addEventListener("versionchange", () => {
      db.close();
      lost();
    });
    return db;
  });
}
