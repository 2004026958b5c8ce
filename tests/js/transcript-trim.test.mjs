// `transcript.trim` through the public API (docs/cost.md, "Trimming the transcript"): the
// summarizer's transcript request carries long tool results as head and tail and edit bodies cut,
// `trim: false` gives the whole transcript, the seed-001 preset ignores the option, and
// `plan().cost` counts the trimmed request: on the real Claude Code session at its own
// compaction, at least 30% less than without trimming.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Compactor, importSession } from "context-compaction";
import { fixtureText } from "./fixtures.mjs";

const session = importSession(fixtureText("claude-code/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"), "claude-code");
const before = session.history.slice(0, session.compactions[0].atMessage);

const listing = Array.from({ length: 40 }, (_, i) => `const value${String(i + 1).padStart(2, "0")} = ${String(i + 1).padStart(4, "0")};`).join("\n");
const body = `const value01 = loadValue("value01");\n${"// migrated\n".repeat(20)}`;
const history = [
  { role: "user", content: "Load the values from the environment in /app/config.ts" },
  { role: "assistant", content: [{ type: "tool_use", id: "c1", name: "Read", input: { file_path: "/app/config.ts" } }] },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "c1", content: listing }] },
  { role: "assistant", content: [{ type: "tool_use", id: "c2", name: "Edit", input: { file_path: "/app/config.ts", old_string: "const value01 = 0001;", new_string: body } }] },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "c2", content: "The file /app/config.ts has been updated." }] },
  { role: "assistant", content: [{ type: "tool_use", id: "c3", name: "Bash", input: { command: "npm test" } }] },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "c3", is_error: true, content: `Error: loadValue is not defined\n${"    at config.ts:1:17\n".repeat(40)}` }] },
  { role: "assistant", content: "The test fails: loadValue is missing. I will add it next." },
  { role: "user", content: "Go ahead." },
  { role: "assistant", content: "Adding it now." },
];

async function transcriptOf(extra) {
  const requests = [];
  const c = new Compactor({ contextWindow: 200_000, format: "anthropic", keepRecentTokens: 1, summarize: (r) => (requests.push(r), "The work so far."), ...extra });
  const result = await c.compact(history);
  c.free();
  assert.ok(result.compacted);
  assert.equal(requests.length, 1);
  return requests[0];
}

test("the summarizer's request: long results keep head and tail, edit bodies are cut, errors and user text stay whole", async () => {
  const r = await transcriptOf({});
  const t = r.transcript;
  assert.ok(t.includes("const value13 = 0013;\n[... 463 characters cut]\nconst value35 = 0035;"), t);
  assert.ok(!t.includes("const value20 = 0020;"));
  assert.ok(t.includes('"file_path":"/app/config.ts"'));
  assert.ok(t.includes("[... 198 more characters cut]"));
  assert.ok(!t.includes("// migrated\\n".repeat(5)));
  assert.ok(t.includes(history[6].content[0].content.trimEnd()), "the error whole");
  assert.ok(t.includes("Load the values from the environment in /app/config.ts"));
  assert.ok(r.prompt.includes(t), "the prompt carries the trimmed transcript");
  const whole = await transcriptOf({ transcript: { trim: false } });
  assert.ok(whole.transcript.includes(listing));
  assert.ok(whole.transcript.includes(JSON.stringify(body)));
  assert.ok(t.length < whole.transcript.length - 600, `${t.length} vs ${whole.transcript.length}`);
  // Seed 001's own layout ignores the option.
  const seedOn = await transcriptOf({ preset: "compaction-layer", contextWindow: 200_000 });
  const seedOff = await transcriptOf({ preset: "compaction-layer", contextWindow: 200_000, transcript: { trim: false } });
  assert.equal(seedOn.transcript, seedOff.transcript);
  assert.throws(() => new Compactor({ contextWindow: 10_000, transcript: { trim: "yes" }, summarize: "extractive" }), (e) => e.code === "INVALID_OPTIONS" && e.path === "transcript.trim");
});

test("plan().cost counts the trimmed transcript: at least 30% less on the real session, the continuing request unchanged", () => {
  const plan = (extra) => {
    const c = new Compactor({ preset: "claude-code", model: "claude-sonnet-4-5", summarize: "extractive", ...extra });
    const { cost } = c.plan(before);
    c.free();
    return cost;
  };
  const trimmed = plan({});
  const whole = plan({ transcript: { trim: false } });
  assert.ok(trimmed.transcript.inputEquivalents <= whole.transcript.inputEquivalents * 0.7, `${trimmed.transcript.inputEquivalents} vs ${whole.transcript.inputEquivalents}`);
  assert.deepEqual(trimmed.continue, whole.continue);
  // What the forecast counts is what the summarizer is sent: one request, no chunk.
  assert.ok(trimmed.transcript.fresh > 10_000 && trimmed.transcript.fresh < 60_000, `${trimmed.transcript.fresh}`);
});
