// postgresStore: the store contract (contract.d.ts) on PostgreSQL through node-postgres (`pg`, an
// optional peer dependency loaded only when the store opens its own pool). Three tables: one row
// per conversation (header, version, live set as sequence numbers), one row per entry keyed by
// (conversation, seq), one row per lease. An append is one transaction guarded by a
// compare-and-set on the version; leases expire by the server's clock.
import { createRequire } from "node:module";
import { checkAppend, checkId, checkLease } from "./checks.mjs";

const quote = (name) => `"${name.replaceAll('"', '""')}"`;

/**
 * A store that keeps conversations in PostgreSQL.
 * @param {{ pool?: { connect(): Promise<any> }, connectionString?: string, schema?: string, tablePrefix?: string }} options
 */
export function postgresStore(options) {
  if (options === null || typeof options !== "object") throw new TypeError("postgresStore: options must be an object");
  const { schema = "public", tablePrefix = "cc_" } = options;
  if (typeof schema !== "string" || schema === "" || schema.length > 63) {
    throw new TypeError("postgresStore: schema must be a non-empty string of at most 63 characters");
  }
  if (typeof tablePrefix !== "string" || !/^[A-Za-z0-9_]{0,40}$/.test(tablePrefix)) {
    throw new TypeError("postgresStore: tablePrefix must be at most 40 letters, digits or underscores");
  }
  let pool = options.pool;
  let ownPool = false;
  if (pool !== undefined) {
    if (pool === null || typeof pool.connect !== "function") throw new TypeError("postgresStore: options.pool must have a connect() method");
    if (options.connectionString !== undefined) throw new TypeError("postgresStore: pass either options.pool or options.connectionString");
  } else if (typeof options.connectionString === "string") {
    pool = new (loadPg().Pool)({ connectionString: options.connectionString });
    // An idle client whose connection drops is dropped by the pool; without a listener the
    // pool's "error" event would end the process.
    pool.on("error", () => {});
    ownPool = true;
  } else {
    throw new TypeError("postgresStore: options.pool or options.connectionString is required");
  }

  const table = (name) => `${quote(schema)}.${quote(tablePrefix + name)}`;
  const conversations = table("conversations");
  const entries = table("entries");
  const leases = table("leases");
  const entryIdConstraint = `${tablePrefix}entries_entry_id`;

  /**
   * Runs `fn` with a client of the pool and always gives the client back; a client whose
   * connection failed goes back with the error, so that the pool discards it.
   */
  async function withClient(fn) {
    const client = await pool.connect();
    let broken;
    const onError = (err) => { broken ??= err; };
    client.on?.("error", onError);
    try {
      return await fn(client, (err) => { broken ??= err; });
    } catch (err) {
      // Errors without a SQLSTATE (other than this store's own) come from the connection.
      if (!(err instanceof TypeError) && !/^[0-9A-Z]{5}$/.test(err?.code ?? "")) broken ??= err;
      throw err;
    } finally {
      // A broken client keeps the listener: a late error event must not end the process.
      if (!broken) client.removeListener?.("error", onError);
      client.release(broken);
    }
  }

  /** Runs `fn(client)` inside a transaction; rolls back when it throws or returns `rollback`. */
  async function transaction(client, markBroken, fn) {
    await client.query("BEGIN");
    try {
      const result = await fn();
      await client.query(result?.rollback ? "ROLLBACK" : "COMMIT");
      return result;
    } catch (err) {
      // After a connection error ROLLBACK fails, and the server discards the open transaction.
      try {
        await client.query("ROLLBACK");
      } catch (rollbackErr) {
        markBroken(rollbackErr);
      }
      throw err;
    }
  }

  let ready = null;
  /** Creates the schema and tables once; several processes may race to do it. */
  function ensureSchema() {
    ready ??= withClient(async (client, markBroken) => {
      const names = [conversations, entries, leases];
      const found = await client.query("SELECT to_regclass($1) AS a, to_regclass($2) AS b, to_regclass($3) AS c", names);
      if (Object.values(found.rows[0]).every((v) => v !== null)) return;
      await transaction(client, markBroken, async () => {
        // Concurrent CREATE ... IF NOT EXISTS can still collide in the catalogs: serialize them.
        await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`context-compaction:${schema}.${tablePrefix}`]);
        const hasSchema = await client.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema]);
        if (hasSchema.rowCount === 0) await client.query(`CREATE SCHEMA IF NOT EXISTS ${quote(schema)}`);
        await client.query(`
          CREATE TABLE IF NOT EXISTS ${conversations} (
            id text PRIMARY KEY,
            header text NOT NULL,
            version bigint NOT NULL,
            live_from bigint,
            live_carry bigint[] NOT NULL DEFAULT '{}'
          );
          CREATE TABLE IF NOT EXISTS ${entries} (
            conversation_id text NOT NULL REFERENCES ${conversations} (id) ON DELETE CASCADE,
            seq bigint NOT NULL,
            entry_id text NOT NULL,
            line text NOT NULL,
            CONSTRAINT ${quote(`${tablePrefix}entries_pkey`)} PRIMARY KEY (conversation_id, seq),
            CONSTRAINT ${quote(entryIdConstraint)} UNIQUE (conversation_id, entry_id)
          );
          CREATE TABLE IF NOT EXISTS ${leases} (
            conversation_id text PRIMARY KEY,
            holder text NOT NULL,
            expires_at timestamptz NOT NULL
          )`);
      });
    }).catch((err) => {
      ready = null;
      throw err;
    });
    return ready;
  }

  /** Runs one statement on a client of the pool, once the tables exist. */
  async function query(text, values) {
    await ensureSchema();
    return withClient((client) => client.query(text, values));
  }

  /** `{ header, lines, version }` from rows of (seq, text, version) whose first row is the header. */
  function toLog(rows) {
    // Number(): int8 comes back as a string, unless the application set a type parser for it.
    if (rows.length === 0 || Number(rows[0].seq) !== -1) return null;
    const lines = new Array(rows.length - 1);
    for (let i = 1; i < rows.length; i++) lines[i - 1] = rows[i].text;
    return { header: rows[0].text, lines, version: Number(rows[0].version) };
  }

  return {
    async load(conversationId) {
      checkId(conversationId);
      // One statement, so one snapshot: the version and the lines agree. Both entry scans go by
      // the (conversation_id, seq) key: carried seqs before `live_from`, then `live_from` on.
      const { rows } = await query(
        `WITH c AS (SELECT header, version, coalesce(live_from, 0) AS f, live_carry FROM ${conversations} WHERE id = $1)
         SELECT -1::bigint AS seq, header AS text, version FROM c
         UNION ALL
         SELECT e.seq, e.line, NULL FROM c JOIN ${entries} e
           ON e.conversation_id = $1 AND e.seq = ANY (c.live_carry) AND e.seq < c.f
         UNION ALL
         SELECT e.seq, e.line, NULL FROM c JOIN ${entries} e ON e.conversation_id = $1 AND e.seq >= c.f
         ORDER BY 1`,
        [conversationId],
      );
      return toLog(rows);
    },

    async append(conversationId, batch, expectedVersion) {
      checkId(conversationId);
      checkAppend(batch, expectedVersion);
      await ensureSchema();
      const ids = batch.lines.map((l) => l.id);
      const lines = batch.lines.map((l) => l.line);
      const current = async (client) => {
        const { rows } = await client.query(`SELECT version FROM ${conversations} WHERE id = $1`, [conversationId]);
        return rows.length === 0 ? null : Number(rows[0].version);
      };
      return withClient(async (client, markBroken) => {
        const result = await transaction(client, markBroken, async () => {
          // The compare-and-set: the row lock it takes orders concurrent appends, and a loser sees
          // the winner's version once it has committed.
          const cas = expectedVersion === 0 && typeof batch.header === "string"
            ? await client.query(
              `INSERT INTO ${conversations} AS c (id, header, version) VALUES ($1, $2, $3)
               ON CONFLICT (id) DO UPDATE SET version = EXCLUDED.version WHERE c.version = 0 RETURNING version`,
              [conversationId, batch.header, ids.length],
            )
            : await client.query(
              `UPDATE ${conversations} SET version = version + $3 WHERE id = $1 AND version = $2 RETURNING version`,
              [conversationId, expectedVersion, ids.length],
            );
          if (cas.rowCount === 0) {
            const version = await current(client);
            if (version === null && expectedVersion === 0) throw new TypeError("append: a new conversation needs batch.header");
            return { rollback: true, ok: false, version: version ?? 0 };
          }
          if (ids.length > 0) {
            await client.query(
              `INSERT INTO ${entries} (conversation_id, seq, entry_id, line)
               SELECT $1, $2::bigint + t.n - 1, t.entry_id, t.line FROM unnest($3::text[], $4::text[]) WITH ORDINALITY AS t(entry_id, line, n)`,
              [conversationId, expectedVersion, ids, lines],
            );
          }
          if (batch.live) {
            // Ids resolve to seqs now (they may name lines of this batch); an unknown `from` means
            // the whole log, unknown carried ids are dropped.
            await client.query(
              `UPDATE ${conversations} SET
                 live_from = (SELECT seq FROM ${entries} WHERE conversation_id = $1 AND entry_id = $2),
                 live_carry = ARRAY(SELECT seq FROM ${entries} WHERE conversation_id = $1 AND entry_id = ANY ($3::text[]) ORDER BY seq)
               WHERE id = $1`,
              [conversationId, batch.live.from, batch.live.carry],
            );
          }
          return { ok: true, version: Number(cas.rows[0].version) };
        }).catch((err) => {
          if (err?.code === "23505" && err.constraint === entryIdConstraint) {
            throw new TypeError(`append: an entry id of the batch is already in conversation "${conversationId}"`, { cause: err });
          }
          throw err;
        });
        return { ok: result.ok, version: result.version };
      });
    },

    async read(conversationId, fromVersion) {
      checkId(conversationId);
      const from = fromVersion > 0 ? Math.min(Math.trunc(fromVersion), Number.MAX_SAFE_INTEGER) : 0;
      const { rows } = await query(
        `SELECT -1::bigint AS seq, header AS text, version FROM ${conversations} WHERE id = $1
         UNION ALL
         SELECT seq, line, NULL FROM ${entries} WHERE conversation_id = $1 AND seq >= $2
         ORDER BY 1`,
        [conversationId, from],
      );
      return toLog(rows);
    },

    async acquireLease(conversationId, holder, ttlMs) {
      checkId(conversationId);
      checkLease(holder, ttlMs);
      // One statement: a free, expired or own lease is taken; a live lease of another holder
      // leaves the row alone and returns nothing. The server's clock decides.
      const { rowCount } = await query(
        `INSERT INTO ${leases} AS l (conversation_id, holder, expires_at)
         VALUES ($1, $2, now() + $3::float8 * interval '1 millisecond')
         ON CONFLICT (conversation_id) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
         WHERE l.holder = EXCLUDED.holder OR l.expires_at <= now()
         RETURNING holder`,
        [conversationId, holder, ttlMs],
      );
      return rowCount === 1;
    },

    async releaseLease(conversationId, holder) {
      checkId(conversationId);
      await query(`DELETE FROM ${leases} WHERE conversation_id = $1 AND holder = $2`, [conversationId, holder]);
    },

    async leaseHolder(conversationId) {
      checkId(conversationId);
      const { rows } = await query(`SELECT holder FROM ${leases} WHERE conversation_id = $1 AND expires_at > now()`, [conversationId]);
      return rows.length === 0 ? null : rows[0].holder;
    },

    async close() {
      if (!ownPool) return;
      ownPool = false;
      await pool.end();
    },
  };
}

/** node-postgres, loaded on first need so that it stays an optional dependency. */
function loadPg() {
  try {
    return createRequire(import.meta.url)("pg");
  } catch (err) {
    throw new Error('postgresStore: the "pg" package is needed for options.connectionString (npm install pg)', { cause: err });
  }
}
