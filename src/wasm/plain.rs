//! JS values into JSON, safely: every conversion of caller data goes through [`to_json`], which
//! first walks the value in JS, without recursion, and refuses with the path of the offending field:
//! nesting deeper than [`MAX_DEPTH`] levels, more than [`MAX_NODES`] objects (a shared or cyclic
//! structure unfolds into that), more than [`MAX_TEXT`] characters of text, a BigInt, an own `__proto__` key (it would become the prototype
//! of a rebuilt copy), in messages an id that is not well-formed Unicode (lone surrogates would
//! collapse into one id), and in options a number that is not finite (NaN would read as "absent").
//! The walk also copies what it reads (own enumerable fields; a `Map` as an object, a `Set` as an
//! array) and the conversion inside wasm reads that copy, never the caller's objects: a getter or
//! a Proxy that throws or answers differently on a second read cannot unwind through wasm frames.
//! The recursive conversion that follows therefore never overflows the wasm stack.
//!
//! The way back, [`to_js`], writes JSON text and lets the engine's `JSON.parse` build the value.

use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::error::to_js as error_to_js;
use crate::core::error::Error;

/// The most levels of nesting accepted in one value (a message, an option, a usage object).
pub const MAX_DEPTH: u32 = 100;
/// The most objects and arrays accepted in one value.
pub const MAX_NODES: u32 = 5_000_000;
/// The most characters of text (strings and keys, in UTF-16 code units) accepted in one value (one
/// message, an option): 2^27, far past any context window. A longer value is refused before it is
/// copied; converting it could exhaust the instance's 4 GiB of memory.
pub const MAX_TEXT: u32 = 1 << 27;

#[wasm_bindgen(inline_js = "
export function snapshot(array) {
  return Array.prototype.slice.call(array);
}
const ENCODER = new TextEncoder();
// A plain value as the UTF-8 bytes of its JSON text: the engine's encoder writes them far faster
// than a string crosses into wasm character by character.
export function jsonBytes(value) {
  return ENCODER.encode(JSON.stringify(value));
}
const BINARY = '\\u0000binary';
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
export function plainShape(given, maxDepth, maxNodes, mode, maxText) {
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
  const keyText = (array, k, name) => array ? '[' + k + ']' : (/^[A-Za-z_$][\\w$]*$/.test(name) ? '.' + name : '[' + JSON.stringify(name) + ']');
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
      const child = unwrap(array ? v[k] : v[name]);
      const problem = bad(child, name);
      if (problem) return { path: pathOf(i) + keyText(array, k, name), reason: problem };
      chars += name.length + (typeof child === 'string' ? child.length : 0);
      if (chars > maxText) return { path: pathOf(i) + keyText(array, k, name), reason: 'text' };
      const slot = array ? k : name;
      if (child === null || typeof child !== 'object') {
        if (typeof child === 'function' || typeof child === 'symbol') text = false;
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
  // Many objects cost many crossings value by value; a few (one message) cost less than the JSON
  // (long strings cross through the engine's encoder either way, see scripts/fast-strings.mjs).
  return { value: copies[0], binaries, text: text && nodes >= 32 };
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
    case 'string': return '\"\"';
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
    case 'string': return '\\x01';
    case 'number': return Number.isFinite(v) ? '\\x02' : '\\x03';
    case 'boolean': return '\\x04';
    case 'undefined': return '\\x03';
    case 'object': break;
    default: throw NOT_PLAIN;
  }
  if (v === null) return '\\x03';
  if (Array.isArray(v)) return '\\x05';
  if (level > 2 || isBinary(v)) return '\\x06';
  let out = '\\x07';
  for (const key of Object.keys(v)) {
    if (key === '__proto__') throw NOT_PLAIN;
    const c = v[key];
    out += nameOf(key, names);
    if (typeof c === 'string' && (key === 'type' || (key === 'role' && level === 0))) out += '\\x08' + nameOf(c, names);
    else if (key === 'content' && level < 2 && Array.isArray(c)) {
      out += '\\x09';
      for (let j = 0; j < c.length; j++) out += shapeKey(c[j], level + 1, names);
      out += '\\x0a';
    } else out += shapeKey(c, 3, names);
  }
  return out + '\\x0b';
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
")]
extern "C" {
    #[wasm_bindgen(catch, js_name = snapshot)]
    fn snapshot_array(array: &JsValue) -> Result<js_sys::Array, JsValue>;
    #[wasm_bindgen(catch, js_name = plainShape)]
    fn plain_shape(
        value: &JsValue,
        max_depth: u32,
        max_nodes: u32,
        mode: u32,
        max_text: u32,
    ) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = jsonBytes)]
    fn json_bytes(value: &JsValue) -> Result<js_sys::Uint8Array, JsValue>;
    #[wasm_bindgen(js_name = restoreBinaries)]
    fn restore_binaries(value: &JsValue, binaries: &js_sys::Array) -> JsValue;
    #[wasm_bindgen(js_name = onDemand)]
    fn on_demand_view(array: &js_sys::Array, detect: bool) -> JsValue;
}

/// A message array prepared for reading one message at a time (see `onDemand` above).
pub struct OnDemand {
    /// The messages as they are read: the caller's, LangChain messages as plain objects.
    pub plain: js_sys::Array,
    /// `[hash, index]` pairs, sorted: the hash of every string under a key ending in `id` (any
    /// case) that a message holds itself or in an object element of one of its arrays (where
    /// every importer reads tool ids), see [`id_hash`].
    pub ids: Vec<u32>,
    /// With `detect`: what format detection reads of each message, as a JSON array of the
    /// distinct shapes and the shape of each message.
    pub shapes: Option<(String, Vec<u32>)>,
}

/// `array` prepared for reading on demand; `None` when, in the levels the walk reads (a message,
/// its fields, the elements of its arrays), it holds anything but plain data (the caller then
/// converts it whole). Deeper values are checked when their message is read. `detect`: also the
/// shapes format detection reads.
pub fn on_demand(array: &js_sys::Array, detect: bool) -> Option<OnDemand> {
    let view = on_demand_view(array, detect);
    if !view.is_object() {
        return None;
    }
    let field = |k: &str| js_sys::Reflect::get(&view, &JsValue::from_str(k)).ok();
    let plain = field("plain")?.dyn_into::<js_sys::Array>().ok()?;
    let ids = field("ids")?
        .dyn_into::<js_sys::Uint32Array>()
        .ok()?
        .to_vec();
    let shapes = match (field("shapes").and_then(|s| s.as_string()), field("order")) {
        (Some(text), Some(order)) => {
            Some((text, order.dyn_into::<js_sys::Uint32Array>().ok()?.to_vec()))
        }
        _ if detect => return None,
        _ => None,
    };
    Some(OnDemand { plain, ids, shapes })
}

/// The hash `onDemand` gives a string: FNV-1a over its UTF-16 code units.
pub fn id_hash(text: &str) -> u32 {
    text.encode_utf16().fold(0x811c_9dc5, |h: u32, unit| {
        (h ^ u32::from(unit)).wrapping_mul(0x0100_0193)
    })
}

/// A copy of the caller's array, taken when the call is made (later changes to the array do not
/// reach a compaction in flight); reading it may throw (a getter, a Proxy): `INVALID_INPUT` at
/// `path`.
pub fn snapshot(array: &JsValue, path: &str) -> Result<js_sys::Array, JsValue> {
    // An array longer than MAX_NODES (holes included) is refused before it is copied.
    let length = js_sys::Reflect::get(array, &JsValue::from_str("length"))
        .ok()
        .and_then(|l| l.as_f64())
        .unwrap_or(0.0);
    if length > f64::from(MAX_NODES) {
        return Err(error_to_js(
            &error(
                Kind::Input,
                path,
                format!("{length} elements: an array longer than {MAX_NODES} elements"),
            ),
            None,
        ));
    }
    snapshot_array(array).map_err(|e| {
        let detail = e
            .dyn_ref::<js_sys::Error>()
            .map(|e| String::from(e.message()))
            .unwrap_or_else(|| "a non-Error value".to_string());
        error_to_js(
            &error(Kind::Input, path, format!("reading it threw: {detail}")),
            None,
        )
    })
}

/// What a value is: messages (`INVALID_INPUT`; binary data becomes a placeholder that
/// [`restore`] puts back), messages to store as JSON (`INVALID_INPUT`; binary data inline as
/// base64, a `URL` as its text), or options (`INVALID_OPTIONS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Messages passed through: kept messages come back as the caller's objects.
    Input,
    /// Messages stored (a session's log).
    Stored,
    /// Options and usage.
    Options,
}

impl Kind {
    fn mode(self) -> u32 {
        match self {
            Kind::Options => 0,
            Kind::Input => 1,
            Kind::Stored => 2,
        }
    }
}

fn error(kind: Kind, path: &str, message: String) -> Error {
    match kind {
        Kind::Input | Kind::Stored => Error::invalid_input(path, message),
        Kind::Options => Error::invalid_option(path, message),
    }
}

/// The value to convert after the shape check: the caller's own, or a copy whose binary values
/// (`Uint8Array`, `ArrayBuffer`, `URL`) were replaced, with the replaced values in order.
pub struct Checked {
    /// What to convert.
    pub value: JsValue,
    /// The binary values replaced by placeholders ([`Kind::Input`]), for [`restore`].
    pub binaries: Option<js_sys::Array>,
    /// `value` is the walk's plain copy and reads the same as its JSON text.
    pub text: bool,
}

/// Checks the shape of `value` (see the module documentation); `path` names it in errors.
pub fn check_shape(value: &JsValue, path: &str, kind: Kind) -> Result<Checked, JsValue> {
    shape(value, path, kind).map_err(|e| error_to_js(&e, None))
}

/// [`check_shape`] with the error in the core's terms.
fn shape(value: &JsValue, path: &str, kind: Kind) -> Result<Checked, Error> {
    let found = plain_shape(value, MAX_DEPTH, MAX_NODES, kind.mode(), MAX_TEXT).map_err(|e| {
        let detail = e
            .dyn_ref::<js_sys::Error>()
            .map(|e| String::from(e.message()))
            .unwrap_or_else(|| "reading it threw".to_string());
        error(kind, path, format!("the value could not be read: {detail}"))
    })?;
    if found.is_undefined() || found.is_null() {
        return Ok(Checked {
            value: value.clone(),
            binaries: None,
            text: false,
        });
    }
    let field = |k: &str| js_sys::Reflect::get(&found, &JsValue::from_str(k)).unwrap_or_default();
    if let Ok(binaries) = field("binaries").dyn_into::<js_sys::Array>() {
        return Ok(Checked {
            value: field("value"),
            binaries: (kind == Kind::Input && binaries.length() > 0).then_some(binaries),
            text: field("text").as_bool().unwrap_or(false),
        });
    }
    let get = |k: &str| field(k).as_string().unwrap_or_default();
    let at = format!("{path}{}", get("path"));
    let message = match get("reason").as_str() {
        "depth" => format!("nested more than {MAX_DEPTH} levels deep (or cyclic)"),
        "size" => format!("more than {MAX_NODES} objects and arrays (or a cycle)"),
        "length" => format!("an array longer than {MAX_NODES} elements"),
        "text" => format!(
            "more than {MAX_TEXT} characters of text (the most one value may hold; split it or \
             leave it out)"
        ),
        "number" => "must be a finite number (NaN and ±Infinity are not accepted)".to_string(),
        "bigint" => "a BigInt is not plain data: pass a number or a string".to_string(),
        "proto" => "a field named __proto__ cannot be copied faithfully: rename it".to_string(),
        _ => "an id must be well-formed Unicode (it holds a lone surrogate)".to_string(),
    };
    Err(error(kind, &at, message))
}

/// `value` as JSON after [`check_shape`]; `what` describes it in the error ("the message").
pub fn to_json(value: &JsValue, path: &str, kind: Kind, what: &str) -> Result<Value, JsValue> {
    to_json_with_binaries(value, path, kind, what).map(|(v, _)| v)
}

/// [`to_json`], also returning the binary values that placeholders in the JSON stand for.
pub fn to_json_with_binaries(
    value: &JsValue,
    path: &str,
    kind: Kind,
    what: &str,
) -> Result<(Value, Option<js_sys::Array>), JsValue> {
    json_with_binaries(value, path, kind, what).map_err(|e| error_to_js(&e, None))
}

/// [`to_json`] with the error in the core's terms.
pub fn json_of(value: &JsValue, path: &str, kind: Kind, what: &str) -> Result<Value, Error> {
    json_with_binaries(value, path, kind, what).map(|(v, _)| v)
}

fn json_with_binaries(
    value: &JsValue,
    path: &str,
    kind: Kind,
    what: &str,
) -> Result<(Value, Option<js_sys::Array>), Error> {
    let checked = shape(value, path, kind)?;
    if let Some(json) = checked.text.then(|| via_text(&checked.value)).flatten() {
        return Ok((json, checked.binaries));
    }
    let json = serde_wasm_bindgen::from_value(checked.value)
        .map_err(|e| error(kind, path, format!("{what} is not plain data: {e}")))?;
    Ok((json, checked.binaries))
}

/// The walk's plain copy read through JSON text: `JSON.stringify` in the engine, one string across
/// the boundary, `serde_json` here — several times faster than reading it value by value. `None`
/// when the text does not parse back (a lone surrogate, which JSON escapes and `serde_json`
/// refuses): the caller then reads it value by value, which replaces lone surrogates.
fn via_text(copy: &JsValue) -> Option<Value> {
    serde_json::from_slice(&json_bytes(copy).ok()?.to_vec()).ok()
}

use crate::formats::media::BINARY_PLACEHOLDER as BINARY_KEY;

/// Whether `json` holds a binary placeholder.
pub fn has_placeholder(json: &Value) -> bool {
    let mut stack = vec![json];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(o) => {
                if o.contains_key(BINARY_KEY) {
                    return true;
                }
                stack.extend(o.values());
            }
            Value::Array(a) => stack.extend(a),
            _ => {}
        }
    }
    false
}

/// `json` as a JS value, with the caller's binary values put back where it holds placeholders:
/// from `binaries` (those of the whole converted array) or, when the messages were converted one
/// by one, from the caller's message `original` that `json` was exported from.
pub fn with_binaries(
    json: &Value,
    binaries: Option<&js_sys::Array>,
    original: &JsValue,
) -> JsValue {
    let value = to_js(json);
    if !has_placeholder(json) {
        return value;
    }
    if let Some(b) = binaries {
        return restore_binaries(&value, b);
    }
    match check_shape(original, "", Kind::Input) {
        Ok(Checked {
            binaries: Some(b), ..
        }) => restore_binaries(&value, &b),
        _ => value,
    }
}

/// A JSON value as a plain JS value (objects, not Maps): written as JSON text here and parsed by
/// the engine's `JSON.parse`, which is several times faster than building the value one field at a
/// time across the boundary.
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> JsValue {
    match serde_json::to_string(value) {
        Ok(text) => js_sys::JSON::parse(&text).unwrap_or(JsValue::NULL),
        Err(_) => JsValue::NULL,
    }
}
