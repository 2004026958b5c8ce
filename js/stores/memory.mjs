// memoryStore: the store contract in one process's memory. The reference for the other stores
// (tests/js/stores/conformance.mjs runs every store against the same cases), and a store for
// tests and single-process apps that persist elsewhere.
import { checkAppend, checkId, checkLease } from "./checks.mjs";

/**
 * A store that keeps every conversation in this process's memory.
 * @param {{ now?: () => number }} [options] `now`: the clock leases expire by (tests).
 */
export function memoryStore(options = {}) {
  const now = options.now ?? Date.now;
  /** @type {Map<string, { header: string, entries: { id: string, line: string }[], index: Map<string, number>, live: { from: string | null, carry: string[] } }>} */
  const conversations = new Map();
  /** @type {Map<string, { holder: string, expires: number }>} */
  const leases = new Map();
  return {
    async load(conversationId) {
      checkId(conversationId);
      const c = conversations.get(conversationId);
      if (!c) return null;
      const from = c.live.from === null ? 0 : (c.index.get(c.live.from) ?? 0);
      const carry = c.live.carry
        .map((id) => c.index.get(id))
        .filter((i) => i !== undefined && i < from)
        .sort((a, b) => a - b);
      const lines = carry.map((i) => c.entries[i].line);
      for (let i = from; i < c.entries.length; i++) lines.push(c.entries[i].line);
      return { header: c.header, lines, version: c.entries.length };
    },
    async append(conversationId, batch, expectedVersion) {
      checkId(conversationId);
      checkAppend(batch, expectedVersion);
      let c = conversations.get(conversationId);
      const version = c ? c.entries.length : 0;
      if (version !== expectedVersion) return { ok: false, version };
      for (const { id } of batch.lines) {
        if (c?.index.has(id)) throw new TypeError(`append: entry id "${id}" is already in the conversation`);
      }
      if (!c) {
        if (typeof batch.header !== "string") throw new TypeError("append: a new conversation needs batch.header");
        c = { header: batch.header, entries: [], index: new Map(), live: { from: null, carry: [] } };
        conversations.set(conversationId, c);
      }
      for (const { id, line } of batch.lines) {
        c.index.set(id, c.entries.length);
        c.entries.push({ id, line });
      }
      if (batch.live) c.live = { from: batch.live.from, carry: [...batch.live.carry] };
      return { ok: true, version: c.entries.length };
    },
    async read(conversationId, fromVersion) {
      checkId(conversationId);
      const c = conversations.get(conversationId);
      if (!c) return null;
      const lines = c.entries.slice(Math.max(0, fromVersion)).map((e) => e.line);
      return { header: c.header, lines, version: c.entries.length };
    },
    async acquireLease(conversationId, holder, ttlMs) {
      checkId(conversationId);
      checkLease(holder, ttlMs);
      const t = now();
      const lease = leases.get(conversationId);
      if (lease && lease.holder !== holder && lease.expires > t) return false;
      leases.set(conversationId, { holder, expires: t + ttlMs });
      return true;
    },
    async releaseLease(conversationId, holder) {
      checkId(conversationId);
      if (leases.get(conversationId)?.holder === holder) leases.delete(conversationId);
    },
    async leaseHolder(conversationId) {
      checkId(conversationId);
      const lease = leases.get(conversationId);
      return lease && lease.expires > now() ? lease.holder : null;
    },
    async close() {},
  };
}
