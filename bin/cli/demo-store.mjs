// The demo's last step: the same conversation kept in the embedded store (SQLite through
// better-sqlite3; the JSONL file store where that optional package is not installed), turn by turn
// as a chat server keeps it: each turn opened from the store, appended, committed, compacted when
// due. Then a fresh open reads only the live lines.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Session } from "context-compaction";

async function embeddedStore(dir) {
  try {
    const { sqliteStore } = await import("context-compaction/sqlite");
    return { name: "sqlite", store: sqliteStore({ path: join(dir, "demo.db") }) };
  } catch {
    const { fileStore } = await import("context-compaction/file");
    return { name: "file", store: fileStore({ dir }) };
  }
}

/** Turns of `messages`: each starts at a user message. */
function turnsOf(messages) {
  const turns = [];
  for (const m of messages) {
    if (m?.role === "user" || turns.length === 0) turns.push([]);
    turns.at(-1).push(m);
  }
  return turns;
}

/**
 * Replays `messages` (in `format`) into a stored conversation with `options` (the demo's
 * Compactor options); returns what the store holds and what a fresh open reads.
 */
export async function storeDemo(messages, format, options) {
  const dir = mkdtempSync(join(tmpdir(), "context-compaction-demo-"));
  const { name, store } = await embeddedStore(dir);
  const opts = { ...options, format, summarize: "extractive" };
  try {
    let compactions = 0;
    for (const turn of turnsOf(messages)) {
      const session = await Session.open(store, "demo", opts);
      session.append(turn);
      const before = session.check().tokens;
      await session.prepare();
      if (session.check().tokens < before) compactions += 1;
      await session.commit();
      session.free();
    }
    const all = await store.read("demo", 0);
    const live = await store.load("demo");
    const reopened = await Session.open(store, "demo", opts);
    const tokens = reopened.check().tokens;
    reopened.free();
    return { store: name, turns: turnsOf(messages).length, compactions, lines: all.lines.length, loaded: live.lines.length, tokens };
  } finally {
    await store.close?.();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function formatStoreDemo(r) {
  return [
    `store        ${r.store} (embedded, no server), one Session.open + commit per turn`,
    `turns        ${r.turns}, compacted ${r.compactions} times under the store's lease`,
    `log          ${r.lines} lines kept (append-only, for audit and branching)`,
    `a fresh open reads ${r.loaded} of them: the live context, ${r.tokens} tokens`,
  ].join("\n");
}
