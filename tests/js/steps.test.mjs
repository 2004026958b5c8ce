// The compaction step machine as the caller sees it, the same through both handles: an answer the
// summary job rejects (empty, not smaller) is asked for again once per retry, and a Compactor and a
// Session with the same options and the same summarizer make the same requests and decisions.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Compactor, Session } from "context-compaction";
import { aiSdkHistory } from "./history.mjs";

const base = { contextWindow: 32_000, keepRecentTokens: 3_000, retryDelayMs: 1 };

/** A summarizer whose first `bad` answers are blank; the calls it got. */
function flaky(bad) {
  const calls = [];
  const summarize = (req) => (calls.push(req.purpose), calls.length <= bad ? "   " : `Summary of ${req.messages.length} messages.`);
  return { calls, summarize };
}

test("a rejected answer is asked for again once per retry, through either handle", async () => {
  for (const handle of ["Compactor", "Session"]) {
    const { calls, summarize } = flaky(1);
    const options = { ...base, retries: 1, summarize };
    let result;
    if (handle === "Compactor") {
      result = await new Compactor(options).compact(aiSdkHistory());
    } else {
      const s = new Session(options);
      s.append(aiSdkHistory());
      result = await s.compact();
    }
    assert.equal(result.compacted, true, handle);
    assert.deepEqual(calls, ["history", "history"], handle);

    // With two retries, two blank answers are asked for again; a third fails the compaction.
    const three = flaky(3);
    const c = new Compactor({ ...base, retries: 2, summarize: three.summarize });
    await assert.rejects(c.compact(aiSdkHistory()), (e) => e.code === "SUMMARY_EMPTY");
    assert.equal(three.calls.length, 3);
  }
});

test("a Compactor and a Session reach the same decisions on a failing summarizer", async () => {
  for (const onFailure of ["reject", "unchanged", "extractive", "auto"]) {
    const seen = { Compactor: [], Session: [] };
    const options = (handle) => ({
      ...base,
      retries: 0,
      onFailure,
      summarize: () => Promise.reject(new Error("down")),
      onError: (e) => seen[handle].push(e.code),
    });
    const outcome = async (run) => run().then((compacted) => (compacted ? "compacted" : "unchanged"), (e) => e.code);
    const history = aiSdkHistory();
    const compactor = await outcome(async () => {
      const messages = await new Compactor(options("Compactor")).maybeCompact(history, { force: true });
      return messages.length < history.length;
    });
    const s = new Session(options("Session"));
    s.append(aiSdkHistory());
    const session = await outcome(async () => {
      const before = s.entries().length;
      await s.prepare({ force: true });
      return s.entries().length > before;
    });
    assert.equal(session, compactor, onFailure);
    assert.equal(compactor, { reject: "SUMMARIZER_FAILED", unchanged: "unchanged" }[onFailure] ?? "compacted", onFailure);
    assert.deepEqual(seen.Session, seen.Compactor, onFailure);
  }
});
