// A child process of sqlite.test.mjs that dies inside an append: a temporary trigger on its own
// connection calls a function that prints "mid" and blocks once the batch's line "hang" is
// inserted, and the parent kills it there with SIGKILL. A tiny page cache makes the uncommitted
// pages spill into the WAL first, so recovery has partial frames to ignore.
// Usage: node sqlite-crash.mjs <path> <conversationId> <expectedVersion>
import { writeSync } from "node:fs";
import { createRequire } from "node:module";
import { sqliteStore } from "../../../js/stores/sqlite.mjs";

const [path, id, expectedVersion] = process.argv.slice(2);
const Database = createRequire(import.meta.url)("better-sqlite3");
const db = new Database(path);
db.pragma("cache_size = 10");
const store = sqliteStore({ database: db });
db.function("cc_hang", () => {
  writeSync(1, "mid\n");
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); // forever: the parent kills us
});
db.exec(`CREATE TEMP TRIGGER cc_crash AFTER INSERT ON main."cc_entries" WHEN NEW.entry_id = 'hang' BEGIN SELECT cc_hang(); END`);
const big = "x".repeat(10_000);
const lines = Array.from({ length: 300 }, (_, i) => ({ id: `c${i}`, line: JSON.stringify({ i, big }) }));
lines.push({ id: "hang", line: "{}" });
await store.append(id, { lines, live: { from: "c0", carry: [] } }, Number(expectedVersion));
console.log("committed"); // never reached
