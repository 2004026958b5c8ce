// Declarations of js/stores/indexeddb.mjs: the store contract in the browser's IndexedDB, through
// the `idb` package (an optional peer dependency, imported as the bare "idb").
import type { ConversationStore } from "./contract.js";

/** Options of {@link indexedDBStore}. */
export interface IndexedDBStoreOptions {
  /**
   * The database's name; every tab of the origin that opens the same name shares its
   * conversations and leases. Default `"context-compaction"`.
   */
  readonly name?: string;
  /**
   * The IndexedDB factory. Default `globalThis.indexedDB`. It must belong to this realm (the
   * window's or worker's own, or one installed as the globals, like `fake-indexeddb/auto`): `idb`
   * recognizes requests and transactions by the global `IDBRequest` and `IDBTransaction`, and key
   * ranges are made with the global `IDBKeyRange`.
   */
  readonly indexedDB?: IDBFactory;
  /** The clock, in milliseconds, that leases expire by. Default `Date.now`. */
  readonly now?: () => number;
}

/**
 * A {@link ConversationStore} in an IndexedDB database: each append is one readwrite transaction
 * (the version check, the duplicate check and every line), so concurrent tabs serialize on it and a
 * tab closed mid-append leaves the whole batch or none of it. `load` reads O(live context) by key
 * ranges. The database opens on first use; `close` closes this store's connection (a later call
 * opens it again).
 */
export function indexedDBStore(options?: IndexedDBStoreOptions): ConversationStore;
