// The LangChain.js side of `context-compaction/langchain`: the package's API with LangChain
// messages in and out. Kept messages are the caller's own `BaseMessage` objects; a summary or a
// changed message (a pruned tool output) comes back from the core in LangChain's plain form and is
// made a real message here (`coerceMessageLikeToMessage`). No policy lives here: the cut, the
// summary and the trim are the core's; the middleware only writes LangChain's `trigger` and `keep`
// as the package's options with the same meaning. Given neither `model` nor `summarize`, the
// middleware summarizes with the agent's own model: it compacts in `wrapModelCall`, where the
// model call is at hand, and a continuing summary request is that call (the agent's system prompt
// and tools) with the conversation the model last saw and the instruction (docs/cost.md). The
// build turns this file into CommonJS for the Node entry.

// LangChain's `trigger` sizes (`{ fraction | tokens | messages }`, several keys all required, an
// array of them any one) as the package's trigger, with summarizationMiddleware's comparisons:
// `tokens >= n`, `messages.length >= n`, `tokens >= floor(window × fraction)` (a fraction is left
// to the package's own rule when the window is not known here).
function triggerOf(size, window) {
  if (size === undefined) return undefined;
  if (Array.isArray(size)) return { anyOf: size.map((s) => triggerOf(s, window)) };
  if (size === null || typeof size !== "object") return size;
  const parts = Object.entries(size)
    .filter(([, v]) => v !== undefined)
    .map(([key, value]) => {
      if (key === "fraction" && window !== undefined && typeof value === "number" && value > 0 && value <= 1) {
        return { tokens: Math.floor(window * value) };
      }
      // The package's `{ messages: n }` fires above n messages.
      if (key === "messages" && Number.isInteger(value) && value > 0) return { messages: value - 1 };
      return { [key]: value };
    });
  return parts.length === 1 ? parts[0] : { allOf: parts };
}

const usesFraction = (size) => (Array.isArray(size) ? size.some(usesFraction) : size?.fraction !== undefined);

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
   * A middleware for LangChain's `createAgent` that takes its `summarizationMiddleware`'s options
   * with their meaning: before each model call the agent's messages are compacted (`maybeCompact`)
   * and the state is replaced by the compacted ones, with this package's cut guarantees.
   */
  // LangChain's `keep` (exactly one of `messages`, `tokens`, `fraction`) as the package's strategy:
  // the last N messages or the longest tail within N tokens, a cut on a tool result moved back to
  // its call (summarizationMiddleware's rule), the messages before the cut summarized.
  function keepOf(keep, window, turnBoundary) {
    if (keep === undefined) return {};
    const bad = (message, path) => new cc.CompactionError(message, "INVALID_OPTIONS", path);
    if (keep === null || typeof keep !== "object" || Array.isArray(keep)) throw bad("keep must be an object: { messages } | { tokens } | { fraction }", "keep");
    const given = Object.entries(keep).filter(([, v]) => v !== undefined);
    if (given.length !== 1) throw bad("keep takes exactly one of messages, tokens, fraction", "keep");
    const [[key, value]] = given;
    if (!["messages", "tokens", "fraction"].includes(key)) throw bad(`unknown keep size "${key}" (expected messages, tokens or fraction)`, `keep.${key}`);
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || (key === "fraction" && value > 1)) {
      throw bad(`keep.${key} must be a ${key === "fraction" ? "number from 0 to 1" : "non-negative number"}`, `keep.${key}`);
    }
    if (key === "messages") {
      return { strategy: { type: "sliding-window", keep: value, summarize: true }, turnBoundary: turnBoundary ?? "split" };
    }
    if (key === "fraction" && window === undefined) {
      throw bad("keep.fraction needs the model's input window: give contextWindow, or a model whose profile has maxInputTokens", "keep.fraction");
    }
    const tokens = key === "tokens" ? value : window * value;
    return { strategy: { type: "token-window", maxTokens: Math.max(1, Math.floor(tokens)), summarize: true } };
  }

  /**
   * A middleware for LangChain's `createAgent` that takes its `summarizationMiddleware`'s options
   * with their meaning: before each model call the agent's messages are compacted (`maybeCompact`)
   * and the state is replaced by the compacted ones, with this package's cut guarantees.
   */
  function compactionMiddleware(options) {
    if (!agents) {
      throw new cc.CompactionError("compactionMiddleware needs the `langchain` package (createAgent): npm install langchain", "INVALID_OPTIONS");
    }
    const { model, trigger, keep, summaryPrompt, ...rest } = options ?? {};
    // No summarizer named: the agent's model writes the summary, continuing the conversation.
    const sameModel = model === undefined && rest.summarize === undefined;
    let current = null;
    let turn = Promise.resolve();
    // One compaction at a time, each with its own model call (`current`).
    const serialized = (call, run) => {
      const mine = turn.then(() => {
        current = call;
        return run();
      });
      turn = mine.then(
        () => undefined,
        () => undefined,
      );
      return mine;
    };
    const agentSummarize = async (req) => {
      const { request, handler } = current;
      if (req.mode === "continue") {
        const messages = [...toBaseMessages(req.conversation), new lc.HumanMessage(req.instruction)];
        return textOf(await handler({ ...request, messages }));
      }
      const { systemPrompt, ...call } = request;
      const messages = [new lc.HumanMessage(req.prompt)];
      return textOf(await handler({ ...call, systemMessage: new lc.SystemMessage(req.system), messages, tools: [] }));
    };
    let chat;
    const chatModel = async () => {
      chat ??= typeof model === "string" ? await agents.initChatModel(model) : model;
      return chat;
    };
    // A chat model of the user's (`model`) summarizes from the transcript, under `summaryPrompt`.
    const otherModel = async (req) => {
      const m = await chatModel();
      const system = summaryPrompt ?? req.system;
      const answer = await m.invoke([new lc.SystemMessage(system), new lc.HumanMessage(req.prompt)], { signal: req.signal });
      return textOf(answer);
    };
    const summarize = sameModel ? agentSummarize : (rest.summarize ?? otherModel);
    // The window: given, or the chat model's profile (for a "provider:model" name, the profile of
    // the model initChatModel makes, read at the first call, when a fraction needs it), or the
    // model table by the model's name.
    const profile = typeof model === "object" && model !== null ? model.profile : undefined;
    const knownWindow = rest.contextWindow ?? profile?.maxInputTokens;
    const { conversationId, store, leaseMs, compactionWaitMs, holder, turnBoundary, ...compactorRest } = rest;
    const saving = { store, leaseMs, compactionWaitMs, holder };
    let make;
    const setup = (contextWindow) => {
      const modelName = contextWindow === undefined && typeof model === "string" ? model.split(":").pop() : undefined;
      const settings = {
        ...(sameModel ? { summaryMode: "continue" } : {}),
        ...compactorRest,
        ...(turnBoundary === undefined ? {} : { turnBoundary }),
        ...(contextWindow === undefined ? {} : { contextWindow }),
        ...(modelName === undefined ? {} : { model: modelName }),
        ...(trigger === undefined ? {} : { trigger: triggerOf(trigger, contextWindow) }),
        ...keepOf(keep, contextWindow, turnBoundary),
        summarize,
      };
      // A call whose conversation the function does not name is compacted as without a store.
      make = (id) =>
        new Compactor({
          ...settings,
          ...(id === undefined && typeof conversationId === "function" ? {} : { ...saving, conversationId: id }),
        });
    };
    let pending;
    const ready = async () => {
      if (make) return;
      // A model that cannot be made leaves the window to the model table; the summary call then
      // fails as any summarizer failure does.
      pending ??= chatModel().then(
        (m) => setup(m?.profile?.maxInputTokens ?? undefined),
        () => setup(undefined),
      );
      await pending;
    };
    const needsProfile = knownWindow === undefined && typeof model === "string" && (usesFraction(trigger) || keep?.fraction !== undefined);
    if (!needsProfile) setup(knownWindow);
    // With a store, `conversationId` may name each call's conversation from the agent's state and
    // runtime (a thread id): one Compactor per conversation, the last 1,000 kept.
    let single;
    const byId = new Map();
    const compactorFor = (state, runtime) => {
      if (typeof conversationId !== "function") {
        single ??= make(conversationId);
        return single;
      }
      const id = conversationId(state, runtime);
      let c = byId.get(id);
      if (c) byId.delete(id);
      else c = make(typeof id === "string" && id !== "" ? id : undefined);
      byId.set(id, c);
      if (byId.size > 1000) byId.delete(byId.keys().next().value);
      return c;
    };
    if (make && typeof conversationId !== "function") single = make(conversationId);
    if (sameModel) {
      // The agent's state keeps its messages; the model is sent the compacted ones, and the
      // Compactor continues from its last compaction as the history grows.
      return agents.createMiddleware({
        name: "CompactionMiddleware",
        wrapModelCall: async (request, handler) => {
          await ready();
          const c = compactorFor(request.state, request.runtime);
          const out = await serialized({ request, handler }, () => c.maybeCompact(request.messages));
          return handler(out === request.messages ? request : { ...request, messages: out });
        },
      });
    }
    return agents.createMiddleware({
      name: "CompactionMiddleware",
      beforeModel: async (state, runtime) => {
        await ready();
        const out = await compactorFor(state, runtime).maybeCompact(state.messages);
        if (out === state.messages) return undefined;
        return { messages: [new lc.RemoveMessage({ id: agents.REMOVE_ALL_MESSAGES }), ...out] };
      },
    });
  }

  return { Compactor, trimMessages, toBaseMessages, compactionMiddleware };
}
