// Runs the store contract's cases (cases.mjs) against one store under node:test: each store's
// test file calls `conformance(name, open)` with a function that opens a fresh store.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { contractCases } from "./cases.mjs";

/**
 * Registers the contract's tests for one store.
 * @param {string} name the store's name in test titles
 * @param {() => Promise<import("../../../js/stores/contract").ConversationStore>} open a fresh store
 */
export function conformance(name, open) {
  describe(`store contract: ${name}`, () => {
    for (const [title, run] of contractCases(assert)) {
      it(title, async () => {
        const store = await open();
        try {
          await run(store);
        } finally {
          await store.close?.();
        }
      });
    }
  });
}
