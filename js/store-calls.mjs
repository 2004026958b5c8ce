// What the store-backed Session (stored-session.mjs) and Compactor (stored-compactor.mjs) share:
// the check that a store has the contract's methods and that the shared options are sound, a
// writer's random tag, and taking the compaction lease with a bounded wait.

const METHODS = ["load", "append", "read", "acquireLease", "releaseLease", "leaseHolder"];
const POLL_MS = 100;

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Six random characters of [a-z0-9]: tags a writer's entry ids and names it as a lease holder. */
export function randomTag() {
  const bytes = new Uint8Array(6);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => "abcdefghijklmnopqrstuvwxyz0123456789"[b % 36]).join("");
}

/** `INVALID_OPTIONS` unless `store` has the contract's methods and the lease options are sound. */
export function checkStoreOptions(store, options, CompactionError) {
  for (const m of METHODS) {
    if (!store || typeof store[m] !== "function") {
      throw new CompactionError(`the store must have a ${m}() method (see the store contract)`, "INVALID_OPTIONS", `store.${m}`);
    }
  }
  for (const key of ["leaseMs", "compactionWaitMs"]) {
    const v = options?.[key];
    if (v !== undefined && !(Number.isFinite(v) && v > 0 && v <= 2 ** 31 - 1)) {
      throw new CompactionError(`${key} must be a positive number of milliseconds`, "INVALID_OPTIONS", key);
    }
  }
  if (options?.holder !== undefined && (typeof options.holder !== "string" || options.holder === "")) {
    throw new CompactionError("holder must be a non-empty string", "INVALID_OPTIONS", "holder");
  }
}

/**
 * Takes conversation `id`'s compaction lease for `holder`, waiting up to `waitMs` while another
 * holder has it: `{ held, waited }` (`waited`: another process held it meanwhile).
 */
export async function takeLease(store, id, holder, leaseMs, waitMs) {
  const deadline = Date.now() + waitMs;
  let waited = false;
  for (;;) {
    if (await store.acquireLease(id, holder, leaseMs)) return { held: true, waited };
    if (Date.now() >= deadline) return { held: false, waited: true };
    waited = true;
    await sleep(POLL_MS);
  }
}
