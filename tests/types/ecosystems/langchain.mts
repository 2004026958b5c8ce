// Type-checked: the LangChain.js user's view, without a single cast.
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { CompactResult, LangChainMessage } from "context-compaction";
import { convertMessages, validateMessages } from "context-compaction";
import { Compactor, compactionMiddleware, toBaseMessages, trimMessages } from "context-compaction/langchain";
import { createAgent, fakeModel } from "langchain";

const history: BaseMessage[] = [
  new SystemMessage("Be brief."),
  new HumanMessage("List the files."),
  new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "ls", args: {} }] }),
  new ToolMessage({ content: "a.ts b.ts", tool_call_id: "c1" }),
];
const compactor = new Compactor({ contextWindow: 128_000, summarize: async ({ prompt }) => prompt });
const next: BaseMessage[] = await compactor.maybeCompact(history);
const result: CompactResult<BaseMessage> = await compactor.compact(history);
const trimmed: BaseMessage[] = trimMessages(history, { maxTokens: 1_000, startOn: "human", tokenCounter: "o200k_base" });
const plain: LangChainMessage[] = convertMessages(history, { to: "langchain" });
const revived: BaseMessage[] = toBaseMessages(plain);
const valid: boolean = validateMessages(history).length === 0;

// The createAgent middleware, with LangChain's option names.
const agent = createAgent({
  model: "openai:gpt-4o",
  tools: [],
  middleware: [
    compactionMiddleware({ model: "openai:gpt-4o-mini", trigger: [{ fraction: 0.8 }, { messages: 200 }], keep: { messages: 20 } }),
    compactionMiddleware({ contextWindow: 200_000, summarize: ({ prompt }) => prompt, keep: { tokens: 20_000 } }),
  ],
});
const model = fakeModel();

export { next, result, trimmed, revived, valid, agent, model };
