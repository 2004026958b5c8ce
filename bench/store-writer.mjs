// The stores the store benchmark (bench/stores.mjs) opens, and its contention writer: a child
// process that writes one untimed turn to a conversation of its own (warm code, open connection),
// opens the shared conversation once (a cached session, as a long-lived server process holds it),
// then appends `turns` turns, committing each; `commit()` merges what the other writers
// stored first and retries by itself. It prints "ready" once its session is open and starts when
// its stdin closes, so that the parent starts every writer at once; it ends with one JSON line:
// commit latencies, failed compare-and-sets (conflicts), merged lines.
// Usage: node store-writer.mjs '<{ conf, id, writer, turns }>'
import { once } from "node:events";
import { createRequire } from "node:module";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { Session, memoryStore } from "../js/node.mjs";
import { sqliteStore } from "../js/stores/sqlite.mjs";
import { postgresStore } from "../js/stores/postgres.mjs";
import { redisStore } from "../js/stores/redis.mjs";
import { fileStore } from "../js/stores/file.mjs";
import { prng, step } from "./workload.mjs";

/** Session options of every benchmark session: a 200k window, pi's preset, a summarizer of no model. */
export const sessionOptions = {
  contextWindow: 200_000,
  preset: "pi",
  format: "ai-sdk",
  summarize: async (request) => `Summary of ${request.messages.length} messages (round ${request.round}): the user asked for fixes, the tests were run.`,
};

/** One chat turn of writer or run `who`: a user request, then an agent step (assistant tool calls, tool results). */
export function turnMessages(rand, who, n) {
  return [{ role: "user", content: `${who}, turn ${n}: fix the failing case and run the tests again.` }, ...step(rand, 500_000 + n)];
}

/**
 * Opens a store from a plain description (so that a child process can open the same one):
 * `{ kind: "memory" | "sqlite" | "sqlite-normal" | "postgres" | "redis" | "file", path?, url?, dir?, prefix? }`.
 * "sqlite" is the store's own connection (WAL, synchronous = FULL); "sqlite-normal" a better-sqlite3
 * database opened here with WAL and synchronous = NORMAL, handed to the store.
 * @returns {{ store: import("../js/stores/contract").ConversationStore, close: () => Promise<void> }}
 */
export function openStore(conf) {
  switch (conf.kind) {
    case "memory":
      return { store: memoryStore(), close: async () => {} };
    case "sqlite": {
      const store = sqliteStore({ path: conf.path });
      return { store, close: () => store.close() };
    }
    case "sqlite-normal": {
      const Database = createRequire(import.meta.url)("better-sqlite3");
      const db = new Database(conf.path, { timeout: 5000 });
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = NORMAL");
      return { store: sqliteStore({ database: db }), close: async () => db.close() };
    }
    case "postgres": {
      const store = postgresStore({ connectionString: conf.url, tablePrefix: conf.prefix });
      return { store, close: () => store.close() };
    }
    case "redis": {
      const store = redisStore({ url: conf.url, prefix: conf.prefix });
      return { store, close: () => store.close() };
    }
    case "file": {
      const store = fileStore({ dir: conf.dir });
      return { store, close: async () => {} };
    }
    default:
      throw new Error(`unknown store kind ${conf.kind}`);
  }
}

/** The child: appends its turns, then prints its figures. */
async function writer({ conf, id, writer: w, turns }) {
  const { store, close } = openStore(conf);
  let conflicts = 0;
  const counted = {
    ...store,
    async append(...args) {
      const result = await store.append(...args);
      if (!result.ok) conflicts++;
      return result;
    },
  };
  const rand = prng(1000 + w);
  const warm = await Session.open(store, `${id}-warm-${w}`, sessionOptions);
  warm.append(turnMessages(prng(w), `Warm-up ${w}`, 0));
  await warm.commit();
  warm.free();
  const session = await Session.open(counted, id, sessionOptions);
  console.log("ready");
  await once(process.stdin.resume(), "end");
  const latencies = [];
  let merged = 0;
  let retried = 0;
  for (let t = 0; t < turns; t++) {
    session.append(turnMessages(rand, `Writer ${w}`, t));
    const t0 = performance.now();
    for (;;) {
      try {
        merged += (await session.commit()).merged;
        break;
      } catch (error) {
        // 50 lost races in a row: a server would commit again, so does this writer.
        if (error?.code !== "CONFLICT") throw error;
        retried++;
      }
    }
    latencies.push(performance.now() - t0);
  }
  session.free();
  await close();
  console.log(JSON.stringify({ latencies, conflicts, merged, retried }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await writer(JSON.parse(process.argv[2]));
