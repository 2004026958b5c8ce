// Lines a Session writes to a store hold a lone UTF-16 surrogate (a cut emoji) as the `\udXXX`
// escape `JSON.stringify` writes, so that any other reader of the store parses the same string;
// the package reads them back (a reopened session, a merge of another writer's lines) unchanged.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { Session, memoryStore } from "../../../js/node.mjs";
import { sqliteStore } from "../../../js/stores/sqlite.mjs";

const Database = createRequire(import.meta.url)("better-sqlite3");
const dir = mkdtempSync(join(tmpdir(), "cc-surrogates-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const options = { contextWindow: 8000, format: "ai-sdk", summarize: "extractive" };
const cut = "the emoji \ud83d is cut, \ude00 too";
const ids = "id \udfff";

/** The messages of the stored lines, parsed as any reader would. */
const messagesOf = (lines) => lines.map((l) => JSON.parse(l)).filter((e) => e.type === "message").map((e) => e.message);

async function roundTrip(store, readRaw) {
  const a = await Session.open(store, "c", options);
  a.append([{ role: "user", content: cut }, { role: "assistant", content: [{ type: "text", text: ids }] }]);
  await a.commit();
  const raw = await readRaw();
  assert.ok(raw.every((l) => !l.includes("\ufdd0")), "no internal marker in a stored line");
  assert.ok(raw.every((l) => l.isWellFormed()), "stored lines are well-formed text");
  const stored = messagesOf(raw);
  assert.equal(stored[0].content, cut);
  assert.equal(stored[1].content[0].text, ids);
  // Read back by the package: a reopened session, and another writer's lines merged.
  const b = await Session.open(store, "c", options);
  assert.deepEqual(b.render().messages, a.render().messages);
  assert.equal(b.render().messages[0].content, cut);
  b.append({ role: "user", content: `more ${cut}` });
  await b.commit();
  await a.sync();
  assert.equal(a.render().messages[2].content, `more ${cut}`);
  assert.deepEqual(a.render().messages, b.render().messages);
}

describe("lone surrogates in stored lines", () => {
  it("the sqlite store: the raw row parses to the same string", async () => {
    const path = join(dir, "s.sqlite");
    const store = sqliteStore({ path });
    await roundTrip(store, () => {
      const db = new Database(path, { readonly: true });
      try {
        return db.prepare("SELECT line FROM cc_entries ORDER BY seq").pluck().all();
      } finally {
        db.close();
      }
    });
  });

  it("the memory store: its lines parse to the same string", async () => {
    const store = memoryStore();
    await roundTrip(store, async () => (await store.load("c")).lines);
  });
});
