// `Session.open(store, conversationId, options)`: a Session whose log lives in a store that several
// processes share (js/stores/contract.d.ts). The rules are the core's (core::session::shared):
// which lines a load needs, how lines another process stored are merged before this one's, which
// pending entries a lost race drops. This file runs the steps: load, compare-and-set appends,
// reads after a conflict, and the compaction lease, so that one process at a time writes a summary
// and a process that dies holding it loses it when it expires.
// The build turns this file into CommonJS for the Node entry (`pkg/node/stored-session.cjs`).

const LEASE_MS = 5 * 60_000;
const WAIT_MS = 60_000;
const ATTEMPTS = 50;
const STORE_KEYS = ["leaseMs", "compactionWaitMs", "holder"];

import { checkStoreOptions, randomTag, sleep, takeLease as leaseOf } from "./store-calls.mjs";

export function installStoredSession(Session, CompactionError) {
  const storeError = (what, error) =>
    error instanceof CompactionError
      ? error
      : new CompactionError(`the store failed to ${what}: ${error?.message ?? error}`, "STORE_FAILED", undefined, error);

  function checkArguments(store, conversationId, options) {
    if (options !== undefined && (options === null || typeof options !== "object")) {
      throw new CompactionError("options must be an object", "INVALID_OPTIONS", "options");
    }
    checkStoreOptions(store, options, CompactionError);
    if (typeof conversationId !== "string" || conversationId === "") {
      throw new CompactionError("the conversation id must be a non-empty string", "INVALID_INPUT", "conversationId");
    }
  }

  /**
   * Opens conversation `conversationId` of `store`: its live context from the latest compaction
   * on (the load costs O(live context)), or a new conversation.
   */
  Session.open = async function open(store, conversationId, options) {
    checkArguments(store, conversationId, options);
    const sessionOptions = { ...(options ?? {}) };
    for (const key of STORE_KEYS) delete sessionOptions[key];
    let loaded;
    try {
      loaded = await store.load(conversationId);
    } catch (error) {
      throw storeError("load the conversation", error);
    }
    const session = loaded
      ? Session.fromJSONL([loaded.header, ...loaded.lines].join("\n"), sessionOptions)
      : new Session({ sessionId: conversationId, ...sessionOptions });
    const tag = randomTag();
    session.__storeAttach(tag);
    const shared = {
      store,
      conversationId,
      version: loaded ? loaded.version : 0,
      holder: options?.holder ?? `${conversationId}:${tag}`,
      leaseMs: options?.leaseMs ?? LEASE_MS,
      waitMs: options?.compactionWaitMs ?? WAIT_MS,
      chain: Promise.resolve(),
      backgroundError: null,
    };
    attach(session, shared);
    return session;
  };

  // One store operation of a session at a time: commits never interleave.
  function serial(shared, step) {
    const run = shared.chain.then(step, step);
    shared.chain = run.catch(() => {});
    return run;
  }

  // Reads what others stored since this session's version and merges it.
  async function pull(session, shared) {
    let read;
    try {
      read = await shared.store.read(shared.conversationId, shared.version);
    } catch (error) {
      throw storeError("read the conversation", error);
    }
    if (!read) return { merged: 0, dropped: [] };
    const report = read.lines.length > 0 ? session.__storeMerge(read.header, read.lines) : { merged: 0, dropped: [] };
    shared.version = read.version;
    return report;
  }

  // Appends what the store does not hold, merging others' lines on a conflict.
  async function push(session, shared) {
    const result = { version: shared.version, appended: 0, merged: 0, dropped: [] };
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const pending = session.__storePending();
      const batch = { lines: pending.lines };
      if (pending.header !== undefined) batch.header = pending.header;
      if (pending.live !== undefined) batch.live = pending.live;
      if (batch.lines.length === 0 && batch.header === undefined && batch.live === undefined) {
        // Nothing to write: just catch up with the others.
        const report = await pull(session, shared);
        result.merged += report.merged;
        result.dropped.push(...report.dropped);
        result.version = shared.version;
        return result;
      }
      let answer;
      try {
        answer = await shared.store.append(shared.conversationId, batch, shared.version);
      } catch (error) {
        // Whether it was written is unknown: the next commit reads it back (entries the store
        // holds with this session's ids are not written twice).
        throw storeError("append", error);
      }
      if (answer.ok) {
        session.__storeMarked(batch.lines.length, pending.live !== undefined ? pending.liveEpoch : undefined);
        shared.version = answer.version;
        result.appended += batch.lines.length;
        result.version = shared.version;
        // Appended while the store answered: write those too.
        if (session.__storePending().lines.length === 0) return result;
        continue;
      }
      const report = await pull(session, shared);
      result.merged += report.merged;
      result.dropped.push(...report.dropped);
      // Under contention the writer that just won tends to win again: after a few lost races,
      // wait a random moment (growing, at most 50 ms) so that the others get their turn.
      if (attempt >= 2) await sleep(Math.random() * Math.min(50, 2 ** attempt));
    }
    throw new CompactionError(
      `the conversation kept changing: ${ATTEMPTS} appends in a row lost the race; commit again`,
      "CONFLICT",
    );
  }

  // Holds the lease for `run()`, renewing it; `run` gets a signal aborted if the lease is lost.
  async function withLease(shared, signal, run) {
    const { store, conversationId, holder, leaseMs } = shared;
    const lost = new AbortController();
    const renew = setInterval(async () => {
      try {
        if (!(await store.acquireLease(conversationId, holder, leaseMs))) lost.abort(new Error("lease lost"));
      } catch (error) {
        lost.abort(error);
      }
    }, Math.max(50, Math.floor(leaseMs / 3)));
    const combined = signal ? AbortSignal.any([signal, lost.signal]) : lost.signal;
    try {
      return await run(combined, lost.signal);
    } finally {
      clearInterval(renew);
      try {
        await store.releaseLease(conversationId, holder);
      } catch {
        // An unreleased lease expires by itself.
      }
    }
  }

  // Takes the lease, waiting up to `waitMs` while another process holds it. Returns whether this
  // session holds it, and whether it had to wait (another process compacted meanwhile).
  async function takeLease(shared, waitMs) {
    try {
      return await leaseOf(shared.store, shared.conversationId, shared.holder, shared.leaseMs, waitMs);
    } catch (error) {
      throw storeError("take the compaction lease", error);
    }
  }

  function attach(session, shared) {
    const compact = session.compact;
    const prepare = session.prepare;
    const conflictOf = (dropped) =>
      dropped.some((d) => d.type === "compaction")
        ? new CompactionError(
            "another process changed the conversation while the summary was written (a compaction or a prune); nothing was changed: compact again",
            "CONFLICT",
          )
        : null;

    // A compaction under the lease, committed to the store; its entries are dropped (CONFLICT)
    // if another process's change got there first.
    async function leasedCompact(options, run) {
      const signal = options?.signal;
      return withLease(shared, signal, async (combined) => {
        await serial(shared, () => pull(session, shared));
        const result = await run({ ...(options ?? {}), signal: combined });
        const pushed = await serial(shared, () => push(session, shared));
        const conflict = conflictOf(pushed.dropped);
        if (conflict) throw conflict;
        return result;
      });
    }

    Object.defineProperties(session, {
      /** The conversation's id in the store. */
      conversationId: { value: shared.conversationId, enumerable: true },
      /** The store's version this session has seen. */
      storeVersion: { get: () => shared.version, enumerable: true },
      commit: {
        value: function commit() {
          return serial(shared, () => push(session, shared));
        },
      },
      sync: {
        value: function sync() {
          return serial(shared, () => pull(session, shared));
        },
      },
      compactionHolder: {
        value: async function compactionHolder() {
          try {
            return await shared.store.leaseHolder(shared.conversationId);
          } catch (error) {
            throw storeError("read the compaction lease", error);
          }
        },
      },
      compact: {
        value: async function storedCompact(options) {
          await session.commit();
          const lease = await takeLease(shared, shared.waitMs);
          if (!lease.held) {
            throw new CompactionError(
              `another process has been compacting this conversation for over ${shared.waitMs} ms; nothing was changed`,
              "CONFLICT",
            );
          }
          if (lease.waited) {
            // Another process may have compacted meanwhile: compact again only if it is still due.
            // Past the background threshold counts as due: a compaction would have brought the
            // context under it, so the lease was left by a process that died (or did no good).
            await session.sync();
            const due = session.check();
            if (!due.shouldCompact && !due.background && !options?.force) {
              await shared.store.releaseLease(shared.conversationId, shared.holder).catch(() => {});
              const tokens = session.check().tokens;
              const warnings = ["another process compacted this conversation; it is under the trigger now"];
              return {
                compacted: false, summary: null, tokensBefore: tokens, tokensAfter: tokens, round: 0,
                splitTurn: false, digest: null, warnings, entryId: null, messages: session.render().messages, removed: [],
              };
            }
          }
          return leasedCompact(options, (o) => compact.call(session, o));
        },
      },
      prepare: {
        value: async function storedPrepare(options) {
          const opts = options ?? {};
          await session.commit();
          let check = session.check();
          if (check.shouldCompact || opts.force) {
            // Over the trigger: take the lease, waiting while another process compacts (up to
            // compactionWaitMs); after such a wait, compact only if still over the trigger.
            const lease = await takeLease(shared, shared.waitMs);
            if (lease.held) {
              if (lease.waited) await session.sync();
              if (!lease.waited || opts.force || session.check().shouldCompact) {
                return leasedCompact(opts, (o) => prepare.call(session, { ...o, background: false }));
              }
              await shared.store.releaseLease(shared.conversationId, shared.holder).catch(() => {});
              check = session.check();
            }
          }
          if (!check.shouldCompact && !opts.force && check.background && !session.isCompacting && opts.background !== false) {
            const lease = await takeLease(shared, 0);
            if (lease.held) {
              const running = leasedCompact({}, (o) => compact.call(session, o));
              running.catch((error) => {
                shared.backgroundError = error;
              });
            }
          }
          const result = await prepare.call(session, { ...opts, background: false });
          if (shared.backgroundError) {
            result.backgroundError ??= shared.backgroundError;
            shared.backgroundError = null;
          }
          return result;
        },
      },
    });
  }
}
