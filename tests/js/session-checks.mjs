// The checks of a Session agent loop run (Node and browser runs alike).
import assert from "node:assert/strict";

/** The checks shared with the browser run. */
export function assertLoop(r) {
  assert.deepEqual(r.problems.slice(0, 10), [], `${r.problems.length} problems`);
  assert.equal(r.executed, r.calls, "every recorded tool call ran");
  assert.equal(r.requests, r.steps + r.turns, "one model call per step");
  assert.ok(r.compactions >= 2, `${r.compactions} compactions`);
  assert.ok(r.backgroundStarts >= 1, "a background compaction started while the loop went on");
  assert.ok(r.maxTokens <= r.budget, `every prompt fits (largest ${r.maxTokens} of ${r.budget})`);
  assert.ok(r.maxPromptChars < r.chars / 2, "no prompt carried the whole session");
  assert.ok(r.roundTrip, "the session log round-trips byte for byte");
}
