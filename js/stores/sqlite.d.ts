// The types of js/stores/sqlite.mjs: `sqliteStore`, the store contract on SQLite through
// better-sqlite3, and its options.
import type { ConversationStore } from "./contract.js";

/**
 * The parts of a better-sqlite3 `Database` the store uses; any better-sqlite3 12 database fits.
 * Declared here so that these types do not need `@types/better-sqlite3`.
 */
export interface SqliteDatabase {
  /** Compiles a statement. */
  prepare(source: string): unknown;
  /** Runs SQL text (the store's schema). */
  exec(source: string): unknown;
  /** Wraps a function in a transaction. */
  transaction(fn: (...args: any[]) => any): unknown;
}

/** The options of {@link sqliteStore}. */
export interface SqliteStoreOptions {
  /**
   * The database file, created if missing; `":memory:"` (the default) keeps everything in this
   * process. Ignored when `database` is given.
   */
  path?: string;
  /**
   * A database you opened yourself with better-sqlite3: the store uses it as you configured it
   * (journal mode, synchronous, busy timeout), creates its tables in it, and `close()` leaves it
   * open. Without it the store opens `path` itself, loading better-sqlite3 then.
   */
  database?: SqliteDatabase;
  /**
   * How long a write waits for another connection's lock before it fails with `SQLITE_BUSY`, in
   * milliseconds; 5000 by default. Applies to the connection the store opens, not to `database`.
   */
  busyTimeoutMs?: number;
  /**
   * The prefix of the store's table names (`<prefix>conversations`, `<prefix>entries`,
   * `<prefix>leases`): letters, digits and underscores; `"cc_"` by default.
   */
  tablePrefix?: string;
  /** The clock leases are given and expire by, in milliseconds; `Date.now` by default (tests). */
  now?: () => number;
}

/**
 * A store on a SQLite database: one file holds every conversation, and several processes may
 * share it (each write is one `BEGIN IMMEDIATE` transaction; a file database runs in WAL mode with
 * `synchronous = FULL`). `load` costs O(live context). Needs the optional peer `better-sqlite3`
 * unless `database` is given. Throws at once for a bad `tablePrefix` (a `TypeError`) or a database
 * it cannot open; the methods only ever reject.
 */
export declare function sqliteStore(options?: SqliteStoreOptions): ConversationStore;
