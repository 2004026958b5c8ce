// The memory store against the contract.
import { memoryStore } from "../../../js/stores/memory.mjs";
import { conformance } from "./conformance.mjs";

conformance("memory", async () => memoryStore());
