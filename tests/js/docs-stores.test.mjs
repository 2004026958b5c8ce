// Every TypeScript block of docs/stores.md type-checks against the packed package installed in a
// fresh project (what they do runs in tests/js/stores/: session-open, serverless, the stores).
// A block may use the names of the preamble below, which stand for the reader's own code.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { root, consumerWith } from "./pack.mjs";

const blocks = [...readFileSync(join(root, "docs/stores.md"), "utf8").matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);

const preamble = {
  summarize: "declare const summarize: (req: { system: string; prompt: string }) => Promise<string>;",
  callModel: 'declare function callModel(messages: import("ai").ModelMessage[]): Promise<import("ai").ModelMessage>;',
  provider: 'declare function provider(id: string): Parameters<typeof import("ai").wrapLanguageModel>[0]["model"];',
  chatId: "declare const chatId: string;",
  storedHistory: 'declare const storedHistory: import("ai").ModelMessage[];',
  history: 'declare const history: import("ai").ModelMessage[];',
  store: 'declare const store: import("context-compaction").ConversationStore;',
  conversationId: "declare const conversationId: string;",
  entryId: "declare const entryId: string;",
};

test("docs/stores.md TypeScript blocks compile with tsc against the packed package", () => {
  assert.ok(blocks.length >= 3, `docs/stores.md has ${blocks.length} ts blocks`);
  const dir = consumerWith("docs-stores");
  const files = blocks.map((code, i) => {
    const declared = Object.entries(preamble)
      .filter(([name]) => new RegExp(`\\b${name}\\b`).test(code) && !new RegExp(`(const|function) ${name}\\b`).test(code))
      .map(([, line]) => line);
    const file = join(dir, `block${i}.mts`);
    writeFileSync(file, `${code}\n${declared.join("\n")}\nexport {};\n`);
    return file;
  });
  const tsc = join(root, "node_modules/.bin/tsc");
  execFileSync(tsc, ["--strict", "--noEmit", "--module", "nodenext", "--target", "es2022", "--types", "node", "--skipLibCheck", ...files], { stdio: "inherit" });
});
