// The driver of compactions: the module hands a compaction to JS as a `__Driven` handle (the
// core's step machine, src/wasm/driven.rs) and this file carries its steps out: the summarizer's
// calls (each with an AbortSignal, `timeoutMs`, run in parallel when the step machine starts
// several, aborted together), the backoff pauses, the hooks (awaited for at most `timeoutMs`),
// `onError`, and the refusal of `compact()`/`prepare()` from inside the object's own summarizer or
// hook. It installs `Compactor.compact`/`maybeCompact` and `Session.compact`/`prepare` (with the
// Session's running compaction, background compactions and the memory block's request) on the
// wasm-bindgen classes, before the trap guard (js/guard.mjs) wraps them like any other method,
// and gives `withOverflowRecovery`. The module holds no JS closure: after the guard resets the
// instance, `reset()` aborts the compactions that were running (pauses end, summarizers get the
// abort), and the next step of an old handle throws (stale object), ending its call, which the
// guard has already settled with INTERNAL. The build turns this file into CommonJS for the Node entry (`pkg/node/driver.cjs`).

export function installDriver(wasm, CompactionError) {
  const Driven = wasm.__Driven;
  // Calls into the caller's code (summarizer, hooks) running now, per object.
  const inside = new WeakMap();
  // A Session's running compaction: { promise, background, resolve }.
  const running = new WeakMap();
  // The calls' signals of the compactions running now, aborted when the instance is reset.
  const batches = new Set();

  function refuse(self, method) {
    if ((inside.get(self) ?? 0) === 0) return;
    throw new CompactionError(
      `${method}() was called from inside this object's own summarizer or hook: it would wait for the ` +
        "compaction that is waiting for it; call it after the compaction settles",
      "CONFLICT",
    );
  }

  // Calls the caller's `f(arg)`, counted for `refuse`.
  function callOwn(self, f, arg) {
    inside.set(self, (inside.get(self) ?? 0) + 1);
    try {
      return f(arg);
    } finally {
      inside.set(self, inside.get(self) - 1);
    }
  }

  // Resolves to `value` after `ms`, unless `signal` aborts first; the timer and listener are
  // removed either way (a pending timer would keep Node alive).
  function race(promise, ms, signal) {
    return new Promise((resolve) => {
      let timer;
      const onAbort = () => done({ kind: "aborted", value: signal.reason });
      const done = (end) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        resolve(end);
      };
      if (ms !== undefined) timer = setTimeout(() => done({ kind: "timedOut" }), ms);
      if (signal?.aborted) return done({ kind: "aborted", value: signal.reason });
      signal?.addEventListener("abort", onAbort);
      promise?.then(
        (value) => done({ kind: "answer", value }),
        (value) => done({ kind: "rejected", value }),
      );
    });
  }

  // What a hook came to within `ms`: its value, `threw`, `rejected` or `timedOut`.
  async function hook(self, f, event, ms) {
    let value;
    try {
      value = callOwn(self, f, event);
    } catch (error) {
      return { kind: "threw", value: error };
    }
    if (!(value instanceof Promise)) return { kind: "answer", value };
    return race(value, ms);
  }

  // One summarizer call after `delayMs` (the batch's abort ends the pause).
  async function call(self, hooks, request, delayMs, batch) {
    if (delayMs > 0) {
      const paused = await race(undefined, delayMs, batch);
      if (paused.kind === "aborted") return paused;
    }
    if (batch.aborted) return { kind: "aborted", value: batch.reason };
    const controller = new AbortController();
    request.signal = controller.signal;
    let answer;
    try {
      answer = Promise.resolve(callOwn(self, hooks.summarize, request));
    } catch (error) {
      return { kind: "threw", value: error };
    }
    const end = await race(answer, hooks.timeoutMs, batch);
    if (end.kind === "rejected") return { kind: "threw", value: end.value };
    if (end.kind === "timedOut") {
      controller.abort(new CompactionError(`the summarizer did not answer within ${hooks.timeoutMs} ms`, "TIMEOUT"));
    } else if (end.kind === "aborted") {
      controller.abort(end.value);
    }
    return end;
  }

  // Tells `onError` (awaited for at most `timeoutMs`, its own failure ignored); without it, a
  // swallowed failure goes to the console, so it is never silent.
  async function report(self, hooks, error, swallowed) {
    if (hooks.onError) {
      await hook(self, hooks.onError, error, hooks.timeoutMs);
    } else if (swallowed) {
      const code = typeof error?.code === "string" ? error.code : "SUMMARIZER_FAILED";
      console.warn(`context-compaction: automatic compaction failed (${code}): ${error?.message ?? ""}`);
    }
  }

  // Runs the steps of `driven` for `self` to the end: its result, or its error thrown.
  async function drive(self, driven, options) {
    const hooks = driven.hooks();
    const ms = hooks.timeoutMs;
    const caller = options?.signal;
    // The calls' common signal: aborts with the caller's, or when one call of a batch fails.
    const batch = new AbortController();
    batches.add(batch);
    const forward = () => batch.abort(caller.reason);
    if (caller?.aborted) batch.abort(caller.reason);
    else caller?.addEventListener?.("abort", forward);
    const calls = new Map();
    let event;
    try {
      for (;;) {
        const step = driven.next(event);
        event = undefined;
        switch (step.step) {
          case "report":
            await report(self, hooks, step.errorValue, step.swallowed);
            break;
          case "before":
            event = hooks.onBeforeCompaction
              ? await hook(self, hooks.onBeforeCompaction, { tokensBefore: step.tokensBefore, messages: step.messages }, ms)
              : { kind: "none" };
            break;
          case "call": {
            const id = step.call;
            calls.set(id, call(self, hooks, step.request, step.delayMs, batch.signal).then((end) => ({ ...end, call: id })));
            break;
          }
          case "await":
            if (calls.size === 0) throw new CompactionError("the compaction waits for a summarizer call that does not run", "INTERNAL");
            event = await Promise.race(calls.values());
            calls.delete(event.call);
            break;
          case "abortCalls":
            batch.abort(step.reasonValue);
            break;
          case "progress":
            event = hooks.onProgress ? await hook(self, hooks.onProgress, { done: step.done, total: step.total }, ms) : {};
            break;
          case "after": {
            const after = { tokensBefore: step.tokensBefore, tokensAfter: step.tokensAfter, compactedTokens: Math.max(0, step.tokensBefore - step.tokensAfter) };
            event = hooks.onAfterCompaction ? await hook(self, hooks.onAfterCompaction, after, ms) : {};
            break;
          }
          case "done":
            if (step.outcome === "rejected") throw step.error;
            return step.result;
          default:
            throw new CompactionError(`unknown compaction step ${step.step}`, "INTERNAL");
        }
      }
    } finally {
      batches.delete(batch);
      caller?.removeEventListener?.("abort", forward);
      try {
        driven.free();
      } catch {
        // An old instance's handle (the guard reset it): nothing to free.
      }
    }
  }

  const C = wasm.Compactor.prototype;
  C.compact = async function compact(messages, options) {
    refuse(this, "compact");
    const started = this.__compact(messages, options, false);
    return started instanceof Driven ? drive(this, started, options) : started;
  };
  C.maybeCompact = async function maybeCompact(messages, options) {
    refuse(this, "maybeCompact");
    const started = this.__compact(messages, options, true);
    const result = started instanceof Driven ? await drive(this, started, options) : started;
    return result.compacted || result.continued ? result.messages : messages;
  };

  function mark(self, background) {
    let resolve;
    const promise = new Promise((r) => (resolve = r));
    const marker = { promise, background, resolve };
    running.set(self, marker);
    self.__setRunning(true);
    return marker;
  }

  function unmark(self, marker) {
    if (running.get(self) === marker) running.delete(self);
    try {
      self.__setRunning(false);
    } catch {
      // Lost in a reset.
    }
    marker.resolve();
  }

  // Waits until no compaction runs (`foregroundOnly`: a background one may go on).
  async function idle(self, foregroundOnly) {
    for (;;) {
      const marker = running.get(self);
      if (marker === undefined || (foregroundOnly && marker.background)) return;
      await marker.promise;
    }
  }

  // One compaction of `kind` under `marker` (finished here).
  async function run(self, marker, options, kind) {
    try {
      const started = self.__compact(options, kind);
      return started instanceof Driven ? await drive(self, started, options) : started;
    } finally {
      unmark(self, marker);
    }
  }

  const S = wasm.Session.prototype;
  S.compact = async function compact(options) {
    this.__checkCall(options, "compact");
    refuse(this, "compact");
    // Marked at once when nothing runs, so that `isCompacting` holds right after the call.
    let marker = running.has(this) ? undefined : mark(this, false);
    if (marker === undefined) {
      await idle(this, false);
      marker = mark(this, false);
    }
    return run(this, marker, options, "manual");
  };
  S.prepare = async function prepare(options) {
    const { force, background } = this.__checkCall(options, "prepare");
    refuse(this, "prepare");
    this.__pruneTtl(options);
    // Seed 004: a request waits for a compaction running in the foreground (one in the
    // background is what lets requests go on).
    await idle(this, true);
    const action = this.__onPressure(force, background);
    if (action.action === "compact") {
      // A background compaction may bring it under the trigger: wait for it first.
      await idle(this, false);
      if (!action.unlessRelieved || this.__pastTrigger()) await run(this, mark(this, false), options, action.kind);
    } else if (action.action === "background" && !running.has(this)) {
      run(this, mark(this, true), options, "background").catch((error) => {
        try {
          this.__backgroundFailed(error);
        } catch {
          // Lost in a reset.
        }
      });
    }
    const notes = this.__compactNotes(options);
    if (notes instanceof Driven) await drive(this, notes, options);
    return this.__render(options);
  };

  const isContextOverflowError = wasm.isContextOverflowError;
  /** Sends; on a context-limit error compacts with `compact(messages, error)` and sends once more. */
  function withOverflowRecovery(send, messages, compact) {
    for (const [name, f] of [
      ["send", send],
      ["compact", compact],
    ]) {
      if (typeof f !== "function") {
        throw new CompactionError(`${name} must be a function (withOverflowRecovery(send, messages, compact))`, "INVALID_INPUT", name);
      }
    }
    return (async () => {
      try {
        return await send(messages, undefined);
      } catch (error) {
        if (!isContextOverflowError(error)) throw error;
        const compacted = await compact(messages, error);
        return await send(compacted, undefined);
      }
    })();
  }

  // After a reset: the compactions of the old instance stop (their pauses end, their
  // summarizers are aborted); the guard has settled their calls.
  function reset() {
    const why = new CompactionError("the WebAssembly instance was reset after an internal error", "INTERNAL");
    for (const batch of batches) batch.abort(why);
    batches.clear();
  }

  return { wasm: { ...wasm, withOverflowRecovery }, reset };
}
