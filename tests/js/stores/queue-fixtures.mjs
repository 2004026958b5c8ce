// Shared pieces of the compaction-queue tests (queue.test.mjs, processes.test.mjs) and of their
// child processes (proc-writer.mjs, proc-worker.mjs): the session options (a small window, so that
// a few dozen messages compact several times), a scripted summarizer standing in for a model, the
// private Redis server, and a parser of the stored log.
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts the private redis-server (scripts/redis.sh; a failure throws: the tests fail) and returns ioredis options. */
export function startRedis() {
  const sh = join(root, "scripts/redis.sh");
  execFileSync("bash", [sh, "start"], { stdio: ["ignore", "inherit", "inherit"], timeout: 180_000 });
  const url = new URL(execFileSync("bash", [sh, "url"], { encoding: "utf8" }).trim());
  return { host: url.hostname, port: Number(url.port) };
}

/**
 * A summarizer that answers `summary r<round> after r<previous round> of <n> messages` after
 * `delayMs`; `onCall(request)` runs first (a test gates or counts calls there).
 */
export function scriptedSummarizer({ delayMs = 0, onCall } = {}) {
  return async (request) => {
    await onCall?.(request);
    if (delayMs > 0) await sleep(delayMs);
    const previous = /^summary r(\d+)/.exec(request.previousSummary ?? "")?.[1] ?? "0";
    return `summary r${request.round} after r${previous} of ${request.messages.length} messages`;
  };
}

/**
 * The options every process opens the conversation with: the trigger fires at about 7,000 tokens,
 * the background threshold at half of that; one message of {@link message} is about 158 tokens.
 */
export const sessionOptions = (summarize) => ({
  contextWindow: 8_000,
  reserveTokens: 1_000,
  keepRecentTokens: 1_500,
  background: 0.5,
  format: "ai-sdk",
  summarize,
});

/** A message of writer `writer`: its tag `w<writer> <u|a><i>` first, then filler. */
export const message = (writer, role, i) => ({
  role,
  content: `w${writer} ${role === "user" ? "u" : "a"}${i} ${"lorem ipsum dolor sit amet ".repeat(30)}`,
});

/** The text of each message. */
export const texts = (messages) => messages.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));

/** The entries of a stored log: messages as `{ id, tag }` (`w1 u3`), compactions as `{ id, round, summary }`. */
export function parseLog(lines) {
  const messages = [];
  const compactions = [];
  for (const line of lines) {
    const entry = JSON.parse(line);
    if (entry.type === "message") {
      const content = entry.message.content;
      messages.push({ id: entry.id, tag: /^w\d+ [ua]\d+/.exec(content)?.[0] ?? content.slice(0, 20) });
    } else if (entry.type === "compaction") {
      compactions.push({ id: entry.id, round: entry.round, summary: entry.summary });
    }
  }
  return { messages, compactions, ids: lines.map((l) => JSON.parse(l).id) };
}

/** A child process's next IPC message that `match` accepts (rejects if the child exits first). */
export function nextMessage(child, match, what = "a message") {
  return new Promise((resolve, reject) => {
    const onMessage = (m) => {
      if (!match(m)) return;
      child.off("message", onMessage);
      child.off("exit", onExit);
      resolve(m);
    };
    const onExit = (code, signal) => {
      child.off("message", onMessage);
      reject(new Error(`the child exited (${code ?? signal}) before ${what}`));
    };
    child.on("message", onMessage);
    child.once("exit", onExit);
  });
}
