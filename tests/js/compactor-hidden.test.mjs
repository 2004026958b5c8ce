// Seed 003's "hidden blocks and replacement text" in a Compactor's compaction digest, as a
// Session's compaction entry has them: the parts of the summarized messages that
// `Compactor.prune()` hid behind a replacement text, each `{ message, part, tool, output | input }`
// (`message`: its index in the array compacted; a Session names its log entry instead).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Compactor } from "context-compaction";
import { aiSdkHistory } from "./history.mjs";

const options = {
  format: "ai-sdk",
  contextWindow: 40_000,
  reserveTokens: 4_000,
  keepRecentTokens: 4_000,
  prune: { style: "anthropic", keep: 3 },
  summarize: (r) => `Summary of ${r.messages.length} messages.`,
};

test("a compaction's digest lists the parts a prune hid in the messages it summarizes", async () => {
  const c = new Compactor(options);
  const history = aiSdkHistory(30);
  const pruned = c.prune(history);
  const changed = pruned.map((m, i) => (m !== history[i] ? i : -1)).filter((i) => i >= 0);
  assert.ok(changed.length > 3, "the prune hid tool outputs");
  const result = await c.compact(pruned);
  const hidden = result.digest.hidden;
  assert.ok(Array.isArray(hidden) && hidden.length > 0, JSON.stringify(result.digest));
  const summarized = new Set(result.removed.map((m) => pruned.indexOf(m)));
  for (const h of hidden) {
    assert.ok(changed.includes(h.message), `message ${h.message} was pruned`);
    assert.ok(summarized.has(h.message), `message ${h.message} was summarized`);
    assert.equal(h.tool, "read");
    // The replacement text, as the pruned message holds it.
    assert.equal(h.output, pruned[h.message].content[h.part].output.value);
  }
  // Every pruned message the compaction summarized is listed.
  const listed = new Set(hidden.map((h) => h.message));
  for (const i of changed) if (summarized.has(i)) assert.ok(listed.has(i), `message ${i} is listed`);
  // Without a prune, nothing is hidden.
  const fresh = new Compactor(options);
  assert.equal((await fresh.compact(history)).digest.hidden, undefined);
  c.free();
  fresh.free();
});
