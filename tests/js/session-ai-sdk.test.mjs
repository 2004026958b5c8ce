// The AI SDK agent loop with a Session behind prepareStep (tests/js/session-loop.mjs) over the long
// real pi session, in Node. session-browser.test.mjs runs the same loop in headless Chromium.
import { test } from "node:test";
import * as ai from "ai";
import * as aiTest from "ai/test";
import { Session } from "context-compaction";
import { runSessionLoop } from "./session-loop.mjs";
import { assertLoop } from "./session-checks.mjs";
import { fixtureText } from "./fixtures.mjs";

globalThis.AI_SDK_LOG_WARNINGS = false;

test("AI SDK generateText loop with a Session behind prepareStep, over a long real session", { timeout: 300_000 }, async (t) => {
  const text = fixtureText("pi/large-session.jsonl");
  const r = await runSessionLoop({ Session, ai, aiTest, text });
  t.diagnostic(`turns ${r.turns}, requests ${r.requests}, compactions ${r.compactions}, summaries ${r.summaries}, background starts ${r.backgroundStarts}, largest prompt ${r.maxTokens} tokens, log ${r.messagesInLog} messages`);
  assertLoop(r);
});
