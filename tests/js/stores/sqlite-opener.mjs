// A child process of sqlite.test.mjs: opens a SQLite store on a file that does not exist yet, at
// the moment given (epoch milliseconds), so that several processes create it at once, then
// appends one line and prints "ok".
// Usage: node sqlite-opener.mjs <path> <startAt> <name>
import { sqliteStore } from "../../../js/stores/sqlite.mjs";

const [path, startAt, name] = process.argv.slice(2);
while (Date.now() < Number(startAt)) await new Promise((resolve) => setTimeout(resolve, 1));
const store = sqliteStore({ path });
const header = JSON.stringify({ type: "session", version: 1, id: "c", format: "ai-sdk" });
for (;;) {
  const version = (await store.load("c"))?.version ?? 0;
  const result = await store.append("c", { header, lines: [{ id: name, line: JSON.stringify({ name }) }] }, version);
  if (result.ok) break;
}
await store.close();
console.log("ok");
