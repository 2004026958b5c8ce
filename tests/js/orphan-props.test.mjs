// Property: no compaction hands the model a tool result without its call. Adversarial histories
// (seeded, so a failure names its seed): results whose call falls in the compacted part, results
// in a later turn, duplicate call ids, results answered twice, results of no call, results before
// their call; compacted by Compactor.compact and by Session.compact, in batches with compactions
// between, after branching, and after a store merge of two writers. No output of a compaction that
// ran may hold an orphan result (validateMessages; one that compacted nothing gives the input back
// as it was, flaws included, from both), and on one history Session.compact and Compactor.compact
// leave the same flaws (a result before its call in the kept part stays in both).
import assert from "node:assert/strict";
import { test } from "node:test";
import { Compactor, Session, memoryStore, validateMessages } from "../../js/node.mjs";

const CASES = Number(process.env.CASES ?? 120);

function random(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

const words = (n, k) => Array.from({ length: n }, (_, i) => `w${(k * 13 + i) % 101}`).join(" ");
const user = (k) => ({ role: "user", content: `question ${k} ${words(60, k)}` });
const text = (k) => ({ role: "assistant", content: `answer ${k} ${words(60, k)}` });
const calls = (ids, k) => ({
  role: "assistant",
  content: [{ type: "text", text: `calling ${k}` }, ...ids.map((id) => ({ type: "tool-call", toolCallId: id, toolName: "read", input: { path: `/f/${id}` } }))],
});
const results = (ids, k) => ({
  role: "tool",
  content: ids.map((id) => ({ type: "tool-result", toolCallId: id, toolName: "read", output: { type: "text", value: `out ${id} ${k} ${words(40, k)}` } })),
});

/** An adversarial ai-sdk history. */
function history(rand) {
  const out = [];
  const pendingLater = [];
  let next = 0;
  const turns = 6 + Math.floor(rand() * 30);
  for (let t = 0; t < turns; t++) {
    out.push(user(t));
    const n = Math.floor(rand() * 4);
    if (n === 0) {
      out.push(text(t));
      continue;
    }
    const ids = Array.from({ length: n }, () => (rand() < 0.1 && next > 0 ? `c${Math.floor(rand() * next)}` : `c${next++}`));
    const shape = rand();
    if (shape < 0.1) out.push(results([ids[0]], t)); // a result before its call
    out.push(calls(ids, t));
    if (shape < 0.55) out.push(results(ids, t));
    else if (shape < 0.7) pendingLater.push(ids); // answered in a later turn
    else if (shape < 0.8) out.push(results(ids, t), results(ids.slice(0, 1), t)); // answered twice
    else if (shape < 0.9) out.push(results([...ids].reverse(), t)); // shuffled
    else out.push(results(ids.slice(1), t)); // one left unanswered
    if (rand() < 0.3 && pendingLater.length) out.push(results(pendingLater.shift(), t));
    if (rand() < 0.08) out.push(results([`nowhere${t}`], t)); // a result of no call
    out.push(text(t));
  }
  return out;
}

const options = { contextWindow: 6_000, keepRecentTokens: 1_200, reserveTokens: 500, format: "ai-sdk", retries: 0, summarize: async (r) => `Summary of round ${r.round}.` };
const bad = (messages) => validateMessages(messages).filter((v) => v.kind === "orphan-result").map((v) => v.kind);
const flaws = (messages) => validateMessages(messages).filter((v) => v.kind === "orphan-result" || v.kind === "result-before-call").map((v) => v.kind);

/** Compacts `s` (forced); whether it compacted. */
async function compactSession(s) {
  try {
    return (await s.compact({ force: true })).compacted;
  } catch (error) {
    if (error?.code !== "CANNOT_COMPACT" && error?.code !== "NO_PROGRESS") throw error;
    return false;
  }
}
/** The flaws of `messages` after a compaction that ran (none otherwise: the input came back). */
const flawsAfter = (compacted, messages) => (compacted ? bad(messages) : []);

test(`no orphan tool result after any compaction (${CASES} adversarial histories)`, async () => {
  for (let seed = 1; seed <= CASES; seed++) {
    const rand = random(seed * 2654435761);
    const h = history(rand);
    const c = new Compactor(options);
    let fromCompactor = [];
    let compactorFlaws = null;
    try {
      const r = await c.compact(h, { force: true });
      if (r.compacted) fromCompactor = r.messages;
      compactorFlaws = flaws(r.messages);
    } catch (error) {
      if (error?.code !== "CANNOT_COMPACT" && error?.code !== "NO_PROGRESS") throw error;
    }
    c.free();
    assert.deepEqual(bad(fromCompactor), [], `seed ${seed}: Compactor.compact`);

    // Session: all at once, then in batches with a compaction after each.
    const s = new Session(options);
    s.append(h);
    assert.deepEqual(flawsAfter(await compactSession(s), s.render().messages), [], `seed ${seed}: Session.compact`);
    if (compactorFlaws) assert.deepEqual(flaws(s.render().messages), compactorFlaws, `seed ${seed}: Session.compact and Compactor.compact differ`);
    const t = new Session(options);
    const cut = 1 + Math.floor(rand() * (h.length - 1));
    for (const part of [h.slice(0, cut), h.slice(cut)]) {
      t.append(part);
      // Flaws of a batch that compacted nothing stay until a compaction covers them.
      if (await compactSession(t)) assert.deepEqual(bad(t.render().messages), [], `seed ${seed}: Session.compact in batches (cut at ${cut})`);
    }
    // A branch from an entry in the middle, continued with the rest, then compacted.
    const entries = s.entries().filter((e) => e.type === "message");
    const from = entries[Math.floor(rand() * entries.length)];
    const b = s.branch(from.id);
    b.append(h.slice(Math.floor(h.length / 2)));
    assert.deepEqual(flawsAfter(await compactSession(b), b.render().messages), [], `seed ${seed}: after branching`);
    for (const x of [s, t, b]) x.free();

    // Two writers of one stored conversation, their lines merged.
    if (seed % 4 === 0) {
      const store = memoryStore();
      const w1 = await Session.open(store, "c", options);
      const w2 = await Session.open(store, "c", options);
      const half = Math.floor(h.length / 2);
      w1.append(h.slice(0, half));
      await w1.commit();
      w2.append(h.slice(half));
      await w2.commit();
      await w1.sync();
      const compacted = await compactSession(w1);
      await w2.sync();
      assert.deepEqual(flawsAfter(compacted, w1.render().messages), [], `seed ${seed}: after a store merge`);
      assert.deepEqual(flawsAfter(compacted, w2.render().messages), [], `seed ${seed}: the other writer after the merge`);
      w1.free();
      w2.free();
    }
  }
});
