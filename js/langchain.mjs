// `context-compaction/langchain` (ES module): LangChain.js messages in and out, and a middleware for
// `createAgent` when the `langchain` package is installed.
import * as lc from "@langchain/core/messages";
import * as cc from "context-compaction";
import { makeLangChain } from "./langchain-adapter.mjs";

const agents = await Promise.all([import("langchain"), import("@langchain/langgraph")]).then(
  ([langchain, langgraph]) => ({
    createMiddleware: langchain.createMiddleware,
    initChatModel: langchain.initChatModel,
    REMOVE_ALL_MESSAGES: langgraph.REMOVE_ALL_MESSAGES,
  }),
  () => undefined,
);

export const { Compactor, trimMessages, toBaseMessages, compactionMiddleware } = makeLangChain(cc, lc, agents);
