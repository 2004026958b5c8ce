// A child process of tests/js/stores/redis.test.mjs: appends `batches` batches of two lines to one
// conversation through its own redis store, retrying each at the version a conflict reports, and
// prints how many conflicts it met. Usage: node redis-appender.mjs URL CONVERSATION WORKER BATCHES
import { redisStore } from "../../../js/stores/redis.mjs";

const [url, conversation, worker, batches] = process.argv.slice(2);
const store = redisStore({ url });
let version = (await store.load(conversation)).version;
let conflicts = 0;
for (let b = 0; b < Number(batches); b++) {
  const lines = [0, 1].map((k) => {
    const id = `w${worker}-b${b}-${k}`;
    return { id, line: JSON.stringify({ type: "message", id, worker: Number(worker), batch: b, k }) };
  });
  for (;;) {
    const result = await store.append(conversation, { lines }, version);
    version = result.version;
    if (result.ok) break;
    conflicts++;
  }
}
await store.close();
console.log(JSON.stringify({ worker: Number(worker), conflicts }));
