// The log records what Codex keeps (issue 22): the recent user messages Codex keeps from the
// summarized part are not contiguous with the kept tail, so the compaction entry lists them in
// `keptEntryIds`, and the live context of the session — rendered, reloaded with `fromJSONL`, or
// opened from a store — is exactly what `Compactor.compact` returns for the same history, on the
// real sessions of the repository. The loader refuses a `keptEntryIds` naming no entry, with its
// line, and reads logs that listed those messages as pinned (before 0.3.0) as before.
import { test } from "node:test";
import assert from "node:assert/strict";
import { CompactionError, Compactor, Session, importSession, memoryStore } from "context-compaction";
import { fixtureText } from "./fixtures.mjs";

const SESSIONS = [
  ["pi/large-session.jsonl", "pi"],
  ["claude-code/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl", "claude-code"],
];

const summarize = (r) => `Summary of ${r.messages.length} messages: the user worked on the project.`;
/** The compaction lines of a log. */
const compactions = (jsonl) => jsonl.split("\n").filter(Boolean).map((l) => JSON.parse(l)).filter((e) => e.type === "compaction");
/** What the model is sent (Anthropic cache markers are the Session's own addition: left off). */
const live = (s) => s.render({ cacheControl: false }).messages;

for (const [file, kind] of SESSIONS) {
  test(`${file}: codex keeps recent user messages from the summarized part; the Session renders what the Compactor returns, also reloaded and from a store`, async () => {
    const imported = importSession(fixtureText(file), kind);
    const history = imported.history.slice(0, 240);
    const options = { preset: "codex", contextWindow: 40_000, summarize, retries: 0, format: imported.format };
    const expected = await new Compactor(options).compact(history);
    assert.ok(expected.tokensAfter < expected.tokensBefore / 2, `${expected.tokensBefore} → ${expected.tokensAfter}`);

    const s = new Session(options);
    s.append(history);
    const result = await s.compact();
    assert.deepEqual(live(s), expected.messages);
    assert.equal(s.check().tokens, result.tokensAfter);
    const [entry] = compactions(s.toJSONL());
    assert.ok(entry.keptEntryIds?.length > 0, "the kept user messages are recorded");
    assert.equal(entry.pinnedEntryIds, undefined, "nothing is pinned");
    const ids = new Map(s.entries().map((e, i) => [e.id, i]));
    const first = entry.firstKeptEntryId === null ? Infinity : ids.get(entry.firstKeptEntryId);
    for (const id of entry.keptEntryIds) assert.ok(ids.get(id) < first, `${id} lies before the kept tail`);

    const reloaded = Session.fromJSONL(s.toJSONL(), options);
    assert.deepEqual(live(reloaded), expected.messages);
    assert.equal(reloaded.check().tokens, s.check().tokens);

    const store = memoryStore();
    const writer = await Session.open(store, "codex", options);
    writer.append(history);
    await writer.compact();
    const opened = await Session.open(store, "codex", options);
    assert.deepEqual(live(opened), expected.messages);

    // A message appended after the compaction follows the kept ones, after a reload too.
    const next = { role: "user", content: "next step" };
    reloaded.append([next]);
    assert.deepEqual(live(reloaded), [...expected.messages, next]);
    assert.deepEqual(live(Session.fromJSONL(reloaded.toJSONL(), options)), [...expected.messages, next]);
  });
}

/** A history with a pinned message in the part Codex summarizes. */
function pinnedHistory() {
  const h = [];
  for (let i = 0; i < 24; i++) {
    h.push({ role: "user", content: `request ${i} ` + "word ".repeat(200) });
    h.push({ role: "assistant", content: `answer ${i} ` + "text ".repeat(600) });
  }
  h[21] = { ...h[21], pinned: true };
  return h;
}

test("codex with a pinned message: the pinned one first, then the kept user messages, as the Compactor orders them", async () => {
  const h = pinnedHistory();
  const options = { contextWindow: 40_000, preset: "codex", format: "ai-sdk", summarize };
  const expected = (await new Compactor(options).compact(h)).messages;
  const at = expected.findIndex((m) => m.pinned);
  assert.ok(at > 0 && expected.slice(at + 1).some((m) => m.role === "user" && h.indexOf(m) < 21), "a kept user message from before the pinned one follows it");
  const s = new Session(options);
  s.append(h);
  await s.compact();
  assert.deepEqual(s.render().messages, expected);
  assert.deepEqual(Session.fromJSONL(s.toJSONL(), options).render().messages, expected);
  const [entry] = compactions(s.toJSONL());
  assert.deepEqual(entry.pinnedEntryIds, [s.entries()[21].id]);
});

test("a keptEntryIds naming no entry is refused with its line; a log listing Codex's kept messages as pinned loads as before", async () => {
  const h = pinnedHistory().map(({ pinned, ...m }) => m);
  const options = { contextWindow: 40_000, preset: "codex", format: "ai-sdk", summarize };
  const s = new Session(options);
  s.append(h);
  await s.compact();
  const lines = s.toJSONL().split("\n");
  const at = lines.findIndex((l) => l.includes('"type":"compaction"'));
  const entry = JSON.parse(lines[at]);
  assert.ok(entry.keptEntryIds.length > 0);

  const dangling = lines.slice();
  dangling[at] = JSON.stringify({ ...entry, keptEntryIds: [...entry.keptEntryIds, "nowhere"] });
  assert.throws(() => Session.fromJSONL(dangling.join("\n"), options), (e) => {
    assert.ok(e instanceof CompactionError);
    assert.equal(e.code, "INVALID_INPUT");
    assert.equal(e.path, `lines[${at}].keptEntryIds`);
    assert.match(e.message, new RegExp(`line ${at + 1}: the compaction's keptEntryIds names entry "nowhere"`));
    return true;
  });

  // Written before keptEntryIds: the same messages listed as pinned.
  const { keptEntryIds, ...old } = entry;
  const older = lines.slice();
  older[at] = JSON.stringify({ ...old, pinnedEntryIds: keptEntryIds });
  const reread = Session.fromJSONL(older.join("\n"), options);
  assert.deepEqual(reread.render().messages, s.render().messages);
  assert.equal(reread.toJSONL(), older.join("\n"), "the old line is kept as written");
});
