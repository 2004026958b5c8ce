// After the trap guard (js/guard.mjs) replaces the WebAssembly instance, callbacks the old instance
// left behind (a summarizer's promise settling, a timer, a scheduled task) still fire. wasm-bindgen's
// glue throws "Cannot invoke closure from previous WASM instance" from them, outside any promise,
// which ended the process. They are made to do nothing instead: the guard settles the calls they
// belonged to (INTERNAL). Fails when the glue does not have the expected shape (a new wasm-bindgen
// version), so the build never ships it unpatched.
import fs from "node:fs";

const STALE = "            throw new Error('Cannot invoke closure from previous WASM instance');";
const QUIET = "            return; // a closure of a replaced instance: the guard settled its call (scripts/stale-closures.mjs)";

for (const file of process.argv.slice(2)) {
  const text = fs.readFileSync(file, "utf8");
  const count = text.split(STALE).length - 1;
  if (count !== 1) {
    console.error(`stale-closures: ${file} has ${count} stale-closure checks where 1 was expected: the glue changed`);
    process.exit(1);
  }
  fs.writeFileSync(file, text.replace(STALE, QUIET));
}
