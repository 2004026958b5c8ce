// The store contract's cases (js/stores/contract.d.ts), free of Node's modules so that the same
// cases run in Node (conformance.mjs) and in a browser (the IndexedDB store's page test).
// `assert` is node:assert/strict or anything with its equal, deepEqual, rejects and match.

const header = '{"type":"session","version":1,"id":"s1","format":"ai-sdk"}';
const entry = (n, text = `message ${n}`) => ({
  id: `e${n}`,
  line: JSON.stringify({ type: "message", id: `e${n}`, parentId: n > 1 ? `e${n - 1}` : null, message: { role: "user", content: text } }),
});
const entries = (from, to) => Array.from({ length: to - from + 1 }, (_, i) => entry(from + i));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let unique = 0;
const conv = (name) => `${name}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}-${unique++}`;

/**
 * The cases: `[title, async (store) => void]`.
 * @param {typeof import("node:assert/strict")} assert
 */
export function contractCases(assert) {
  const cases = [];
  const it = (title, fn) => cases.push([title, fn]);

  it("knows no conversation before its first append", async (store) => {
    const id = conv("absent");
    assert.equal(await store.load(id), null);
    assert.equal(await store.read(id, 0), null);
    assert.equal(await store.leaseHolder(id), null);
  });

  it("creates a conversation at version 0 with its header, then appends whole batches", async (store) => {
    const id = conv("create");
    assert.deepEqual(await store.append(id, { header, lines: entries(1, 3) }, 0), { ok: true, version: 3 });
    assert.deepEqual(await store.append(id, { lines: entries(4, 5) }, 3), { ok: true, version: 5 });
    const loaded = await store.load(id);
    assert.equal(loaded.header, header);
    assert.equal(loaded.version, 5);
    assert.deepEqual(loaded.lines, entries(1, 5).map((e) => e.line));
    const all = await store.read(id, 0);
    assert.deepEqual(all, loaded);
    assert.deepEqual((await store.read(id, 3)).lines, entries(4, 5).map((e) => e.line));
    assert.deepEqual((await store.read(id, 5)).lines, []);
  });

  it("an empty batch creates the conversation with its header alone", async (store) => {
    const id = conv("empty");
    assert.deepEqual(await store.append(id, { header, lines: [] }, 0), { ok: true, version: 0 });
    assert.deepEqual(await store.load(id), { header, lines: [], version: 0 });
    assert.deepEqual(await store.append(id, { header, lines: entries(1, 1) }, 0), { ok: true, version: 1 });
    assert.equal((await store.load(id)).header, header);
  });

  it("refuses a stale version, writes nothing and reports the current version", async (store) => {
    const id = conv("stale");
    await store.append(id, { header, lines: entries(1, 2) }, 0);
    assert.deepEqual(await store.append(id, { lines: entries(3, 3) }, 1), { ok: false, version: 2 });
    assert.deepEqual(await store.append(id, { lines: entries(3, 3) }, 5), { ok: false, version: 2 });
    assert.deepEqual(await store.append(id, { header, lines: entries(3, 3) }, 0), { ok: false, version: 2 });
    assert.deepEqual((await store.load(id)).lines, entries(1, 2).map((e) => e.line));
  });

  it("a new conversation needs its header", async (store) => {
    const id = conv("noheader");
    await assert.rejects(store.append(id, { lines: entries(1, 1) }, 0));
    assert.equal(await store.load(id), null);
  });

  it("of concurrent appends at one version exactly one commits", async (store) => {
    const id = conv("race");
    await store.append(id, { header, lines: entries(1, 1) }, 0);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, k) => store.append(id, { lines: [entry(100 + k), entry(200 + k)] }, 1)),
    );
    const winners = results.filter((r) => r.ok);
    assert.equal(winners.length, 1);
    for (const r of results) if (!r.ok) assert.equal(r.version, 3);
    const loaded = await store.load(id);
    assert.equal(loaded.version, 3);
    assert.equal(loaded.lines.length, 3);
  });

  it("refuses an entry id already in the conversation, writing nothing", async (store) => {
    const id = conv("dup");
    await store.append(id, { header, lines: entries(1, 2) }, 0);
    await assert.rejects(store.append(id, { lines: [entry(3), entry(2)] }, 2));
    assert.equal((await store.load(id)).version, 2);
    await assert.rejects(store.append(id, { lines: [entry(3), entry(3)] }, 2));
    assert.deepEqual(await store.append(id, { lines: [entry(3)] }, 2), { ok: true, version: 3 });
  });

  it("loads the live set: carried entries, then every line from `from` on", async (store) => {
    const id = conv("live");
    await store.append(id, { header, lines: entries(1, 50) }, 0);
    const live = { from: "e40", carry: ["e7", "e2", "e45"] };
    await store.append(id, { lines: entries(51, 52), live }, 50);
    const expected = [entry(2), entry(7), ...entries(40, 52)].map((e) => e.line);
    assert.deepEqual(await store.load(id), { header, lines: expected, version: 52 });
    // A later batch without `live` keeps it; its lines are part of the live range.
    await store.append(id, { lines: entries(53, 54) }, 52);
    assert.deepEqual((await store.load(id)).lines, [...expected, entry(53).line, entry(54).line]);
    // The whole log stays readable.
    assert.equal((await store.read(id, 0)).lines.length, 54);
    // A new live set replaces the old one.
    await store.append(id, { lines: entries(55, 55), live: { from: null, carry: [] } }, 54);
    assert.equal((await store.load(id)).lines.length, 55);
    await store.append(id, { lines: entries(56, 56), live: { from: "e56", carry: [] } }, 55);
    assert.deepEqual((await store.load(id)).lines, [entry(56).line]);
  });

  it("the live set may start at a line of the same batch", async (store) => {
    const id = conv("livebatch");
    await store.append(id, { header, lines: entries(1, 10), live: { from: "e9", carry: ["e1"] } }, 0);
    assert.deepEqual((await store.load(id)).lines, [entry(1), entry(9), entry(10)].map((e) => e.line));
  });

  it("keeps lines exactly: unicode, escapes and a large line", async (store) => {
    const id = conv("bytes");
    const texts = ["héllo 世界 🚀", 'quote " backslash \\ tab \t', "\\ud83d lone escape text", "x".repeat(1_000_000)];
    const lines = texts.map((t, i) => entry(i + 1, t));
    await store.append(id, { header, lines }, 0);
    assert.deepEqual((await store.load(id)).lines, lines.map((e) => e.line));
  });

  it("keeps conversations apart", async (store) => {
    const a = conv("a");
    const b = conv("b");
    await store.append(a, { header, lines: entries(1, 2) }, 0);
    await store.append(b, { header: header.replace("s1", "s2"), lines: entries(1, 1) }, 0);
    assert.equal((await store.load(a)).version, 2);
    assert.equal((await store.load(b)).version, 1);
    assert.match((await store.load(b)).header, /s2/);
  });

  it("gives the lease to one holder at a time, renews it, and lets it expire", async (store) => {
    const id = conv("lease");
    assert.equal(await store.acquireLease(id, "w1", 60_000), true);
    assert.equal(await store.acquireLease(id, "w2", 60_000), false);
    assert.equal(await store.leaseHolder(id), "w1");
    assert.equal(await store.acquireLease(id, "w1", 60_000), true);
    await store.releaseLease(id, "w2");
    assert.equal(await store.leaseHolder(id), "w1");
    await store.releaseLease(id, "w1");
    assert.equal(await store.leaseHolder(id), null);
    assert.equal(await store.acquireLease(id, "w2", 150), true);
    assert.equal(await store.acquireLease(id, "w1", 60_000), false);
    await sleep(400);
    assert.equal(await store.leaseHolder(id), null);
    assert.equal(await store.acquireLease(id, "w1", 60_000), true);
    assert.equal(await store.leaseHolder(id), "w1");
  });

  it("of concurrent lease requests exactly one wins", async (store) => {
    const id = conv("leaserace");
    const got = await Promise.all(Array.from({ length: 8 }, (_, k) => store.acquireLease(id, `w${k}`, 60_000)));
    assert.equal(got.filter(Boolean).length, 1);
  });

  it("rejects bad arguments before writing", async (store) => {
    const id = conv("args");
    await assert.rejects(store.append(id, { header, lines: [{ id: "e1", line: "a\nb" }] }, 0));
    await assert.rejects(store.append(id, { header, lines: "nope" }, 0));
    await assert.rejects(store.append(id, { header, lines: [] }, -1));
    await assert.rejects(store.load(""));
    await assert.rejects(store.acquireLease(id, "", 1000));
    await assert.rejects(store.acquireLease(id, "w", 0));
    assert.equal(await store.load(id), null);
  });
  return cases;
}
