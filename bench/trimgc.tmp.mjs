import { history } from "./workload.mjs";
import { trimMessages } from "../js/node.mjs";
const messages = history(1_000_000);
for (let i = 0; i < 5; i++) trimMessages(messages, { maxTokens: 100_000, format: "ai-sdk" });
globalThis.gc();
console.log("---- start");
const h0 = process.memoryUsage();
for (let i = 0; i < 20; i++) trimMessages(messages, { maxTokens: 100_000, format: "ai-sdk" });
console.log("---- end");
