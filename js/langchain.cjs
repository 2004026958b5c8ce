"use strict";
// `context-compaction/langchain` (CommonJS): LangChain.js messages in and out, and a middleware for
// `createAgent` when the `langchain` package is installed.
const lc = require("@langchain/core/messages");
const cc = require("./node.cjs");
const { makeLangChain } = require("../pkg/node/langchain-adapter.cjs");

let agents;
try {
  const langchain = require("langchain");
  agents = {
    createMiddleware: langchain.createMiddleware,
    initChatModel: langchain.initChatModel,
    REMOVE_ALL_MESSAGES: require("@langchain/langgraph").REMOVE_ALL_MESSAGES,
  };
} catch {
  agents = undefined;
}

const api = makeLangChain(cc, lc, agents);
exports.Compactor = api.Compactor;
exports.trimMessages = api.trimMessages;
exports.toBaseMessages = api.toBaseMessages;
exports.compactionMiddleware = api.compactionMiddleware;
