// A chat server on node:http. Every request opens its conversation from the store, does its
// work and lets it go: nothing is kept in memory between requests, so any number of these
// processes (or serverless instances) can serve the same conversations.
//   POST /chat/:id       { "message": "..." } -> { reply, tokens, promptTokens, compacted, storeVersion }
//   GET  /chat/:id       the live context: what the model is sent (summary first once compacted)
//   GET  /chat/:id/log   the whole stored log, every message and compaction (for audit)
// PORT (default 3000; 0 picks a free one). The store: see config.mjs.
import { createServer } from "node:http";
import { CompactionError, Session } from "context-compaction";
import { openQueue, openStore, sessionOptions } from "./config.mjs";
import { respond, summarize } from "./model.mjs";

const { store, where } = openStore();
const queue = await openQueue(store);

/** The id of the latest compaction in the session's log, or null. */
const latestCompaction = (session) => session.entries().findLast((e) => e.type === "compaction")?.id ?? null;

/** Compacts if due, then renders. With the queue, a worker compacts; this only waits when it must. */
async function prepare(session) {
  if (queue) return queue.prepare(session);
  try {
    return await session.prepare();
  } catch (error) {
    // Another process's compaction got there first; this session has merged it now. Once more.
    if (error instanceof CompactionError && error.code === "CONFLICT") return session.prepare();
    throw error;
  }
}

async function chat(conversationId, message) {
  let summarized = false; // whether this request's summarizer ran (rather than another process's)
  const options = sessionOptions({
    summarize(request) {
      summarized = true;
      return summarize(request);
    },
  });
  const session = await Session.open(store, conversationId, options);
  try {
    const before = latestCompaction(session);
    session.append({ role: "user", content: message });
    // Stores the user message, compacts when due (under the store's lease: one process at a
    // time), and renders the context to send.
    const prompt = await prepare(session);
    const reply = await respond(prompt.messages);
    session.append({ role: "assistant", content: reply });
    await session.commit();
    return {
      reply,
      tokens: session.check().tokens,       // the live context now, the reply included
      promptTokens: prompt.tokens,          // what the model was sent
      compacted: summarized && latestCompaction(session) !== before, // this request wrote a summary
      storeVersion: session.storeVersion,   // entries in the stored log
      // With the queue: this request asked a worker to compact, or waited for one (over the trigger).
      ...(queue && { queued: prompt.enqueued, waited: prompt.waited }),
    };
  } finally {
    session.free(); // its WebAssembly memory, now rather than at garbage collection
  }
}

async function liveContext(conversationId) {
  const session = await Session.open(store, conversationId, sessionOptions());
  try {
    if (session.storeVersion === 0) return null;
    const { messages, tokens } = session.render();
    return { conversationId, tokens, messages };
  } finally {
    session.free();
  }
}

async function log(conversationId) {
  const stored = await store.read(conversationId, 0);
  if (!stored) return null;
  return { conversationId, version: stored.version, header: JSON.parse(stored.header), entries: stored.lines.map((l) => JSON.parse(l)) };
}

async function readJson(request) {
  let body = "";
  for await (const chunk of request) body += chunk;
  try {
    return JSON.parse(body);
  } catch {
    return null;
  }
}

async function route(request) {
  const url = new URL(request.url, "http://localhost");
  const [, chatPath, id, rest, extra] = url.pathname.split("/");
  if (chatPath !== "chat" || !id || extra !== undefined) return [404, { code: "NOT_FOUND", message: "try /chat/:id" }];
  const conversationId = decodeURIComponent(id);
  if (request.method === "POST" && rest === undefined) {
    const body = await readJson(request);
    if (typeof body?.message !== "string" || body.message.trim() === "") {
      return [400, { code: "BAD_REQUEST", message: 'send JSON { "message": "..." }' }];
    }
    return [200, await chat(conversationId, body.message)];
  }
  if (request.method === "GET" && (rest === undefined || rest === "log")) {
    const found = rest === "log" ? await log(conversationId) : await liveContext(conversationId);
    return found ? [200, found] : [404, { code: "NOT_FOUND", message: `no conversation ${conversationId}` }];
  }
  return [405, { code: "METHOD_NOT_ALLOWED", message: `${request.method} ${url.pathname}` }];
}

/** CompactionError codes as HTTP statuses: a lost race is a conflict, a failing store a 503. */
function failure(error) {
  if (!(error instanceof CompactionError)) {
    console.error(error);
    return [500, { code: "INTERNAL", message: String(error?.message ?? error) }];
  }
  const status = error.code === "CONFLICT" ? 409 : error.code === "STORE_FAILED" ? 503 : 500;
  return [status, { code: error.code, message: error.message }];
}

const server = createServer(async (request, response) => {
  const [status, body] = await route(request).catch(failure);
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
});

server.listen(Number(process.env.PORT ?? 3000), "127.0.0.1", () => {
  const mode = queue ? "compaction by the queue's workers" : "compaction in the request";
  console.log(`listening on http://127.0.0.1:${server.address().port} (${where}, ${mode})`);
});

// Stop taking requests, finish those under way, then close the store's connections.
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    server.close(async () => {
      await queue?.close();
      await store.close?.();
      process.exit(0);
    });
    server.closeIdleConnections?.(); // keep-alive connections with no request under way
  });
}
