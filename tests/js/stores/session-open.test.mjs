// Session.open over a store: conversations loaded from their live lines, commits with
// compare-and-set, merges of what other sessions stored, and the compaction lease. Two sessions in
// one process stand for two processes here (they share nothing but the store); the real
// multi-process cases are in tests/js/stores/processes.test.mjs.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Session, memoryStore, CompactionError } from "../../../js/node.mjs";
import { sqliteStore } from "../../../js/stores/sqlite.mjs";

const user = (text) => ({ role: "user", content: text });
const assistant = (text) => ({ role: "assistant", content: text });
const long = (n) => `${"word ".repeat(400)} #${n}`;
const options = (summarize, extra = {}) => ({
  contextWindow: 8_000,
  reserveTokens: 1_000,
  keepRecentTokens: 1_500,
  format: "ai-sdk",
  summarize,
  ...extra,
});
const quick = async (req) => `summary of ${req.messages.length} messages`;
const texts = (messages) => messages.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
const deferred = () => {
  let resolve;
  const promise = new Promise((r) => (resolve = r));
  return { promise, resolve };
};

for (const [name, open] of [
  ["memory", () => memoryStore()],
  ["sqlite", () => sqliteStore()],
]) {
  describe(`Session.open on the ${name} store`, () => {
    it("a conversation committed by one session opens in another as it was", async () => {
      const store = open();
      const a = await Session.open(store, "c1", options(quick));
      a.append([user("hello"), assistant("hi")]);
      const r = await a.commit();
      assert.equal(r.appended, 2);
      assert.equal(a.storeVersion, 2);
      const b = await Session.open(store, "c1", options(quick));
      assert.deepEqual(b.render().messages, a.render().messages);
      assert.equal(b.id, "c1");
      // Nothing new: a commit writes nothing.
      assert.equal((await b.commit()).appended, 0);
    });

    it("interleaved writers store every message once, in commit order", async () => {
      const store = open();
      const a = await Session.open(store, "c2", options(quick));
      a.append(user("a1"));
      await a.commit();
      const b = await Session.open(store, "c2", options(quick));
      for (let i = 0; i < 5; i++) {
        a.append(user(`a-${i}`));
        b.append(user(`b-${i}`));
        await (i % 2 ? a : b).commit();
        await (i % 2 ? b : a).commit();
      }
      await a.commit();
      await b.sync();
      const fresh = await Session.open(store, "c2", options(quick));
      const stored = texts(fresh.render().messages);
      assert.equal(stored.length, 11);
      assert.equal(new Set(stored).size, 11);
      assert.deepEqual(texts(a.render().messages), stored);
      assert.deepEqual(texts(b.render().messages), stored);
    });

    it("messages another session commits while a summary is written stay after it", async () => {
      const store = open();
      const gate = deferred();
      const started = deferred();
      const slow = async (req) => {
        started.resolve();
        await gate.promise;
        return `summary of ${req.messages.length} messages`;
      };
      const a = await Session.open(store, "c3", options(slow));
      for (let i = 0; i < 12; i++) a.append([user(long(i)), assistant(`answer ${i}`)]);
      await a.commit();
      const b = await Session.open(store, "c3", options(quick));
      const compaction = a.compact();
      await started.promise;
      assert.equal(await b.compactionHolder(), await a.compactionHolder());
      assert.notEqual(await b.compactionHolder(), null);
      b.append(user("while summarizing"));
      await b.commit();
      gate.resolve();
      const result = await compaction;
      assert.equal(result.compacted, true);
      assert.equal(await b.compactionHolder(), null);
      const fresh = await Session.open(store, "c3", options(quick));
      const live = texts(fresh.render().messages);
      assert.match(live[0], /summary of/);
      assert.equal(live.at(-1), "while summarizing");
      assert.deepEqual(texts(a.render().messages), live);
      await b.sync();
      assert.deepEqual(texts(b.render().messages), live);
      // The load read the live lines, not the summarized past; the whole log is still there.
      const loaded = await store.load("c3");
      const all = await store.read("c3", 0);
      assert.ok(loaded.lines.length < all.lines.length - 10, `${loaded.lines.length} of ${all.lines.length}`);
      assert.equal(all.lines.filter((l) => l.includes('"type":"compaction"')).length, 1);
    });

    it("a second session waits for the lease, and does not summarize again what was just summarized", async () => {
      const store = open();
      let calls = 0;
      const counting = async (req) => {
        calls++;
        await new Promise((r) => setTimeout(r, 50));
        return `summary of ${req.messages.length} messages`;
      };
      const a = await Session.open(store, "c4", options(counting));
      for (let i = 0; i < 24; i++) a.append([user(long(i)), assistant(`answer ${i}`)]);
      await a.commit();
      const b = await Session.open(store, "c4", options(counting));
      assert.equal(a.check().shouldCompact, true);
      const [ra, rb] = await Promise.all([a.prepare(), b.prepare()]);
      assert.equal(calls, 1);
      assert.deepEqual(texts(ra.messages), texts(rb.messages));
      const all = await store.read("c4", 0);
      assert.equal(all.lines.filter((l) => l.includes('"type":"compaction"')).length, 1);
    });

    it("a compaction whose lease expired and lost the race rejects with CONFLICT and writes nothing", async () => {
      let clock = 1_000_000;
      const store = name === "memory" ? memoryStore({ now: () => clock }) : sqliteStore({ now: () => clock });
      const gate = deferred();
      const started = deferred();
      const slow = async (req) => {
        started.resolve();
        await gate.promise;
        return `late summary of ${req.messages.length}`;
      };
      const a = await Session.open(store, "c5", options(slow, { leaseMs: 60_000 }));
      for (let i = 0; i < 12; i++) a.append([user(long(i)), assistant(`answer ${i}`)]);
      await a.commit();
      const b = await Session.open(store, "c5", options(quick));
      const late = a.compact();
      await started.promise;
      clock += 120_000; // a's lease has expired (as if its process had stalled)
      const rb = await b.compact();
      assert.equal(rb.compacted, true);
      gate.resolve();
      await assert.rejects(late, (e) => e instanceof CompactionError && (e.code === "CONFLICT" || e.code === "ABORTED"));
      const all = await store.read("c5", 0);
      assert.equal(all.lines.filter((l) => l.includes('"type":"compaction"')).length, 1);
      assert.ok(!all.lines.some((l) => l.includes("late summary")));
      assert.deepEqual(texts(a.render().messages), texts((await Session.open(store, "c5", options(quick))).render().messages));
    });

    it("a store failure is STORE_FAILED and the next commit neither loses nor repeats a line", async () => {
      const inner = open();
      let fail = null;
      const store = {
        ...inner,
        load: (...a) => inner.load(...a),
        read: (...a) => inner.read(...a),
        acquireLease: (...a) => inner.acquireLease(...a),
        releaseLease: (...a) => inner.releaseLease(...a),
        leaseHolder: (...a) => inner.leaseHolder(...a),
        async append(...args) {
          if (fail === "before") throw new Error("connection reset");
          const r = await inner.append(...args);
          if (fail === "after") throw new Error("connection reset after the write");
          return r;
        },
      };
      const s = await Session.open(store, "c6", options(quick));
      s.append(user("one"));
      await s.commit();
      for (const when of ["before", "after"]) {
        s.append(user(`lost answer ${when}`));
        fail = when;
        await assert.rejects(s.commit(), (e) => e instanceof CompactionError && e.code === "STORE_FAILED");
        fail = null;
        s.append(user(`next ${when}`));
        await s.commit();
      }
      const fresh = await Session.open(store, "c6", options(quick));
      assert.deepEqual(texts(fresh.render().messages), ["one", "lost answer before", "next before", "lost answer after", "next after"]);
    });

    it("rejects a store without the contract's methods and a bad conversation id", async () => {
      await assert.rejects(Session.open({}, "x", options(quick)), (e) => e.code === "INVALID_OPTIONS" && e.path === "store.load");
      await assert.rejects(Session.open(open(), "", options(quick)), (e) => e.code === "INVALID_INPUT");
      await assert.rejects(Session.open(open(), "x", { ...options(quick), leaseMs: -1 }), (e) => e.code === "INVALID_OPTIONS" && e.path === "leaseMs");
      await assert.rejects(Session.open(open(), "x", { ...options(quick), nope: 1 }), (e) => e.code === "INVALID_OPTIONS");
    });
  });
}

describe("a stored conversation's whole log", () => {
  it("branches before the latest compaction, as docs/stores.md shows", async () => {
    const store = memoryStore();
    const s = await Session.open(store, "b1", options(quick));
    for (let i = 0; i < 12; i++) s.append([user(long(i)), assistant(`answer ${i}`)]);
    await s.commit();
    await s.compact();
    const reopened = await Session.open(store, "b1", options(quick));
    const first = reopened.entries()[0].id;
    const log = await store.read("b1", 0);
    const whole = Session.fromJSONL([log.header, ...log.lines].join("\n"), options(quick));
    const firstOfAll = whole.entries()[0].id;
    assert.notEqual(first, firstOfAll, "the opened session starts at the kept tail");
    const branched = whole.branch(whole.entries()[3].id);
    assert.deepEqual(texts(branched.render().messages), [long(0), "answer 0", long(1), "answer 1"]);
    assert.throws(() => reopened.branch(firstOfAll), (e) => e.code === "INVALID_INPUT");
  });
});
