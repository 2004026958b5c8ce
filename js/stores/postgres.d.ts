// The PostgreSQL store: the store contract (contract.d.ts) on node-postgres (`pg`), an optional
// peer dependency needed only when the store opens its own pool from a connection string.
import type { ConversationStore } from "./contract.js";

/** A client checked out of a pool: what the store calls on it. */
export interface PostgresPoolClient {
  /** Runs one SQL statement with `$1`-style parameters; resolves to its rows and row count. */
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
  /** Gives the client back; an error means its connection failed and the pool should discard it. */
  release(err?: Error): void;
  /** Node-postgres clients: the store listens for connection errors while it holds the client. */
  on?(event: "error", listener: (err: Error) => void): unknown;
  /** Removes the listener `on` added. */
  removeListener?(event: "error", listener: (err: Error) => void): unknown;
}

/** A connection pool, such as a node-postgres `Pool`: anything whose `connect()` lends a client. */
export interface PostgresPool {
  /** Checks a client out of the pool. */
  connect(): Promise<PostgresPoolClient>;
}

/** Where the PostgreSQL store connects, and where its tables live. */
export type PostgresStoreOptions = (
  | {
      /**
       * A pool to use (a node-postgres `Pool`, or anything with `connect()`); the store never ends
       * it: `close()` leaves it to its owner.
       */
      pool: PostgresPool;
      /** Not with `pool`. */
      connectionString?: never;
    }
  | {
      /**
       * A connection string such as `postgres://user@host:5432/db`: the store loads `pg`, opens a
       * pool of its own and ends it in `close()`.
       */
      connectionString: string;
      /** Not with `connectionString`. */
      pool?: never;
    }
) & {
  /** The schema of the tables, created if missing. Default `"public"`. */
  schema?: string;
  /**
   * Prefixes the names of the three tables (`conversations`, `entries`, `leases`): letters,
   * digits and underscores, at most 40. Default `"cc_"`.
   */
  tablePrefix?: string;
};

/**
 * A store that keeps conversations in PostgreSQL: one transaction per append, with a
 * compare-and-set on the conversation's version, so that several processes can share a
 * conversation; leases expire by the database server's clock. The tables are created on first use.
 */
export function postgresStore(options: PostgresStoreOptions): ConversationStore;
