// The JS half of src/wasm/plain.rs: the walk that checks and copies caller values before wasm
// reads them (`plainShape`), their UTF-8 JSON bytes (`jsonBytes`) and a long string's UTF-8 bytes
// (`utf8Into`), binary values put back (`restoreBinaries`), and the on-demand view of a message array
// that `trimMessages` reads (`onDemand`). An ES module; the build writes the CommonJS copy the
// Node glue requires (esbuild).
export function snapshot(array) {
  return Array.prototype.slice.call(array);
}
const ENCODER = new TextEncoder();
// A plain value as the UTF-8 bytes of its JSON text: the engine's encoder writes them far faster
// than a string crosses into wasm character by character.
export function jsonBytes(value) {
  return ENCODER.encode(JSON.stringify(value));
}
// A string's UTF-8 (a lone surrogate as U+FFFD, as for any string crossing into wasm), written by
// the engine's encoder straight into wasm memory, far faster than the generated glue passes a long
// string (it copies ASCII characters one at a time). `utf8Into` writes `value` into `into`, a view
// of wasm memory, and returns the bytes written; NOT_TEXT when `value` is not a string; when they
// do not all fit, -1 minus the bytes written: `unreadUnits` then tells the UTF-16 units left and
// `utf8Rest` writes them on (returning the same way).
const NOT_TEXT = -2147483648;
let pending = '';
export function utf8Into(value, into) {
  if (typeof value !== 'string') return NOT_TEXT;
  pending = value;
  return utf8Rest(into);
}
export function unreadUnits() {
  return pending.length;
}
export function utf8Rest(into) {
  const { read, written } = ENCODER.encodeInto(pending, into);
  pending = read === pending.length ? '' : pending.slice(read);
  return pending === '' ? written : -1 - written;
}
// A lone surrogate as MARK and a private-use character naming it (U+D800 + k as U+E000 + k), a
// MARK of the text as two: what src/core/surrogates.rs reads and writes back as JSON escapes.
const MARK = '\uFDD0';
const LONE_OR_MARK = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]|\uFDD0/g;
function needsMarks(s) {
  if (s.indexOf(MARK) !== -1) return true;
  if (typeof s.isWellFormed === 'function') return !s.isWellFormed();
  LONE_OR_MARK.lastIndex = 0;
  return LONE_OR_MARK.test(s);
}
function marked(s) {
  return s.replace(LONE_OR_MARK, (c) => c === MARK ? MARK + MARK : MARK + String.fromCharCode(0xe000 + c.charCodeAt(0) - 0xd800));
}
// A string from this many characters on crosses apart, as `utf8Into` writes it: the walk's copy holds
// `{ [LONG]: k }` in its place, and the k-th of the `longs` it returns is put back in wasm.
const LONG_TEXT = 1024;
const LONG = '\u0000text';
const BINARY = '\u0000binary';
const HEAD_BYTES = 65536;
function bytesOf(v) {
  return v instanceof ArrayBuffer ? new Uint8Array(v) : new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}
function base64(bytes) {
  if (typeof Buffer === 'function') return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  let s = '';
  for (let i = 0; i < bytes.length; i += 32768) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 32768));
  return btoa(s);
}
function isBinary(v) {
  return ArrayBuffer.isView(v) || v instanceof ArrayBuffer || (typeof URL === 'function' && v instanceof URL);
}
// mode 0: options (binary is refused later); 1: a placeholder that restoreBinaries puts back;
// 2: the data inline (base64 text, a URL's href), for what is stored as JSON.
function stand(v, k, mode) {
  if (typeof URL === 'function' && v instanceof URL) return mode === 2 ? v.href : { [BINARY]: k, url: v.href };
  const bytes = bytesOf(v);
  if (mode === 2) return base64(bytes);
  return { [BINARY]: k, bytes: bytes.length, head: base64(bytes.subarray(0, HEAD_BYTES)) };
}
// LangChain messages in the plain form the package reads: a `BaseMessage` instance as its
// serializable fields and type, its serialized form (`toJSON()`) likewise.
const LC_CLASSES = { HumanMessage: 'human', AIMessage: 'ai', SystemMessage: 'system', ToolMessage: 'tool' };
function langchainPlain(v) {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
  if (typeof v.getType === 'function' && typeof v.toJSON === 'function' && 'lc_kwargs' in v) {
    const json = v.toJSON();
    return { ...(json && typeof json.kwargs === 'object' ? json.kwargs : {}), type: v.getType() };
  }
  if (v.lc === 1 && v.type === 'constructor' && Array.isArray(v.id) && v.kwargs !== null && typeof v.kwargs === 'object') {
    const type = LC_CLASSES[String(v.id[v.id.length - 1]).replace(/Chunk$/, '')];
    if (type !== undefined) return { ...v.kwargs, type };
  }
  return undefined;
}
function langchainMessages(value) {
  if (!Array.isArray(value)) return langchainPlain(value);
  let copy;
  for (let i = 0; i < value.length; i++) {
    const plain = langchainPlain(value[i]);
    if (plain === undefined) continue;
    copy ??= value.slice();
    copy[i] = plain;
  }
  return copy;
}
export function plainShape(given, maxDepth, maxNodes, mode, splitLongs, maxText) {
  const options = mode === 0;
  if (Array.isArray(given) && given.length > maxNodes) return { path: '', reason: 'length' };
  const substituted = options ? undefined : langchainMessages(given);
  // A Map is read as an object of its entries, a Set as an array (here, where reading them may throw).
  const unwrap = (v) => v instanceof Map ? Object.fromEntries(v) : v instanceof Set ? Array.from(v) : v;
  const value = unwrap(substituted ?? given);
  const bad = (v, key) => {
    if (typeof v === 'bigint') return 'bigint';
    if (options && typeof v === 'number' && !Number.isFinite(v)) return 'number';
    if (!options && typeof v === 'string' && /id$/i.test(key) && typeof v.isWellFormed === 'function' && !v.isWellFormed()) return 'surrogate';
    return undefined;
  };
  const top = bad(value, '');
  if (top) return { path: '', reason: top };
  if (typeof value === 'string' && value.length > maxText) return { path: '', reason: 'text' };
  if (value === null || typeof value !== 'object' || isBinary(value)) return value === given ? undefined : { value, binaries: [] };
  // The walk copies what it reads (own enumerable fields, arrays, primitives as they are) and the
  // conversion reads the copy: a getter or a Proxy of the caller's is read exactly once, so one
  // that throws or changes on a second read cannot reach the conversion inside wasm.
  const shell = (v) => Array.isArray(v) ? new Array(v.length) : {};
  const values = [value], depths = [1], parents = [-1], keys = [''];
  const copies = [shell(value)];
  // Whether the copy reads the same as JSON text (no function or symbol values, which JSON drops).
  let text = true;
  const longs = [];
  const found = [];
  let nodes = 0;
  // Characters of text (strings and keys): past maxText the value is refused before anything
  // copies it (a string of hundreds of megabytes would exhaust the instance's memory).
  let chars = 0;
  const pathOf = (i) => {
    let p = '';
    for (; i > 0; i = parents[i]) p = keys[i] + p;
    return p;
  };
  const keyText = (array, k, name) => array ? '[' + k + ']' : (/^[A-Za-z_$][\w$]*$/.test(name) ? '.' + name : '[' + JSON.stringify(name) + ']');
  const stack = [0];
  while (stack.length > 0) {
    const i = stack.pop();
    const v = values[i];
    if (depths[i] > maxDepth) return { path: pathOf(i), reason: 'depth' };
    if (++nodes > maxNodes) return { path: pathOf(i), reason: 'size' };
    const c = copies[i];
    const array = Array.isArray(v);
    const own = array ? null : Object.keys(v);
    const n = array ? v.length : own.length;
    // An array longer than maxNodes (holes included: new Array(2 ** 32 - 1)) is refused at once.
    if (n > maxNodes) return { path: pathOf(i), reason: 'length' };
    if (!array) for (const name of own) if (name !== '__proto__') c[name] = undefined;
    for (let k = n - 1; k >= 0; k--) {
      const name = array ? '' : own[k];
      if (!array && name === '__proto__') return { path: pathOf(i) + keyText(false, k, name), reason: 'proto' };
      let child = unwrap(array ? v[k] : v[name]);
      // A value with a `toJSON` method (a Date) is read as JSON.stringify reads it: a Date as its
      // ISO string, an invalid one as null.
      if (child !== null && typeof child === 'object' && !isBinary(child) && typeof child.toJSON === 'function') {
        child = unwrap(child.toJSON(array ? String(k) : name));
      }
      const problem = bad(child, name);
      if (problem) return { path: pathOf(i) + keyText(array, k, name), reason: problem };
      chars += name.length + (typeof child === 'string' ? child.length : 0);
      if (chars > maxText) return { path: pathOf(i) + keyText(array, k, name), reason: 'text' };
      const slot = array ? k : name;
      // A lone surrogate cannot be in a Rust string: it crosses marked (src/core/surrogates.rs).
      if (!options && typeof child === 'string' && needsMarks(child)) child = marked(child);
      if (child === null || typeof child !== 'object') {
        if (typeof child === 'function' || typeof child === 'symbol') text = false;
        else if (typeof child === 'string' && splitLongs && child.length >= LONG_TEXT) {
          c[slot] = { [LONG]: longs.length };
          longs.push(child);
          continue;
        }
        // An undefined field is absent (as in JSON), whichever way the copy is read.
        if (child === undefined && !array) delete c[slot];
        else c[slot] = child;
        continue;
      }
      if (isBinary(child)) {
        c[slot] = child;
        if (!options) found.push([i, slot, child]);
        continue;
      }
      const cc = shell(child);
      c[slot] = cc;
      copies.push(cc);
      values.push(child);
      depths.push(depths[i] + 1);
      parents.push(i);
      keys.push(keyText(array, k, name));
      stack.push(values.length - 1);
    }
  }
  const binaries = [];
  for (const [i, key, child] of found) {
    copies[i][key] = stand(child, binaries.length, mode);
    binaries.push(child);
  }
  // Many objects cost many crossings value by value; a few (one message) cost less than the JSON.
  return { value: copies[0], binaries, text: text && nodes >= 32, longs };
}
// A message array prepared for reading on demand (`trimMessages`): the messages in the form
// `plainShape` reads them (LangChain messages as plain objects), and for each message the FNV-1a
// hash (of the UTF-16 code units) of every string under a key ending in 'id' (any case) that it
// holds itself or in an object element of one of its array fields, as [hash, index] pairs sorted:
// every importer reads tool ids there and nowhere deeper (`message.tool_call_id`,
// `message.content[k].toolCallId`, `message.tool_calls[k].id`...). With `detect`, also what format
// detection reads of each message (see below).
// `undefined` when, within those two levels, the array holds anything but plain objects and arrays
// (a class instance, a Map or Set, which `plainShape` would read as plain data where the walk did
// not look; with `detect`, a BigInt, a function or a symbol where detection looks) or a getter
// throws: the caller then converts the array whole. Deeper values are not looked at here: a
// message is checked whole when it is read.
function plainObject(v) {
  const p = Object.getPrototypeOf(v);
  return p === Object.prototype || p === null;
}
function idHash(s) {
  let h = 0x811c9dc5;
  for (let k = 0; k < s.length; k++) h = Math.imul(h ^ s.charCodeAt(k), 0x01000193);
  return h >>> 0;
}
function idKey(key) {
  const n = key.length;
  return n >= 2 && (key.charCodeAt(n - 1) | 32) === 100 && (key.charCodeAt(n - 2) | 32) === 105;
}
const NOT_PLAIN = {};
// What format detection (formats/detect.rs) reads of a value at `level` (0: a message, 1: a block
// of its `content` array, 2: a block of that block's `content`), as JSON text: the fields of an
// object with their `type` strings (and a message's `role`), the blocks of `content` arrays below
// level 2, and of every other value only its kind ('' for a string, 0 for a finite number, false
// for a boolean; null for a non-finite number, as JSON has it).
function shapeText(v, level, keyTexts) {
  switch (typeof v) {
    case 'string': return '""';
    case 'number': return Number.isFinite(v) ? '0' : 'null';
    case 'boolean': return 'false';
    case 'undefined': return 'null';
    case 'object': break;
    default: throw NOT_PLAIN;
  }
  if (v === null) return 'null';
  if (Array.isArray(v)) return '[]';
  if (level > 2 || isBinary(v)) return '{}';
  let out = '{';
  for (const key of Object.keys(v)) {
    if (key === '__proto__') throw NOT_PLAIN;
    const c = v[key];
    let t = keyTexts.get(key);
    if (t === undefined) {
      t = JSON.stringify(key) + ':';
      keyTexts.set(key, t);
    }
    if (out.length > 1) out += ',';
    out += t;
    if (typeof c === 'string' && (key === 'type' || (key === 'role' && level === 0))) out += JSON.stringify(c);
    else if (key === 'content' && level < 2 && Array.isArray(c)) {
      out += '[';
      for (let j = 0; j < c.length; j++) out += (j > 0 ? ',' : '') + shapeText(c[j], level + 1, keyTexts);
      out += ']';
    } else out += shapeText(c, 3, keyTexts);
  }
  return out + '}';
}
// A short key for the shape `shapeText` gives, to tell shapes apart without building their text:
// a control character per kind and per structure mark, one character per field name and kept
// string (numbered in `names` from U+0020 on, so never a control character).
function shapeKey(v, level, names) {
  switch (typeof v) {
    case 'string': return '\x01';
    case 'number': return Number.isFinite(v) ? '\x02' : '\x03';
    case 'boolean': return '\x04';
    case 'undefined': return '\x03';
    case 'object': break;
    default: throw NOT_PLAIN;
  }
  if (v === null) return '\x03';
  if (Array.isArray(v)) return '\x05';
  if (level > 2 || isBinary(v)) return '\x06';
  let out = '\x07';
  for (const key of Object.keys(v)) {
    if (key === '__proto__') throw NOT_PLAIN;
    const c = v[key];
    out += nameOf(key, names);
    if (typeof c === 'string' && (key === 'type' || (key === 'role' && level === 0))) out += '\x08' + nameOf(c, names);
    else if (key === 'content' && level < 2 && Array.isArray(c)) {
      out += '\x09';
      for (let j = 0; j < c.length; j++) out += shapeKey(c[j], level + 1, names);
      out += '\x0a';
    } else out += shapeKey(c, 3, names);
  }
  return out + '\x0b';
}
function nameOf(s, names) {
  let k = names.get(s);
  if (k === undefined) {
    // past the last code unit, the shapes are too many to be worth telling apart: convert whole
    if (names.size >= 0xffdf) throw NOT_PLAIN;
    k = String.fromCharCode(0x20 + names.size);
    names.set(s, k);
  }
  return k;
}
function onDemandView(array, detect) {
  const plain = langchainMessages(array) ?? array;
  const holders = new Map();
  const hashIds = (o, i) => {
    for (const key in o) {
      const c = o[key];
      if (typeof c === 'string' && idKey(key)) {
        const h = idHash(c);
        const at = holders.get(h);
        if (at === undefined) holders.set(h, [i]);
        else if (at[at.length - 1] !== i) at.push(i);
      }
    }
  };
  // a value at the levels the walk reads: false when it is not plain data
  const plainValue = (v) => v === null || typeof v !== 'object' || Array.isArray(v) || isBinary(v) || plainObject(v);
  for (let i = 0; i < plain.length; i++) {
    const m = plain[i];
    if (m === null || typeof m !== 'object' || Array.isArray(m) || isBinary(m)) continue;
    if (!plainObject(m)) return undefined;
    hashIds(m, i);
    for (const key in m) {
      const c = m[key];
      if (c === null || typeof c !== 'object') continue;
      if (!Array.isArray(c)) {
        if (!plainValue(c)) return undefined;
        continue;
      }
      for (let k = 0; k < c.length; k++) {
        const e = c[k];
        if (e === null || typeof e !== 'object' || Array.isArray(e) || isBinary(e)) continue;
        if (!plainObject(e)) return undefined;
        hashIds(e, i);
      }
    }
  }
  let shapes, order;
  if (detect) {
    // Messages of one shape share it: `order[i]` is the shape of message `i`.
    const keyTexts = new Map();
    const names = new Map();
    const seen = new Map();
    const list = [];
    order = new Uint32Array(plain.length);
    try {
      for (let i = 0; i < plain.length; i++) {
        const key = shapeKey(plain[i], 0, names);
        let k = seen.get(key);
        if (k === undefined) {
          k = list.length;
          list.push(shapeText(plain[i], 0, keyTexts));
          seen.set(key, k);
        }
        order[i] = k;
      }
    } catch (e) {
      if (e === NOT_PLAIN) return undefined;
      throw e;
    }
    shapes = '[' + list.join(',') + ']';
  }
  // [hash, index] pairs sorted by hash, then index
  const hashes = Uint32Array.from(holders.keys()).sort();
  const ids = [];
  for (const h of hashes) for (const i of holders.get(h)) ids.push(h, i);
  return { plain, ids: new Uint32Array(ids), shapes, order };
}
export function onDemand(array, detect) {
  try {
    return onDemandView(array, detect);
  } catch {
    return undefined;
  }
}
// Puts the caller's binary values back in place of their placeholders (in a value built from JSON).
export function restoreBinaries(value, binaries) {
  const at = (v) => v !== null && typeof v === 'object' && typeof v[BINARY] === 'number' ? binaries[v[BINARY]] : undefined;
  const top = at(value);
  if (top !== undefined) return top;
  const stack = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    for (const key of Object.keys(v)) {
      const child = v[key];
      const original = at(child);
      if (original !== undefined) v[key] = original;
      else if (child !== null && typeof child === 'object') stack.push(child);
    }
  }
  return value;
}
