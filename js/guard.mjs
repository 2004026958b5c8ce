// The one place where failures of the WebAssembly instance itself become CompactionErrors.
//
// A trap (`WebAssembly.RuntimeError`: out of memory, a stack overflow, an exception thrown through
// wasm frames) can leave the instance's memory half-updated, so the instance is replaced by a
// fresh one (wasm-bindgen's `__wbg_reset_state`) and the caller gets an `INTERNAL` error; every new
// call works. Objects made before the reset, and objects after `free()`, fail with `DISPOSED`;
// `free()` (and `Symbol.dispose`) on such an object does nothing. A revoked Proxy passed in is
// `INVALID_INPUT`.
// The build turns this file into CommonJS for the Node entry (`pkg/node/guard.cjs`).

const STALE = /stale object from previous Wasm instance/i;
const FREED = /null pointer passed to rust|attempted to take ownership of Rust value/i;
const REVOKED = /proxy that has been revoked/i;

export function guard(wasm, CompactionError, onReset) {
  const isTrap = (e) => typeof WebAssembly !== "undefined" && e instanceof WebAssembly.RuntimeError;

  // Calls still running (their promises), settled with INTERNAL when the instance is replaced:
  // the old instance's callbacks no longer run.
  const running = new Set();

  function convert(error) {
    if (error instanceof CompactionError) return error;
    if (isTrap(error)) {
      wasm.__wbg_reset_state();
      onReset();
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
          "objects made before can no longer be used, new calls work",
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

  // free() and Symbol.dispose on an object already freed (or made before a reset) do nothing.
  function wrapFree(f) {
    return function free(...args) {
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
      if (typeof d.value === "function" && (key === "free" || key === Symbol.dispose)) {
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
            return Reflect.construct(target, args, newTarget === api[name] ? target : newTarget);
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
