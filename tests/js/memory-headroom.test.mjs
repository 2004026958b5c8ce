// The instance's memory stays near what is in use across many calls (src/wasm/heap.rs). Before a
// compaction, a render or an append the binding makes room ahead; asking for as much as the whole
// memory on every call grew it by what was in use each time, so a session of 30k short messages
// reached 2.5 GiB of wasm memory. The wasm memory is the process's `external` memory in Node, read
// in a child process so that nothing else counts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const entry = fileURLToPath(new URL("../../js/node.mjs", import.meta.url));

function externalMiB(body) {
  const script = `
import { Compactor, Session } from ${JSON.stringify(entry)};
const batch = (i) => Array.from({ length: 500 }, (_, j) => ({ role: j % 2 ? "assistant" : "user", content: \`message \${i}-\${j} with a few words\` }));
${body}
console.log(process.memoryUsage().external / 2 ** 20);
`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 300_000 });
  return Number(out.trim().split("\n").pop());
}

test("60 appends and renders of a session keep the wasm memory near what the session holds", () => {
  const mib = externalMiB(`
const s = new Session({ contextWindow: 1_000_000, summarize: "extractive" });
for (let i = 0; i < 60; i++) { s.append(batch(i)); s.render(); await s.prepare(); }
`);
  assert.ok(mib < 400, `${Math.round(mib)} MiB of external memory`);
});

test("60 checks of a growing history keep the wasm memory near what the compactor holds", () => {
  const mib = externalMiB(`
const c = new Compactor({ contextWindow: 1_000_000, summarize: "extractive" });
const history = [];
for (let i = 0; i < 60; i++) { history.push(...batch(i)); c.check(history); await c.maybeCompact(history); }
`);
  assert.ok(mib < 400, `${Math.round(mib)} MiB of external memory`);
});
