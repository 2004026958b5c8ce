// The LangChain.js side of `context-compaction/langchain`: the package's API with LangChain
// messages in and out. Kept messages are the caller's own `BaseMessage` objects; a summary or a
// changed message (a pruned tool output) comes back from the core in LangChain's plain form and is
// made a real message here (`coerceMessageLikeToMessage`). No policy lives here: the cut, the
// summary and the trim are the core's. The build turns this file into CommonJS for the Node entry.

// LangChain's `trigger` / `keep` sizes (`{ fraction | tokens | messages }`, several keys all
// required, an array of them any one) as the package's trigger.
function triggerOf(size) {
  if (size === undefined) return undefined;
  if (Array.isArray(size)) return { anyOf: size.map(triggerOf) };
  const parts = Object.entries(size)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ({ [k]: v }));
  return parts.length === 1 ? parts[0] : { allOf: parts };
}

function textOf(message) {
  if (typeof message.text === "string") return message.text;
  return typeof message.content === "string" ? message.content : "";
}

export function makeLangChain(cc, lc, agents) {
  const revive = (m) => (lc.isBaseMessage(m) ? m : lc.coerceMessageLikeToMessage(m));
  const toBaseMessages = (messages) => messages.map(revive);

  /** A Compactor whose results are `BaseMessage` objects. */
  class Compactor extends cc.Compactor {
    async compact(messages, options) {
      const result = await super.compact(messages, options);
      return { ...result, messages: toBaseMessages(result.messages), removed: toBaseMessages(result.removed) };
    }

    async maybeCompact(messages, options) {
      const out = await super.maybeCompact(messages, options);
      return out === messages ? out : toBaseMessages(out);
    }

    prune(messages) {
      return toBaseMessages(super.prune(messages));
    }

    trim(messages, options) {
      return toBaseMessages(super.trim(messages, options));
    }
  }

  /** LangChain's `trimMessages`, on the package's counting: the kept messages as `BaseMessage`s. */
  function trimMessages(messages, options) {
    const { tokenCounter, ...rest } = options ?? {};
    const named = typeof tokenCounter === "string" && ["heuristic", "o200k_base", "cl100k_base"].includes(tokenCounter);
    const given = named ? { ...rest, tokenizer: tokenCounter } : tokenCounter === undefined ? rest : options;
    return toBaseMessages(cc.trimMessages(messages, given));
  }

  /**
   * A middleware for LangChain's `createAgent`, shaped like its `summarizationMiddleware`: before
   * each model call the agent's messages are compacted (`maybeCompact`) and the state is replaced
   * by the compacted ones, with this package's cut guarantees.
   */
  function compactionMiddleware(options) {
    if (!agents) {
      throw new cc.CompactionError("compactionMiddleware needs the `langchain` package (createAgent): npm install langchain", "INVALID_OPTIONS");
    }
    const { model, trigger, keep, summaryPrompt, ...rest } = options ?? {};
    let chat;
    const chatModel = async () => {
      chat ??= typeof model === "string" ? await agents.initChatModel(model) : model;
      return chat;
    };
    const summarize =
      rest.summarize ??
      (model === undefined
        ? undefined
        : async (req) => {
            const m = await chatModel();
            const system = summaryPrompt ?? req.system;
            const answer = await m.invoke([new lc.SystemMessage(system), new lc.HumanMessage(req.prompt)], { signal: req.signal });
            return textOf(answer);
          });
    // The window: given, or the chat model's profile, or the model table by the model's name.
    const profile = typeof model === "object" && model !== null ? model.profile : undefined;
    const contextWindow = rest.contextWindow ?? profile?.maxInputTokens;
    const modelName = contextWindow === undefined && typeof model === "string" ? model.split(":").pop() : undefined;
    const keepOptions =
      keep === undefined
        ? {}
        : keep.messages !== undefined
          ? { strategy: { type: "sliding-window", keep: keep.messages, summarize: true } }
          : keep.tokens !== undefined
            ? { keepRecentTokens: keep.tokens }
            : keep.fraction !== undefined && contextWindow !== undefined
              ? { keepRecentTokens: Math.floor(keep.fraction * contextWindow) }
              : {};
    const { conversationId, store, leaseMs, compactionWaitMs, holder, ...compactorRest } = rest;
    const saving = { store, leaseMs, compactionWaitMs, holder };
    // A call whose conversation the function does not name is compacted as without a store.
    const make = (id) =>
      new Compactor({
        ...compactorRest,
        ...(id === undefined && typeof conversationId === "function" ? {} : { ...saving, conversationId: id }),
        ...(contextWindow === undefined ? {} : { contextWindow }),
        ...(modelName === undefined ? {} : { model: modelName }),
        ...(trigger === undefined ? {} : { trigger: triggerOf(trigger) }),
        ...keepOptions,
        summarize,
      });
    // With a store, `conversationId` may name each call's conversation from the agent's state and
    // runtime (a thread id): one Compactor per conversation, the last 1,000 kept.
    const single = typeof conversationId === "function" ? undefined : make(conversationId);
    const byId = new Map();
    const compactorFor = (state, runtime) => {
      if (single) return single;
      const id = conversationId(state, runtime);
      let c = byId.get(id);
      if (c) byId.delete(id);
      else c = make(typeof id === "string" && id !== "" ? id : undefined);
      byId.set(id, c);
      if (byId.size > 1000) byId.delete(byId.keys().next().value);
      return c;
    };
    return agents.createMiddleware({
      name: "CompactionMiddleware",
      beforeModel: async (state, runtime) => {
        const out = await compactorFor(state, runtime).maybeCompact(state.messages);
        if (out === state.messages) return undefined;
        return { messages: [new lc.RemoveMessage({ id: agents.REMOVE_ALL_MESSAGES }), ...out] };
      },
    });
  }

  return { Compactor, trimMessages, toBaseMessages, compactionMiddleware };
}
