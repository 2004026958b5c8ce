// A child process of tests/js/stores/processes.test.mjs: a chat process writing to a shared
// conversation. Run with fork(); argv[2] is JSON { db, connection, name, prefix, conversationId,
// writer, pairs, pauseMs }. Appends `pairs` user/assistant pairs tagged `w<writer> u<i>` /
// `w<writer> a<i>`, committing after each, and enqueues a compaction whenever the session's check
// says background or shouldCompact. Then reports { type: "done", enqueues, deduplicated } and waits
// for the parent's { type: "final" }: syncs, reports { type: "final", messages } (the texts of its
// rendered live context) and ends.
import { Session } from "../../../js/node.mjs";
import { sqliteStore } from "../../../js/stores/sqlite.mjs";
import { compactionQueue } from "../../../js/stores/bullmq.mjs";
import { message, scriptedSummarizer, sessionOptions, texts } from "./queue-fixtures.mjs";

const config = JSON.parse(process.argv[2]);
const send = (m) => new Promise((resolve) => process.send(m, resolve));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const store = sqliteStore({ path: config.db });
// Writers never summarize: the workers do (a call here would fail the test).
const options = sessionOptions(scriptedSummarizer({ onCall: () => Promise.reject(new Error("a writer summarized")) }));
const queue = compactionQueue({
  Session,
  store,
  connection: config.connection,
  name: config.name,
  prefix: config.prefix,
  session: () => options,
});

const session = await Session.open(store, config.conversationId, options);
let enqueues = 0;
let deduplicated = 0;
for (let i = 0; i < config.pairs; i++) {
  session.append([message(config.writer, "user", i), message(config.writer, "assistant", i)]);
  await session.commit();
  const check = session.check();
  if (check.background || check.shouldCompact) {
    enqueues++;
    if ((await queue.enqueue(config.conversationId)).deduplicated) deduplicated++;
  }
  await sleep(config.pauseMs ?? 0);
}
await send({ type: "done", enqueues, deduplicated });
process.on("message", async (m) => {
  if (m?.type !== "final") return;
  await session.sync();
  await send({ type: "final", messages: texts(session.render().messages) });
  await queue.close();
  await store.close();
  process.exit(0);
});
