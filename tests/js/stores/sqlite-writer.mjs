// A child process of sqlite.test.mjs: appends `batches` batches of three lines to one conversation
// in a shared SQLite file, retrying on a version conflict, then prints how many conflicts it met.
// It prints "ready" once its store is open and starts when its stdin closes, so that the parent
// can start every writer at once.
// Usage: node sqlite-writer.mjs <path> <conversationId> <writer> <batches>
import { once } from "node:events";
import { sqliteStore } from "../../../js/stores/sqlite.mjs";

const [path, id, writer, batches] = process.argv.slice(2);
const store = sqliteStore({ path });
console.log("ready");
await once(process.stdin.resume(), "end");
let version = (await store.load(id)).version;
let conflicts = 0;
for (let b = 0; b < Number(batches); b++) {
  const lines = [0, 1, 2].map((l) => ({ id: `w${writer}-b${b}-l${l}`, line: JSON.stringify({ w: Number(writer), b, l }) }));
  for (;;) {
    const result = await store.append(id, { lines }, version);
    if (result.ok) {
      version = result.version;
      break;
    }
    conflicts++;
    version = (await store.read(id, version)).version; // reload, as a session would
  }
}
await store.close();
console.log(JSON.stringify({ conflicts }));
