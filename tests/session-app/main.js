// The AI SDK agent loop with a Session behind prepareStep (tests/js/session-loop.mjs), bundled by
// Vite with the package's browser entry and run in headless Chromium; the result goes to #out.
import * as ai from "ai";
import * as aiTest from "ai/test";
import { Session } from "context-compaction";
import text from "../fixtures/pi/large-session.jsonl?raw";
import { runSessionLoop } from "../js/session-loop.mjs";

globalThis.AI_SDK_LOG_WARNINGS = false;
const out = document.getElementById("out");
try {
  const result = await runSessionLoop({ Session, ai, aiTest, text });
  out.dataset.result = JSON.stringify(result);
  out.textContent = "done";
} catch (error) {
  out.textContent = `error: ${error?.stack ?? error}`;
}
