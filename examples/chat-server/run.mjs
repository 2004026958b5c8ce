// The example end to end: `node examples/chat-server/run.mjs`. Starts two chat servers
// (server.mjs) on two ports over one store, has two people chat at the same time, each turn sent
// to the other server than the last, and every fifth turn two messages at once, one to each
// server. Then it reads the stored logs, prints what happened (compactions, summarizer calls,
// live tokens against everything said), checks that every user message is stored exactly once,
// stops the servers and exits 0, or 1 when a check fails.
// Without DATABASE_URL or REDIS_URL it uses a fresh SQLite file in the temporary directory; with
// them it runs on that database (with REDIS_URL it also starts a queue worker, worker.mjs).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { estimateTokens } from "context-compaction";
import { CONTEXT_WINDOW, RESERVE_TOKENS } from "./config.mjs";

const TURNS = 15;
const PEOPLE = ["alice", "bob"];
const TOPICS = ["lighthouses", "tides", "sourdough", "glaciers", "sundials", "beekeeping", "canals", "comets", "origami", "volcanoes", "chess openings", "typefaces", "coral reefs", "bridges", "owls"];
const runId = Date.now().toString(36); // fresh conversations on every run, whatever the store

const env = { ...process.env, MODEL_DELAY_MS: process.env.MODEL_DELAY_MS ?? "10" };
let scratch = null;
if (!env.DATABASE_URL && !env.REDIS_URL) {
  scratch = mkdtempSync(join(tmpdir(), "chat-server-"));
  env.SQLITE_PATH = join(scratch, "chats.db");
}
const children = [];
const failures = [];
const check = (ok, what) => {
  console.log(`check: ${what}: ${ok ? "ok" : "FAILED"}`);
  if (!ok) failures.push(what);
};

/** Starts `script` as `name`; resolves once it prints its first line (the address, for a server). */
function start(name, script) {
  const child = spawn(process.execPath, [fileURLToPath(new URL(script, import.meta.url))], {
    env: { ...env, PORT: "0", SERVER_NAME: name },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`${name} exited (${code}) before it was ready`)));
    child.stdout.setEncoding("utf8").once("data", (line) => {
      console.log(`${name}: ${line.trim()}`);
      resolve({ name, url: /http:\/\/\S+/.exec(line)?.[0] });
    });
  });
}

async function stopAll() {
  await Promise.all(
    children.map((child) => {
      if (child.exitCode !== null || child.signalCode !== null) return null;
      return new Promise((resolve) => {
        const killer = setTimeout(() => child.kill("SIGKILL"), 5_000);
        child.once("exit", () => (clearTimeout(killer), resolve()));
        child.kill("SIGTERM"); // the servers finish the requests under way and close the store
      });
    }),
  );
  if (scratch) rmSync(scratch, { recursive: true, force: true });
}

async function call(server, path, body) {
  const init = body && { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
  const response = await fetch(`${server.url}${path}`, init);
  const answer = await response.json();
  if (!response.ok) throw new Error(`${server.name} ${path}: ${response.status} ${answer.code}: ${answer.message}`);
  return answer;
}

/** One person's chat: TURNS turns, alternating servers; every fifth turn sends two messages at once. */
async function converse(person, index, servers) {
  const id = `${runId}-${person}`;
  const sent = [];
  let largest = 0; // the largest prompt the model was sent
  for (let turn = 1; turn <= TURNS; turn++) {
    const topic = TOPICS[(turn + 7 * index) % TOPICS.length];
    const ask = turn % 3 === 0 ? `What is one fact about ${topic}?` : `Tell me about ${topic} in detail.`;
    const targets = turn % 5 === 0 ? servers : [servers[turn % 2]];
    await Promise.all(
      targets.map(async (server, i) => {
        const message = `${ask} (${person}, turn ${turn}${targets.length > 1 ? "ab"[i] : ""})`;
        sent.push(message);
        const answer = await call(server, `/chat/${id}`, { message });
        largest = Math.max(largest, answer.promptTokens);
        const did = answer.compacted ? "compacted" : answer.waited ? "waited for a worker's compaction" : answer.queued ? "queued a compaction" : null;
        if (did) console.log(`  ${person} turn ${turn} on ${server.name}: ${did}, ${answer.tokens} tokens live`);
      }),
    );
  }
  return { person, id, sent, largest };
}

/** What the stored log and the live context say about one conversation. */
async function inspect(server, chat) {
  const { entries } = await call(server, `/chat/${chat.id}/log`);
  const live = await call(server, `/chat/${chat.id}`);
  const messages = entries.filter((e) => e.type === "message").map((e) => e.message);
  const compactions = entries.filter((e) => e.type === "compaction");
  // Each summarizer call writes a "summarizer call <writer> #n" marker into the summary it returns;
  // a later summary may keep an earlier one's text, so count each marker once.
  const markers = new Set(compactions.flatMap((c) => [...c.summary.matchAll(/summarizer call (.+? #\d+)/g)].map((m) => m[1])));
  const calls = [...markers].map((marker) => marker.replace(/ #\d+$/, ""));
  const perWriter = new Map();
  for (const writer of calls) perWriter.set(writer, (perWriter.get(writer) ?? 0) + 1);
  const text = (m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content));
  return {
    messages,
    compactions: compactions.length,
    calls: calls.length,
    byWriter: [...perWriter].map(([writer, n]) => `${writer} ${n}`).join(", ") || "none",
    liveTokens: live.tokens,
    liveMessages: live.messages.length,
    totalTokens: messages.reduce((sum, m) => sum + estimateTokens(text(m)), 0),
  };
}

async function main() {
  const servers = await Promise.all([start("A", "server.mjs"), start("B", "server.mjs")]);
  if (env.REDIS_URL) await start("worker", "worker.mjs");
  const chats = await Promise.all(PEOPLE.map((person, index) => converse(person, index, servers)));
  if (env.REDIS_URL) await new Promise((r) => setTimeout(r, 1_000)); // let the workers finish
  let compactions = 0;
  let calls = 0;
  console.log("\nReport");
  const sent = chats.reduce((n, c) => n + c.sent.length, 0);
  console.log(`  turns              ${PEOPLE.length * TURNS} (${PEOPLE.length} conversations, alternating A and B; every fifth turn to both at once: ${sent} messages)`);
  for (const chat of chats) {
    const r = await inspect(servers[0], chat);
    compactions += r.compactions;
    calls += r.calls;
    console.log(`  ${chat.person.padEnd(18)} ${r.compactions} compactions, ${r.calls} summarizer calls (${r.byWriter}), live ${r.liveTokens} tokens in ${r.liveMessages} messages, of ${r.totalTokens} tokens in ${r.messages.length} messages stored`);
    const users = r.messages.filter((m) => m.role === "user").map((m) => m.content);
    const once = users.length === chat.sent.length && chat.sent.every((m) => users.filter((u) => u === m).length === 1);
    chat.checks = { once, replies: r.messages.filter((m) => m.role === "assistant").length === chat.sent.length };
  }
  console.log(`  compactions        ${compactions}`);
  console.log(`  summarizer calls   ${calls}`);
  const largest = Math.max(...chats.map((c) => c.largest));
  console.log(`  largest prompt     ${largest} tokens (compacted past ${CONTEXT_WINDOW - RESERVE_TOKENS}; window ${CONTEXT_WINDOW})\n`);
  check(chats.every((c) => c.checks.once), "every user message stored exactly once");
  check(chats.every((c) => c.checks.replies), "every message has its reply stored");
  check(compactions >= 1, "the conversations were compacted");
  check(largest <= CONTEXT_WINDOW, "every prompt fit the window");
}

try {
  await main();
} catch (error) {
  failures.push(error.message);
  console.error(error);
} finally {
  await stopAll();
}
console.log(failures.length ? `${failures.length} checks failed` : "all checks passed");
process.exitCode = failures.length ? 1 : 0;
