//! JS values into JSON, safely: every conversion of caller data goes through [`to_json`], which
//! first walks the value in JS, without recursion, and refuses with the path of the offending field:
//! nesting deeper than [`MAX_DEPTH`] levels, more than [`MAX_NODES`] objects (a shared or cyclic
//! structure unfolds into that), a BigInt, an own `__proto__` key (it would become the prototype
//! of a rebuilt copy), in messages an id that is not well-formed Unicode (lone surrogates would
//! collapse into one id), and in options a number that is not finite (NaN would read as "absent").
//! The recursive conversion that follows therefore never overflows the wasm stack.

use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::error::to_js as error_to_js;
use crate::core::error::Error;

/// The most levels of nesting accepted in one value (a message, an option, a usage object).
pub const MAX_DEPTH: u32 = 100;
/// The most objects and arrays accepted in one value.
pub const MAX_NODES: u32 = 5_000_000;

#[wasm_bindgen(inline_js = "
export function snapshot(array) {
  return Array.prototype.slice.call(array);
}
export function plainShape(value, maxDepth, maxNodes, options) {
  const bad = (v, key) => {
    if (typeof v === 'bigint') return 'bigint';
    if (options && typeof v === 'number' && !Number.isFinite(v)) return 'number';
    if (!options && typeof v === 'string' && /id$/i.test(key) && typeof v.isWellFormed === 'function' && !v.isWellFormed()) return 'surrogate';
    return undefined;
  };
  const top = bad(value, '');
  if (top) return { path: '', reason: top };
  if (value === null || typeof value !== 'object') return undefined;
  const values = [value], depths = [1], parents = [-1], keys = [''];
  let nodes = 0;
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
    if (ArrayBuffer.isView(v) || v instanceof ArrayBuffer) continue;
    const array = Array.isArray(v);
    const names = array ? null : Object.keys(v);
    const n = array ? v.length : names.length;
    for (let k = n - 1; k >= 0; k--) {
      const name = array ? '' : names[k];
      if (!array && name === '__proto__') return { path: pathOf(i) + keyText(false, k, name), reason: 'proto' };
      const child = array ? v[k] : v[name];
      const problem = bad(child, name);
      if (problem) return { path: pathOf(i) + keyText(array, k, name), reason: problem };
      if (child === null || typeof child !== 'object') continue;
      values.push(child);
      depths.push(depths[i] + 1);
      parents.push(i);
      keys.push(keyText(array, k, name));
      stack.push(values.length - 1);
    }
  }
  return undefined;
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
        options: bool,
    ) -> Result<JsValue, JsValue>;
}

/// A copy of the caller's array, taken when the call is made (later changes to the array do not
/// reach a compaction in flight); reading it may throw (a getter, a Proxy): `INVALID_INPUT` at
/// `path`.
pub fn snapshot(array: &JsValue, path: &str) -> Result<js_sys::Array, JsValue> {
    snapshot_array(array).map_err(|e| {
        let detail = e
            .dyn_ref::<js_sys::Error>()
            .map(|e| String::from(e.message()))
            .unwrap_or_else(|| "a non-Error value".to_string());
        error(Kind::Input, path, format!("reading it threw: {detail}"))
    })
}

/// What a refused value is, for the error: input (messages) or options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `INVALID_INPUT`.
    Input,
    /// `INVALID_OPTIONS`.
    Options,
}

fn error(kind: Kind, path: &str, message: String) -> JsValue {
    let e = match kind {
        Kind::Input => Error::invalid_input(path, message),
        Kind::Options => Error::invalid_option(path, message),
    };
    error_to_js(&e, None)
}

/// Checks the shape of `value` (see the module documentation); `path` names it in errors.
pub fn check_shape(value: &JsValue, path: &str, kind: Kind) -> Result<(), JsValue> {
    let found = plain_shape(value, MAX_DEPTH, MAX_NODES, kind == Kind::Options).map_err(|e| {
        let detail = e
            .dyn_ref::<js_sys::Error>()
            .map(|e| String::from(e.message()))
            .unwrap_or_else(|| "reading it threw".to_string());
        error(kind, path, format!("the value could not be read: {detail}"))
    })?;
    if found.is_undefined() || found.is_null() {
        return Ok(());
    }
    let get = |k: &str| {
        js_sys::Reflect::get(&found, &JsValue::from_str(k))
            .ok()
            .and_then(|v| v.as_string())
            .unwrap_or_default()
    };
    let at = format!("{path}{}", get("path"));
    let message = match get("reason").as_str() {
        "depth" => format!("nested more than {MAX_DEPTH} levels deep (or cyclic)"),
        "size" => format!("more than {MAX_NODES} objects and arrays (or a cycle)"),
        "number" => "must be a finite number (NaN and ±Infinity are not accepted)".to_string(),
        "bigint" => "a BigInt is not plain data: pass a number or a string".to_string(),
        "proto" => "a field named __proto__ cannot be copied faithfully: rename it".to_string(),
        _ => "an id must be well-formed Unicode (it holds a lone surrogate)".to_string(),
    };
    Err(error(kind, &at, message))
}

/// `value` as JSON after [`check_shape`]; `what` describes it in the error ("the message").
pub fn to_json(value: &JsValue, path: &str, kind: Kind, what: &str) -> Result<Value, JsValue> {
    check_shape(value, path, kind)?;
    serde_wasm_bindgen::from_value(value.clone())
        .map_err(|e| error(kind, path, format!("{what} is not plain data: {e}")))
}
