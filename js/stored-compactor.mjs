// `new Compactor({ ...options, store, conversationId })`: a stateless Compactor whose automatic
// compactions are saved in a store, so that a fresh Compactor (a new request, a new process, a
// serverless function) handed the same history plus new messages continues from the saved summary
// instead of summarizing again. What is saved and how a history is matched to it (how many leading
// messages the summary stands for and their content digest) is the core's (core::driver::memo);
// this file loads and appends the records and holds the store's lease while a summary is written,
// so that two requests of one conversation do not both summarize it.
// The build turns this file into CommonJS for the Node entry (`pkg/node/stored-compactor.cjs`).

const STORE_KEYS = ["store", "conversationId", "leaseMs", "compactionWaitMs", "holder"];
import { checkStoreOptions, randomTag, takeLease as leaseOf } from "./store-calls.mjs";

export function withStoredCompactor(Compactor, CompactionError) {
  const storeError = (what, error) =>
    new CompactionError(`the store failed to ${what}: ${error?.message ?? error}`, "STORE_FAILED", undefined, error);

  function check(options) {
    checkStoreOptions(options.store, options, CompactionError);
    if (typeof options.conversationId !== "string" || options.conversationId === "") {
      throw new CompactionError("a Compactor with a store needs a conversationId (a non-empty string)", "INVALID_OPTIONS", "conversationId");
    }
  }

  function attach(compactor, options) {
    const tag = randomTag();
    const shared = {
      store: options.store,
      id: options.conversationId,
      holder: options.holder ?? `${options.conversationId}:${tag}`,
      leaseMs: options.leaseMs ?? 5 * 60_000,
      waitMs: options.compactionWaitMs ?? 60_000,
      version: 0,
      recorded: compactor.__memoEpoch(),
      seq: 0,
      chain: Promise.resolve(),
    };
    const report = (error) => {
      if (typeof options.onError === "function") {
        try {
          options.onError(error);
          return;
        } catch {
          // fall through to the console
        }
      }
      console.warn(`context-compaction: ${error.message}`);
    };
    const serial = (step) => {
      const run = shared.chain.then(step, step);
      shared.chain = run.catch(() => {});
      return run;
    };

    // Reads the records saved since this Compactor last looked; continues from the latest.
    async function sync() {
      const read = shared.version === 0 ? await shared.store.load(shared.id) : await shared.store.read(shared.id, shared.version);
      if (!read) return false;
      const latest = read.lines.at(-1);
      if (latest !== undefined) compactor.__memoSeed(latest);
      shared.version = read.version;
      return latest !== undefined;
    }

    // Saves the latest automatic compaction made here, if there is a new one.
    async function record() {
      const epoch = compactor.__memoEpoch();
      if (epoch === shared.recorded) return;
      shared.seq += 1;
      const id = `m${epoch}.${tag}.${shared.seq}`;
      const line = compactor.__memoRecord(id);
      shared.recorded = epoch;
      if (line === undefined) return;
      for (let attempt = 0; attempt < 20; attempt++) {
        const batch = { lines: [{ id, line }], live: { from: id, carry: [] } };
        if (shared.version === 0) batch.header = compactor.__memoHeader();
        const answer = await shared.store.append(shared.id, batch, shared.version);
        if (answer.ok) {
          shared.version = answer.version;
          return;
        }
        // Another request saved one first: ours goes on top (each record stands on its own).
        shared.version = answer.version;
      }
      throw new CompactionError("the compactor's records kept changing; this compaction was not saved", "CONFLICT");
    }

    const takeLease = () => leaseOf(shared.store, shared.id, shared.holder, shared.leaseMs, shared.waitMs);

    const maybeCompact = compactor.maybeCompact;
    Object.defineProperties(compactor, {
      /** The conversation whose compactions this Compactor saves. */
      conversationId: { value: shared.id, enumerable: true },
      maybeCompact: {
        value: async function storedMaybeCompact(messages, callOptions) {
          // The store's failures never fail the call: the history is compacted (or not) as if
          // there were no store, and the failure goes to onError.
          try {
            await serial(sync);
          } catch (error) {
            report(storeError("read the saved compactions", error));
          }
          let lease = { held: false };
          try {
            if (compactor.__wouldCompact(messages)) {
              lease = await takeLease();
              // Another request compacted meanwhile: continue from its summary.
              if (lease.waited) await serial(sync);
            }
          } catch (error) {
            if (error instanceof CompactionError && error.code !== "STORE_FAILED") throw error;
            report(storeError("take the compaction lease", error));
          }
          try {
            const out = await maybeCompact.call(compactor, messages, callOptions);
            try {
              await serial(record);
            } catch (error) {
              report(error instanceof CompactionError ? error : storeError("save the compaction", error));
            }
            return out;
          } finally {
            if (lease.held) await shared.store.releaseLease(shared.id, shared.holder).catch(() => {});
          }
        },
      },
    });
  }

  const wrapped = new Proxy(Compactor, {
    construct(target, args, newTarget) {
      const [options, ...rest] = args;
      let stored = false;
      try {
        stored = options !== null && typeof options === "object" && STORE_KEYS.some((k) => options[k] !== undefined);
      } catch {
        // Unreadable options (a revoked Proxy): the guarded constructor reports them.
      }
      const through = newTarget === wrapped ? target : newTarget;
      if (!stored) return Reflect.construct(target, args, through);
      check(options);
      const plain = { ...options };
      for (const key of STORE_KEYS) delete plain[key];
      const compactor = Reflect.construct(target, [plain, ...rest], through);
      attach(compactor, options);
      return compactor;
    },
  });
  return wrapped;
}
