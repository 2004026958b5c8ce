// Arguments JavaScript itself cannot read, and disposal twice (issue 23, point 9): a revoked Proxy
// is INVALID_INPUT, withOverflowRecovery with something other than functions is INVALID_INPUT
// naming the argument, and free() or Symbol.dispose on an object already freed does nothing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { CompactionError, Compactor, Session, validateMessages, withOverflowRecovery } from "context-compaction";

const typed = (code) => (e) => e instanceof CompactionError && e.code === code;

test("a revoked Proxy is INVALID_INPUT, never a TypeError", async () => {
  const revoked = () => {
    const { proxy, revoke } = Proxy.revocable([], {});
    revoke();
    return proxy;
  };
  const c = new Compactor({ contextWindow: 8_000, summarize: () => "s" });
  assert.throws(() => c.check(revoked()), typed("INVALID_INPUT"));
  await assert.rejects(c.compact(revoked()), typed("INVALID_INPUT"));
  assert.throws(() => validateMessages(revoked()), typed("INVALID_INPUT"));
  assert.throws(() => new Session({ contextWindow: 8_000 }).append(revoked()), typed("INVALID_INPUT"));
  const { proxy: options, revoke } = Proxy.revocable({ contextWindow: 8_000 }, {});
  revoke();
  assert.throws(() => new Compactor(options), (e) => e instanceof CompactionError);
  assert.equal(c.check([{ role: "user", content: "still works" }]).shouldCompact, false);
});

test("withOverflowRecovery with an argument that is not a function is INVALID_INPUT naming it", () => {
  assert.throws(() => withOverflowRecovery(5, [], async (m) => m), (e) => typed("INVALID_INPUT")(e) && e.path === "send");
  assert.throws(() => withOverflowRecovery(async () => 1, [], 5), (e) => typed("INVALID_INPUT")(e) && e.path === "compact");
  assert.throws(() => withOverflowRecovery(), typed("INVALID_INPUT"));
});

test("free() and Symbol.dispose twice do nothing the second time; other calls stay DISPOSED", () => {
  for (const make of [() => new Compactor({ contextWindow: 8_000 , summarize: () => "s"}), () => new Session({ contextWindow: 8_000 })]) {
    const o = make();
    o.free();
    assert.equal(o.free(), undefined);
    o[Symbol.dispose]();
    assert.throws(() => o.check([]), typed("DISPOSED"));
  }
});
