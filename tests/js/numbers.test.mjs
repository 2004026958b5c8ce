// Numbers read from text come back as the same double (issue 23, point 8): the core parses JSON
// with serde_json's correctly rounded float parser (the `float_roundtrip` feature).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Session, importSession } from "context-compaction";
import { fixtureText } from "./fixtures.mjs";

const costs = (messages) =>
  messages.flatMap((m) => (m.usage?.cost ? Object.values(m.usage.cost) : []));

test("importSession of a real pi session keeps every usage.cost double", () => {
  const text = fixtureText("pi/before-compaction.jsonl");
  const want = costs(text.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l).message ?? {}));
  assert.equal(want.length, 2_420);
  const got = costs(importSession(text, "pi").history);
  assert.deepEqual(got, want);
});

test("doubles that need every digit survive a Session log reload", () => {
  const values = [0.40389375000000005, 0.1 + 0.2, 5e-324, 1.7976931348623157e308, 2 ** 53 + 2, -1e-7, 123456.78901234567];
  const s = new Session({ contextWindow: 8_000, sessionId: "n" });
  s.append({ role: "user", content: "x", providerOptions: { meta: { values } } });
  const back = Session.fromJSONL(s.toJSONL(), { contextWindow: 8_000 }).render().messages[0];
  assert.deepEqual(back.providerOptions.meta.values, values);
});
