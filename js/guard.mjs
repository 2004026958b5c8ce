// The one place where failures of the WebAssembly instance itself become CompactionErrors.
//
// A trap (`WebAssembly.RuntimeError`: out of memory, a stack overflow, an exception thrown through
// wasm frames) can leave the instance's memory half-updated, so the instance is replaced by a
// fresh one (wasm-bindgen's `__wbg_reset_state`) and the caller gets an `INTERNAL` error; every new
// call works. Every live `Session` survives: just before the reset its log is read from the old
// instance (`toJSONL`, and `flush` for the lines not flushed yet), and it is read back into the
// fresh one (`fromJSONL` with the options it was made with); the same JS object then points at the
// new session, and its next `flush()` still gives the lines it had not given. A store-attached
// session (`Session.open`) carries its store bookkeeping instead of unflushed lines: its id tag and
// what the store does not hold yet (`__storePending`: the pending entries, header and live set),
// so that its next commit writes exactly those. A session whose log cannot be read (the one that
// trapped, mid-change) is lost. Other objects
// made before the reset, and objects after `free()`, fail with `DISPOSED`; `free()` (and
// `Symbol.dispose`) on such an object does nothing. A revoked Proxy passed in is `INVALID_INPUT`.
// The build turns this file into CommonJS for the Node entry (`pkg/node/guard.cjs`).

const STALE = /stale object from previous Wasm instance/i;
const FREED = /null pointer passed to rust|attempted to take ownership of Rust value/i;
const REVOKED = /proxy that has been revoked/i;

export function guard(wasm, CompactionError, onReset) {
  const isTrap = (e) => typeof WebAssembly !== "undefined" && e instanceof WebAssembly.RuntimeError;

  // Calls still running (their promises), settled with INTERNAL when the instance is replaced:
  // the old instance's callbacks no longer run.
  const running = new Set();
  // Resets so far: the instance id wasm-bindgen gives the objects of the current instance.
  let generation = 0;

  // Live Sessions and the options each was made with, to re-create them after a reset. Nothing is
  // done per call: their logs are read only when the instance is reset.
  const SessionClass = wasm.Session;
  const raw = SessionClass && {
    toJSONL: SessionClass.prototype.toJSONL,
    flush: SessionClass.prototype.flush,
    fromJSONL: SessionClass.fromJSONL,
    storeAttach: SessionClass.prototype.__storeAttach,
    storePending: SessionClass.prototype.__storePending,
    storeRestore: SessionClass.prototype.__storeRestore,
  };
  const live = new Set();
  const refs = new WeakMap();
  const optionsOf = new WeakMap();
  // The session in the fresh instance whose pointer a surviving object took (kept alive with it,
  // so that wasm-bindgen frees it when the object is collected), and the lines not flushed yet.
  const twins = new WeakMap();
  const unflushed = new WeakMap();
  // The id tag of each store-attached session (`__storeAttach`), given again after a reset.
  const storeTags = new WeakMap();
  const gone = typeof FinalizationRegistry === "undefined" ? null : new FinalizationRegistry((ref) => live.delete(ref));

  function track(session, options) {
    if (!SessionClass || !(session instanceof SessionClass) || typeof WeakRef === "undefined") return;
    const ref = new WeakRef(session);
    live.add(ref);
    refs.set(session, ref);
    optionsOf.set(session, options);
    gone?.register(session, ref, ref);
  }

  function untrack(session) {
    const ref = refs.get(session);
    if (ref === undefined) return;
    live.delete(ref);
    gone?.unregister(ref);
    refs.delete(session);
    twins.get(session)?.__destroy_into_raw();
    twins.delete(session);
  }

  // Options of the Session a call returns: its own argument, or (for `branch`) its parent's.
  function optionsFor(name, args, self) {
    if (name === "fromJSONL") return args[1];
    if (name === "fromSessionFile") return args[2];
    return optionsOf.get(self);
  }

  // Reads every live Session's log from the old instance (before the reset).
  function saveSessions() {
    const saved = [];
    for (const ref of live) {
      const session = ref.deref();
      if (session === undefined) continue;
      try {
        const text = raw.toJSONL.call(session);
        if (storeTags.has(session)) {
          // What the store does not hold yet; the store holds the rest.
          const pending = raw.storePending.call(session);
          const store = { entries: pending.lines.length, header: pending.header !== undefined, live: pending.live !== undefined };
          saved.push({ session, text, lines: "", store });
        } else {
          saved.push({ session, text, lines: raw.flush.call(session) });
        }
      } catch {
        // Made before an earlier reset, freed, or caught mid-change by the trap: lost.
      }
    }
    return saved;
  }

  // Re-creates them in the fresh instance, each behind its old JS object.
  function restoreSessions(saved) {
    for (const { session, text, lines, store } of saved) {
      let fresh;
      try {
        fresh = raw.fromJSONL.call(SessionClass, text, optionsOf.get(session));
        if (store) {
          raw.storeAttach.call(fresh, storeTags.get(session));
          raw.storeRestore.call(fresh, store.entries, store.header, store.live);
        }
      } catch {
        continue;
      }
      session.__wbg_ptr = fresh.__wbg_ptr;
      session.__wbg_inst = fresh.__wbg_inst;
      twins.set(session, fresh);
      if (lines !== "") unflushed.set(session, (unflushed.get(session) ?? "") + lines);
    }
  }

  function convert(error) {
    if (error instanceof CompactionError) return error;
    if (isTrap(error)) {
      const saved = SessionClass ? saveSessions() : [];
      wasm.__wbg_reset_state();
      generation += 1;
      onReset();
      if (saved.length > 0) restoreSessions(saved);
      const cut = new CompactionError(
        "the WebAssembly instance was reset after an internal error while this call was running; nothing was changed",
        "INTERNAL",
        undefined,
        error,
      );
      for (const reject of [...running]) reject(cut);
      running.clear();
      return new CompactionError(
        `internal error in the WebAssembly module (${error.message}); the instance was reset: ` +
          "objects made before can no longer be used (live Sessions were re-created from their logs), new calls work",
        "INTERNAL",
        undefined,
        error,
      );
    }
    const message = error instanceof Error ? error.message : "";
    if (STALE.test(message)) {
      return new CompactionError(
        "this object was made before the WebAssembly instance was reset after an internal error; create it again",
        "DISPOSED",
        undefined,
        error,
      );
    }
    if (FREED.test(message)) {
      return new CompactionError("this object was freed (free() or dispose) and can no longer be used", "DISPOSED", undefined, error);
    }
    if (error instanceof TypeError && REVOKED.test(message)) {
      return new CompactionError(`an argument is a revoked Proxy and cannot be read (${message})`, "INVALID_INPUT", undefined, error);
    }
    return error;
  }

  // free() and Symbol.dispose on an object already freed (or made before a reset) do nothing. The
  // glue's free does not check the instance: an old object's pointer must never reach the fresh
  // instance, where it may name a live object (`generation` follows wasm-bindgen's instance id).
  function wrapFree(f) {
    return function free(...args) {
      untrack(this);
      if (this != null && this.__wbg_inst !== undefined && this.__wbg_inst !== generation) {
        this.__destroy_into_raw?.();
        return undefined;
      }
      try {
        return f.apply(this, args);
      } catch (error) {
        const message = error instanceof Error ? error.message : "";
        if (FREED.test(message) || STALE.test(message)) return undefined;
        throw convert(error);
      }
    };
  }

  // Methods whose answer is a promise: a failure in the call itself rejects it too.
  const ASYNC = new Set(["compact", "maybeCompact", "prepare"]);

  function wrap(f) {
    const promised = ASYNC.has(f.name);
    return function guarded(...args) {
      let result;
      try {
        result = f.apply(this, args);
      } catch (error) {
        if (promised) return Promise.reject(convert(error));
        throw convert(error);
      }
      if (SessionClass && result instanceof SessionClass) track(result, optionsFor(f.name, args, this));
      if (result instanceof Promise) {
        return new Promise((resolve, reject) => {
          running.add(reject);
          result.then(
            (value) => {
              running.delete(reject);
              resolve(value);
            },
            (error) => {
              running.delete(reject);
              reject(convert(error));
            },
          );
        });
      }
      return result;
    };
  }

  function wrapMembers(target) {
    for (const key of [...Object.getOwnPropertyNames(target), ...Object.getOwnPropertySymbols(target)]) {
      if (key === "constructor" || key === "prototype" || key === "length" || key === "name") continue;
      const d = Object.getOwnPropertyDescriptor(target, key);
      if (!d || !d.configurable) continue;
      if (typeof d.value === "function" && target === SessionClass?.prototype && key === "flush") {
        // After a reset, the lines the old instance had not flushed come first.
        const flush = wrap(d.value);
        const value = function flush_() {
          const lines = flush.call(this);
          const before = unflushed.get(this);
          if (before === undefined) return lines;
          unflushed.delete(this);
          return before + lines;
        };
        Object.defineProperty(value, "name", { value: "flush" });
        Object.defineProperty(target, key, { ...d, value });
      } else if (typeof d.value === "function" && target === SessionClass?.prototype && key === "__storeAttach") {
        // The tag is given again to the session re-created after a reset.
        const attach = wrap(d.value);
        const value = function __storeAttach(tag) {
          const result = attach.call(this, tag);
          storeTags.set(this, tag);
          return result;
        };
        Object.defineProperty(target, key, { ...d, value });
      } else if (typeof d.value === "function" && (key === "free" || key === Symbol.dispose)) {
        Object.defineProperty(target, key, { ...d, value: wrapFree(d.value) });
      } else if (typeof d.value === "function") {
        Object.defineProperty(target, key, { ...d, value: wrap(d.value) });
      } else if (d.get || d.set) {
        Object.defineProperty(target, key, { ...d, get: d.get && wrap(d.get), set: d.set && wrap(d.set) });
      }
    }
  }

  const api = {};
  for (const [name, value] of Object.entries(wasm)) {
    if (name.startsWith("__")) continue;
    if (typeof value === "function" && /^class\b/.test(Function.prototype.toString.call(value))) {
      wrapMembers(value.prototype);
      wrapMembers(value);
      // `new` goes through the same conversion; `instanceof` and statics reach the class itself.
      api[name] = new Proxy(value, {
        construct(target, args, newTarget) {
          try {
            const made = Reflect.construct(target, args, newTarget === api[name] ? target : newTarget);
            if (target === SessionClass) track(made, args[0]);
            return made;
          } catch (error) {
            throw convert(error);
          }
        },
      });
    } else if (typeof value === "function") {
      api[name] = wrap(value);
    } else {
      api[name] = value;
    }
  }
  return { api, wrap };
}
