// The one place where failures of the WebAssembly instance itself become CompactionErrors, and
// the public classes: thin JS classes that hold the wasm-bindgen object and forward every member
// by name, so that an instance reset only swaps the object they hold.
//
// A trap (`WebAssembly.RuntimeError`: out of memory, a stack overflow, an exception thrown through
// wasm frames) can leave the instance's memory half-updated, so the instance is replaced by a
// fresh one (wasm-bindgen's `__wbg_reset_state`) and the caller gets an `INTERNAL` error; pending
// calls are settled with `INTERNAL`; every new call works. The trapped memory is never read again.
// Every live `Session` survives from a copy kept in JS: after each call that may change it, the
// guard copies what its log gained since the previous copy (`__logSince`: the new lines, the header,
// and the bookkeeping of what was flushed or stored; the rule is the core's,
// `core::session::copy`). On its next use after a reset the session is read back from that copy
// into the fresh instance (`fromJSONL` with the options it was made with, then its store tag and
// bookkeeping), as of its last complete call; its next `flush()` or `commit()` gives what it had
// not given. Other objects made before the reset, and objects after `free()`, fail with
// `DISPOSED`; `free()` (and `Symbol.dispose`) on such an object does nothing. A revoked Proxy
// passed in is `INVALID_INPUT`.
// The build turns this file into CommonJS for the Node entry (`pkg/node/guard.cjs`).

const STALE = /stale object from previous Wasm instance/i;
const FREED = /null pointer passed to rust|attempted to take ownership of Rust value/i;
const REVOKED = /proxy that has been revoked/i;

// At most this many bytes of log lines cross per copy call (a larger gain takes several calls).
const COPY_LIMIT = 1 << 20;
// Session members that never change the log or its bookkeeping: no copy after them.
const READS = new Set(["toJSONL", "toJSONLPart", "entries", "memory", "plan", "__storePending", "__logSince"]);
// Methods whose answer is a promise: a failure in the call itself rejects it too.
const ASYNC = new Set(["compact", "maybeCompact", "prepare"]);
// Members of the glue that are not forwarded.
const HIDDEN = new Set(["constructor", "__destroy_into_raw", "__wrap"]);
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function guard(wasm, CompactionError, onReset) {
  const isTrap = (e) => typeof WebAssembly !== "undefined" && e instanceof WebAssembly.RuntimeError;

  // Calls still running (their promises), settled with INTERNAL when the instance is replaced:
  // the old instance's callbacks no longer run.
  const running = new Set();
  // Resets so far; each public object records the one its wasm object was made in.
  let generation = 0;

  // Public object -> its wasm object, the generation that made it, and back.
  const innerOf = new WeakMap();
  const generationOf = new WeakMap();
  const outerOf = new WeakMap();
  // Public objects after free(): DISPOSED.
  const freed = new WeakSet();
  // Public Session -> its copy: { options, tag, header, chunks: [{ bytes, count }], entries, marks }.
  // The lines are kept as UTF-8 bytes: a JS string of text with any character past U+00FF holds
  // two bytes per character, about twice the log.
  const copies = new WeakMap();

  const disposed = (error) =>
    new CompactionError("this object was freed (free() or dispose) and can no longer be used", "DISPOSED", undefined, error);
  const stale = (error) =>
    new CompactionError(
      "this object was made before the WebAssembly instance was reset after an internal error; create it again",
      "DISPOSED",
      undefined,
      error,
    );

  function convert(error) {
    if (error instanceof CompactionError) return error;
    if (isTrap(error)) {
      wasm.__wbg_reset_state();
      generation += 1;
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
          "objects made before can no longer be used (live Sessions come back as of their last complete call), new calls work",
        "INTERNAL",
        undefined,
        error,
      );
    }
    const message = error instanceof Error ? error.message : "";
    if (STALE.test(message)) return stale(error);
    if (FREED.test(message)) return disposed(error);
    if (error instanceof TypeError && REVOKED.test(message)) {
      return new CompactionError(`an argument is a revoked Proxy and cannot be read (${message})`, "INVALID_INPUT", undefined, error);
    }
    return error;
  }

  // ---- The JS copy of each Session's log ----

  // One answer of `__logSince`: a JSON line of numbers and flags, the header line, the lines.
  // (A string: the call makes no JS object, so no optimized caller depends on one it changes.)
  function readCopy(text) {
    const a = text.indexOf("\n");
    const b = text.indexOf("\n", a + 1);
    const part = JSON.parse(text.slice(0, a));
    part.header = text.slice(a + 1, b);
    part.lines = text.slice(b + 1);
    return part;
  }

  // Copies what `raw`'s log gained since the previous copy. A copy cut short (a trap meanwhile)
  // leaves the previous one as it was.
  function copyLog(copy, raw) {
    let text = raw.__logSince(COPY_LIMIT);
    if (text === "") return;
    const staged = [];
    let header;
    for (;;) {
      const part = readCopy(text);
      part.bytes = encoder.encode(part.lines);
      // The header and the lines are slices of the answer, and a slice keeps the whole answer
      // alive: the staged parts keep only their bytes (holding each answer's header held every
      // answer, the log's size twice over as UTF-16, until the copy was made).
      header = part.header;
      part.lines = undefined;
      part.header = undefined;
      staged.push(part);
      if (!part.more) break;
      text = raw.__logSince(COPY_LIMIT);
      if (text === "") break;
    }
    // The header kept as a string of its own, not a slice of the last answer (a JSON round trip
    // copies any string exactly).
    header = JSON.parse(JSON.stringify(header));
    for (const part of staged) {
      copy.header = header;
      dropFrom(copy, part.from);
      if (part.count > 0) {
        copy.chunks.push({ bytes: part.bytes, count: part.count });
        copy.entries += part.count;
      }
      copy.marks = { stored: part.stored, headerStored: part.headerStored, livePending: part.livePending };
    }
  }

  // Keeps the first `from` entries of the copy (a merge of other writers' lines rewrote the rest).
  function dropFrom(copy, from) {
    while (copy.entries > from) {
      const last = copy.chunks[copy.chunks.length - 1];
      const keep = from - (copy.entries - last.count);
      if (keep <= 0) {
        copy.chunks.pop();
        copy.entries -= last.count;
        continue;
      }
      const lines = decoder.decode(last.bytes).split("\n").slice(0, keep);
      copy.chunks[copy.chunks.length - 1] = { bytes: encoder.encode(lines.join("\n") + "\n"), count: keep };
      copy.entries = from;
    }
  }

  // The copy's log as `Session.fromJSONL` reads it: its pieces (header, then the copied chunks,
  // each made a string only when the reader asks for it), never joined into one string.
  function copiedLog(copy) {
    if (copy.header === undefined) return "";
    return (function* () {
      yield copy.header + "\n";
      for (const chunk of copy.chunks) yield decoder.decode(chunk.bytes);
    })();
  }

  // The session of `copy` read back into the fresh instance, with its store tag and bookkeeping.
  function recreate(RawSession, copy) {
    const raw = RawSession.fromJSONL(copiedLog(copy), copy.options);
    if (copy.tag !== undefined) raw.__storeAttach(copy.tag);
    if (copy.marks !== undefined) {
      const { stored, headerStored, livePending } = copy.marks;
      raw.__storeRestore(Math.max(0, copy.entries - stored), !headerStored, livePending);
    }
    return raw;
  }

  function startCopy(self, raw, options) {
    const copy = { options, tag: undefined, header: undefined, chunks: [], entries: 0, marks: undefined };
    copies.set(self, copy);
    copyLog(copy, raw);
  }

  // ---- Public objects ----

  // The wasm object behind `self`, read back from its copy after a reset (a Session), or DISPOSED.
  function innerFor(self, RawClass) {
    const raw = innerOf.get(self);
    if (raw === undefined) {
      if (freed.has(self)) throw disposed();
      throw new TypeError(`this is not a ${RawClass.name} (a method was called on another object)`);
    }
    if (generationOf.get(self) === generation) return raw;
    const copy = copies.get(self);
    if (copy === undefined) throw stale();
    let fresh;
    try {
      fresh = recreate(RawClass, copy);
    } catch (error) {
      const e = convert(error);
      throw e.code === "INTERNAL" ? e : stale(e);
    }
    bind(self, fresh);
    startCopy(self, fresh, copy.options);
    copies.get(self).tag = copy.tag;
    return fresh;
  }

  function bind(self, raw) {
    innerOf.set(self, raw);
    generationOf.set(self, generation);
    outerOf.set(raw, self);
  }

  // The public object of a wasm object a call returned (the same one each time).
  function adopt(value, classes, options, Public) {
    if (value === null || typeof value !== "object") return value;
    const known = outerOf.get(value);
    if (known !== undefined) return known;
    const entry = classes.get(Object.getPrototypeOf(value)?.constructor);
    if (entry === undefined) return value;
    const self = Object.create((Public ?? entry.Public).prototype);
    bind(self, value);
    if (entry.isSession) startCopy(self, value, options);
    return self;
  }

  // Settles like `result`, with its failure converted; an adopted value resolves as public.
  function settle(result, after) {
    return new Promise((resolve, reject) => {
      running.add(reject);
      result.then(
        (value) => {
          running.delete(reject);
          try {
            resolve(after(value));
          } catch (error) {
            reject(convert(error));
          }
        },
        (error) => {
          running.delete(reject);
          try {
            after(undefined);
          } catch {
            // The failure of the call is the one to report.
          }
          reject(convert(error));
        },
      );
    });
  }

  // A function guarded: its failures converted, a promise it returns settled the same way.
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
      return result instanceof Promise ? settle(result, (v) => v) : result;
    };
  }

  function makeClass(name, RawClass, classes) {
    const isSession = name === "Session" && typeof RawClass.prototype.__logSince === "function";

    // After a call on `self`: copy what its log gained (when the wasm object is still current).
    const after = (self, raw, key) => {
      if (!isSession || READS.has(key) || generationOf.get(self) !== generation || innerOf.get(self) !== raw) return;
      const copy = copies.get(self);
      if (copy !== undefined) copyLog(copy, raw);
    };

    // Runs member `key` of `self`'s wasm object (by name, so members added later are reached too).
    function call(self, key, args, kind) {
      const promised = ASYNC.has(key);
      let raw;
      let result;
      try {
        raw = innerFor(self, RawClass);
        if (kind === "get") result = raw[key];
        else if (kind === "set") result = (raw[key] = args[0]);
        else result = raw[key](...args);
        if (key === "__storeAttach") copies.get(self) && (copies.get(self).tag = args[0]);
        after(self, raw, key);
      } catch (error) {
        if (promised) return Promise.reject(convert(error));
        throw convert(error);
      }
      const options = copies.get(self)?.options;
      if (result instanceof Promise) {
        return settle(result, (value) => {
          after(self, raw, key);
          return adopt(value, classes, options);
        });
      }
      return adopt(result, classes, options, key === "branch" ? Object.getPrototypeOf(self).constructor : undefined);
    }

    function free() {
      const raw = innerOf.get(this);
      if (raw === undefined) return undefined;
      innerOf.delete(this);
      copies.delete(this);
      freed.add(this);
      // An object of a replaced instance is never freed in the fresh one, where its pointer may
      // name a live object.
      if (generationOf.get(this) !== generation) return undefined;
      try {
        return raw.free();
      } catch (error) {
        const message = error instanceof Error ? error.message : "";
        if (FREED.test(message) || STALE.test(message)) return undefined;
        throw convert(error);
      }
    }

    const Public = {
      [name]: class {
        constructor(...args) {
          let raw;
          try {
            raw = new RawClass(...args);
          } catch (error) {
            throw convert(error);
          }
          bind(this, raw);
          if (isSession) {
            try {
              startCopy(this, raw, args[0]);
            } catch (error) {
              throw convert(error);
            }
          }
        }
      },
    }[name];

    // Instance members, including the ones JS added to the glue's prototype.
    const proto = RawClass.prototype;
    for (const key of [...Object.getOwnPropertyNames(proto), ...Object.getOwnPropertySymbols(proto)]) {
      if (HIDDEN.has(key)) continue;
      const d = Object.getOwnPropertyDescriptor(proto, key);
      if (key === "free" || key === Symbol.dispose) {
        Object.defineProperty(Public.prototype, key, { value: free, writable: true, configurable: true });
      } else if (typeof d.value === "function") {
        const f = function (...args) {
          return call(this, key, args, "call");
        };
        if (typeof key === "string") Object.defineProperty(f, "name", { value: key });
        Object.defineProperty(Public.prototype, key, { value: f, writable: true, configurable: true });
      } else if (d.get || d.set) {
        Object.defineProperty(Public.prototype, key, {
          get: d.get &&
            function () {
              return call(this, key, [], "get");
            },
          set: d.set &&
            function (value) {
              call(this, key, [value], "set");
            },
          configurable: true,
        });
      }
    }

    // Members added to the glue's prototype after this point are forwarded by name too.
    const base = Object.create(Object.prototype);
    const late = new Proxy(base, {
      get(target, key, receiver) {
        if (receiver !== late && innerOf.has(receiver) && !(key in Object.prototype)) {
          let d;
          for (let p = proto; p !== null && p !== Object.prototype && d === undefined; p = Object.getPrototypeOf(p)) {
            d = Object.getOwnPropertyDescriptor(p, key);
          }
          if (d !== undefined && typeof d.value === "function") {
            return (...args) => call(receiver, key, args, "call");
          }
          if (d?.get) return call(receiver, key, [], "get");
        }
        return Reflect.get(target, key, receiver);
      },
    });
    Object.setPrototypeOf(Public.prototype, late);

    // Static members: constructors from a log or a file return the public class (or the
    // subclass they are called on).
    for (const key of Object.getOwnPropertyNames(RawClass)) {
      if (["length", "name", "prototype"].includes(key) || HIDDEN.has(key)) continue;
      const d = Object.getOwnPropertyDescriptor(RawClass, key);
      if (typeof d.value !== "function") continue;
      const optionsAt = key === "fromJSONL" ? 1 : key === "fromSessionFile" ? 2 : 0;
      const f = function (...args) {
        let result;
        try {
          result = RawClass[key](...args);
          const Target = typeof this === "function" && this.prototype instanceof Object ? this : Public;
          return adopt(result, classes, args[optionsAt], Target === Public || Target.prototype instanceof Public ? Target : Public);
        } catch (error) {
          throw convert(error);
        }
      };
      Object.defineProperty(f, "name", { value: key });
      Object.defineProperty(Public, key, { value: f, writable: true, configurable: true });
    }
    classes.set(RawClass, { Public, isSession });
    return Public;
  }

  const api = {};
  const classes = new Map();
  for (const [name, value] of Object.entries(wasm)) {
    if (name.startsWith("__")) continue;
    if (typeof value === "function" && /^class\b/.test(Function.prototype.toString.call(value))) {
      api[name] = makeClass(name, value, classes);
    } else if (typeof value === "function") {
      api[name] = wrap(value);
    } else {
      api[name] = value;
    }
  }
  return { api, wrap };
}
