// The AI SDK language-model middleware (`wrapLanguageModel({ model, middleware })`): every
// `generateText` / `streamText` call through the wrapped model has its prompt compacted by a
// `Compactor` first. The Compactor carries the decisions (trigger, cut, summary, continuation of
// its last compaction, so that a growing history is summarized once); this file only adapts the
// AI SDK's call shapes. Without a `summarize` of the user's, the wrapped model writes the summary
// itself: the same model as the conversation, so the request continues the conversation (the
// call's own prompt, tools and settings, then the instruction) and its prefix is read from the
// provider's prompt cache (docs/cost.md). The build turns it into CommonJS for the Node entry
// (`pkg/node/ai-sdk.cjs`).

// A message the Compactor built (a summary, a changed message) in the shape a provider prompt
// (`LanguageModelV3Prompt`) requires: parts arrays outside system messages, images as file parts.
function promptMessage(message) {
  if (message.role === "system") return message;
  const content =
    typeof message.content === "string"
      ? [{ type: "text", text: message.content }]
      : message.content.map((part) =>
          part && part.type === "image"
            ? { type: "file", data: part.image, mediaType: part.mediaType ?? "image/*", providerOptions: part.providerOptions }
            : part,
        );
  return { ...message, content };
}

function promptOf(input, output) {
  const given = new Set(input);
  return output.map((m) => (given.has(m) ? m : promptMessage(m)));
}

// A middleware for many conversations: `conversationId(params)` names the call's conversation, and
// each conversation gets its own Compactor (saving to the store); the last 1,000 are kept.
function perConversation(config, options, single) {
  const { conversationId: idOf, ...rest } = config;
  const byId = new Map();
  let anonymous;
  const forParams = (params) => {
    const id = idOf(params);
    if (typeof id !== "string" || id === "") {
      // No conversation named: compacted as without a store.
      const { store, leaseMs, compactionWaitMs, holder, ...plain } = rest;
      anonymous ??= single(plain, options);
      return anonymous;
    }
    let m = byId.get(id);
    if (m) byId.delete(id);
    else m = single({ ...rest, conversationId: id }, options);
    byId.set(id, m);
    if (byId.size > 1000) byId.delete(byId.keys().next().value);
    return m;
  };
  return {
    specificationVersion: "v3",
    transformParams: (o) => forParams(o.params).transformParams(o),
    wrapGenerate: (o) => forParams(o.params).wrapGenerate(o),
    wrapStream: (o) => forParams(o.params).wrapStream(o),
  };
}

const textOf = (result) =>
  (result?.content ?? [])
    .filter((part) => part?.type === "text")
    .map((part) => part.text)
    .join("");

// The summarizer of a middleware given no `summarize`: the wrapped model of the call that compacts
// (`current()`). A continuing request is that call with its prompt replaced by the conversation
// the model last saw and the instruction: tools, tool choice and provider options stay, so the
// prefix is the one the provider cached; a transcript request (a piece that is not the whole
// history, or a conversation that no longer fits) is the summarizer's system prompt and prompt.
function sameModelSummarizer(current) {
  return async (request) => {
    const { model, params } = current();
    const user = (text) => ({ role: "user", content: [{ type: "text", text }] });
    const settings = { maxOutputTokens: request.maxTokens, abortSignal: request.signal };
    const call =
      request.mode === "continue"
        ? { ...params, ...settings, prompt: [...promptOf(params.prompt, request.conversation), user(request.instruction)] }
        : { ...settings, prompt: [{ role: "system", content: request.system }, user(request.prompt)] };
    return textOf(await model.doGenerate(call));
  };
}

export function makeCompactionMiddleware(Compactor, isContextOverflowError, CompactionError) {
  const checkOptions = (options) => {
    if (options === null || typeof options !== "object" || Array.isArray(options)) {
      throw new CompactionError("the middleware's options must be an object: { recoverOverflow? }", "INVALID_OPTIONS", "options");
    }
    for (const key of Object.keys(options)) {
      if (key !== "recoverOverflow") {
        throw new CompactionError(`unknown middleware option "${key}" (the one option is recoverOverflow)`, "INVALID_OPTIONS", key);
      }
    }
    if (options.recoverOverflow !== undefined && typeof options.recoverOverflow !== "boolean") {
      throw new CompactionError("recoverOverflow must be a boolean", "INVALID_OPTIONS", "recoverOverflow");
    }
  };
  return function compactionMiddleware(compactor, options = {}) {
    checkOptions(options);
    if (!(compactor instanceof Compactor) && typeof compactor?.conversationId === "function") {
      return perConversation(compactor, options, compactionMiddleware);
    }
    // No summarizer of the user's: the wrapped model continues the conversation (unless the
    // options choose the transcript). The call that compacts is `current`; one compaction runs at
    // a time, so a summary is always written by the call that asked for it.
    const sameModel = !(compactor instanceof Compactor) && compactor?.summarize === undefined;
    let current = null;
    let turn = Promise.resolve();
    const c =
      compactor instanceof Compactor
        ? compactor
        : new Compactor(
            sameModel
              ? { summaryMode: "continue", ...compactor, summarize: sameModelSummarizer(() => current) }
              : compactor,
          );
    const asCall = (model, params, run) => {
      if (!sameModel) return run();
      const mine = turn.then(() => {
        current = { model, params };
        return run();
      });
      turn = mine.then(
        () => undefined,
        () => undefined,
      );
      return mine;
    };
    const recover = options.recoverOverflow !== false;
    // The provider's usage of the last response: the next call's prompt ends with that response,
    // so `check` anchors it there and the Compactor calibrates its estimate from it (see
    // docs/tokens.md). Best effort: a usage the package cannot read is left out.
    let lastUsage = null;
    const learn = (prompt) => {
      if (!lastUsage) return;
      const usage = lastUsage;
      lastUsage = null;
      try {
        c.check(prompt, { usage });
      } catch {
        /* not a usage the package reads: nothing learned */
      }
    };
    const remember = (usage) => {
      if (usage && typeof usage === "object") lastUsage = usage;
    };
    // The stream's `finish` part carries the usage; the parts pass through unchanged.
    const watched = (result) => {
      if (!result?.stream?.pipeThrough) return result;
      const stream = result.stream.pipeThrough(
        new TransformStream({
          transform(part, controller) {
            if (part?.type === "finish") remember(part.usage);
            controller.enqueue(part);
          },
        }),
      );
      return { ...result, stream };
    };
    const compact = (model, params, force) => asCall(model, params, () => compactNow(params, force));
    const compactNow = async (params, force) => {
      const prompt = params.prompt;
      const call = params.abortSignal ? { signal: params.abortSignal } : {};
      const out = force
        ? (await c.compact(prompt, { ...call, force: true })).messages
        : await c.maybeCompact(prompt, call);
      return out === prompt ? params : { ...params, prompt: promptOf(prompt, out) };
    };
    // A context-limit error from the provider: compact by force and send once more.
    const retrying = (run) => async ({ params, model, doGenerate, doStream }) => {
      const first = run === "generate" ? doGenerate : doStream;
      const done = (result) => {
        if (run === "generate") {
          remember(result?.usage);
          return result;
        }
        return watched(result);
      };
      try {
        return done(await first());
      } catch (error) {
        if (!recover || !isContextOverflowError(error)) throw error;
        let again;
        try {
          again = await compact(model, params, true);
        } catch {
          throw error; // nothing could be removed: the provider's error says the most
        }
        return done(await (run === "generate" ? model.doGenerate(again) : model.doStream(again)));
      }
    };
    return {
      specificationVersion: "v3",
      transformParams: async ({ params, model }) => {
        learn(params.prompt);
        return compact(model, params, false);
      },
      wrapGenerate: retrying("generate"),
      wrapStream: retrying("stream"),
    };
  };
}
