//! JS values into JSON, safely: every conversion of caller data goes through [`to_json`], which
//! first walks the value in JS, without recursion, and refuses with the path of the offending field:
//! nesting deeper than [`MAX_DEPTH`] levels, more than [`MAX_NODES`] objects (a shared or cyclic
//! structure unfolds into that), more than [`MAX_TEXT`] characters of text, a BigInt, an own
//! `__proto__` key (it would become the prototype of a rebuilt copy), in messages an id that is not
//! well-formed Unicode (lone surrogates would collapse into one id), and in options a number that
//! is not finite (NaN would read as "absent"). The limits and the errors are the core's
//! ([`crate::core::plain_data`]); this module and its JS half run the walk.
//! The walk also copies what it reads (own enumerable fields; a `Map` as an object, a `Set` as an
//! array) and the conversion inside wasm reads that copy, never the caller's objects: a getter or
//! a Proxy that throws or answers differently on a second read cannot unwind through wasm frames.
//! The recursive conversion that follows therefore never overflows the wasm stack.
//!
//! A value with a `toJSON` method is read as `JSON.stringify` reads it: a `Date` becomes its ISO
//! string (in a session's log, in a rewritten message, in converted messages).
//!
//! The way back, [`to_js`], writes JSON text and lets the engine's `JSON.parse` build the value.
//! The JS half of this module is `js/snippets/plain.js`.

use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::convert::get;
use super::error::{throw, to_js as error_to_js};
use crate::core::error::Error;
use crate::core::plain_data;
use crate::core::surrogates::marks_to_escapes;
use crate::core::utf8_parts;

pub use crate::core::plain_data::{Kind, MAX_DEPTH, MAX_NODES, MAX_TEXT};

#[wasm_bindgen(module = "/js/snippets/plain.js")]
extern "C" {
    #[wasm_bindgen(catch, js_name = snapshot)]
    fn snapshot_array(array: &JsValue) -> Result<js_sys::Array, JsValue>;
    #[wasm_bindgen(catch, js_name = plainShape)]
    fn plain_shape(
        value: &JsValue,
        max_depth: u32,
        max_nodes: u32,
        mode: u32,
        split_longs: bool,
        max_text: u32,
    ) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = jsonBytes)]
    fn json_bytes(value: &JsValue) -> Result<js_sys::Uint8Array, JsValue>;
    #[wasm_bindgen(js_name = restoreBinaries)]
    fn restore_binaries(value: &JsValue, binaries: &js_sys::Array) -> JsValue;
    #[wasm_bindgen(js_name = onDemand)]
    fn on_demand_view(array: &js_sys::Array, detect: bool) -> JsValue;
    #[wasm_bindgen(js_name = utf8Into)]
    fn utf8_into(value: &JsValue, into: &mut [u8]) -> i32;
    #[wasm_bindgen(js_name = unreadUnits)]
    fn unread_units() -> u32;
    #[wasm_bindgen(js_name = utf8Rest)]
    fn utf8_rest(into: &mut [u8]) -> i32;
}

/// `value` as a Rust string when it is a JS string (a lone surrogate becomes U+FFFD), written as
/// UTF-8 by the engine's `TextEncoder.encodeInto` straight into wasm memory
/// ([`crate::core::utf8_parts`]): one call for a short string, and for a long one many times
/// faster than the generated glue, which copies ASCII text one character at a time.
pub fn string_of(value: &JsValue) -> Option<String> {
    utf8_parts::read(|into| utf8_into(value, into), unread_units, utf8_rest)
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
    let plain = get(&view, "plain").dyn_into::<js_sys::Array>().ok()?;
    let numbers = |k: &str| get(&view, k).dyn_into::<js_sys::Uint32Array>().ok();
    let ids = numbers("ids")?.to_vec();
    let shapes = match get(&view, "shapes").as_string() {
        Some(text) => Some((text, numbers("order")?.to_vec())),
        None if detect => return None,
        None => None,
    };
    Some(OnDemand { plain, ids, shapes })
}

/// The message of a thrown JS `Error`; `None` for another value.
pub fn error_message(thrown: &JsValue) -> Option<String> {
    let error = thrown.dyn_ref::<js_sys::Error>()?;
    Some(String::from(error.message()))
}

/// A copy of the caller's array, taken when the call is made (later changes to the array do not
/// reach a compaction in flight); reading it may throw (a getter, a Proxy): `INVALID_INPUT` at
/// `path`.
pub fn snapshot(array: &JsValue, path: &str) -> Result<js_sys::Array, JsValue> {
    // An array longer than MAX_NODES (holes included) is refused before it is copied.
    let length = get(array, "length").as_f64().unwrap_or(0.0);
    if let Some(e) = plain_data::too_long(Kind::Input, path, length) {
        return Err(error_to_js(&e, None));
    }
    snapshot_array(array).map_err(|e| {
        let error = plain_data::reading_threw(path, error_message(&e).as_deref());
        error_to_js(&error, None)
    })
}

/// The value to convert after the shape check: the caller's own, or a copy whose binary values
/// (`Uint8Array`, `ArrayBuffer`, `URL`) were replaced, with the replaced values in order.
#[derive(Default)]
pub struct Checked {
    /// What to convert.
    pub value: JsValue,
    /// The binary values replaced by placeholders ([`Kind::Input`]), for `restoreBinaries` ([`with_binaries`]).
    pub binaries: Option<js_sys::Array>,
    /// `value` is the walk's plain copy and reads the same as its JSON text.
    pub text: bool,
    /// The long strings that `value` holds placeholders for ([`plain_data::LONG_KEY`]), crossing apart.
    pub longs: Option<js_sys::Array>,
}

/// Checks the shape of `value` (see the module documentation); `path` names it in errors.
/// `split_longs`: long strings cross apart ([`Checked::longs`]).
pub fn check_shape(
    value: &JsValue,
    path: &str,
    kind: Kind,
    split_longs: bool,
) -> Result<Checked, Error> {
    let found = plain_shape(
        value,
        MAX_DEPTH,
        MAX_NODES,
        kind.mode(),
        split_longs,
        MAX_TEXT,
    )
    .map_err(|e| plain_data::unreadable(kind, path, error_message(&e).as_deref()))?;
    if found.is_undefined() || found.is_null() {
        let value = value.clone();
        return Ok(Checked {
            value,
            ..Checked::default()
        });
    }
    let field = |k: &str| get(&found, k);
    if let Ok(binaries) = field("binaries").dyn_into::<js_sys::Array>() {
        return Ok(Checked {
            value: field("value"),
            binaries: (kind == Kind::Input && binaries.length() > 0).then_some(binaries),
            text: field("text").as_bool().unwrap_or(false),
            longs: field("longs")
                .dyn_into::<js_sys::Array>()
                .ok()
                .filter(|l| l.length() > 0),
        });
    }
    let text = |k: &str| field(k).as_string().unwrap_or_default();
    let at = format!("{path}{}", text("path"));
    Err(plain_data::refusal(kind, &at, &text("reason")))
}

/// `value` as JSON after [`check_shape`]; `what` describes it in the error ("the message").
pub fn to_json(value: &JsValue, path: &str, kind: Kind, what: &str) -> Result<Value, JsValue> {
    throw(json_of(value, path, kind, what))
}

/// [`to_json`] with the error in the core's terms.
pub fn json_of(value: &JsValue, path: &str, kind: Kind, what: &str) -> Result<Value, Error> {
    to_json_with_binaries(value, path, kind, what).map(|(v, _)| v)
}

/// [`json_of`], also returning the binary values that placeholders in the JSON stand for.
pub fn to_json_with_binaries(
    value: &JsValue,
    path: &str,
    kind: Kind,
    what: &str,
) -> Result<(Value, Option<js_sys::Array>), Error> {
    super::heap::grow_ahead();
    let checked = check_shape(value, path, kind, true)?;
    let mut json = match checked.text.then(|| via_text(&checked.value)).flatten() {
        Some(json) => json,
        None => serde_wasm_bindgen::from_value(checked.value)
            .map_err(|e| plain_data::not_plain(kind, path, what, &e.to_string()))?,
    };
    if let Some(longs) = &checked.longs {
        plain_data::put_back_longs(&mut json, &|k| string_of(&longs.get(k)));
    }
    Ok((json, checked.binaries))
}

/// The walk's plain copy read through JSON text: `JSON.stringify` in the engine, one string across
/// the boundary, `serde_json` here — several times faster than reading it value by value. `None`
/// when the text does not parse back (a lone surrogate, which JSON escapes and `serde_json`
/// refuses): the caller then reads it value by value, which replaces lone surrogates.
fn via_text(copy: &JsValue) -> Option<Value> {
    let bytes = json_bytes(copy).ok()?;
    super::heap::reserve((bytes.length() as usize).saturating_mul(super::heap::VALUE_PER_BYTE));
    serde_json::from_slice(&bytes.to_vec()).ok()
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
    if !crate::formats::media::has_placeholder(json) {
        return value;
    }
    if let Some(b) = binaries {
        return restore_binaries(&value, b);
    }
    match check_shape(original, "", Kind::Input, false) {
        Ok(Checked {
            binaries: Some(b), ..
        }) => restore_binaries(&value, &b),
        _ => value,
    }
}

/// A JSON value as a plain JS value (objects, not Maps): written as JSON text here and parsed by
/// the engine's `JSON.parse`, which is several times faster than building the value one field at a
/// time across the boundary.
///
/// Lone surrogates marked on the way in ([`crate::core::surrogates`]) come back as they were.
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> JsValue {
    match serde_json::to_string(value) {
        Ok(text) => js_sys::JSON::parse(&marks_to_escapes(&text)).unwrap_or(JsValue::NULL),
        Err(_) => JsValue::NULL,
    }
}

/// A kept original ([`crate::core::message::Original`]) as a plain JS value: its JSON text parsed
/// by the engine, as [`to_js`] does, without building the value in Rust first.
pub fn original_to_js(original: &crate::core::message::Original) -> JsValue {
    js_sys::JSON::parse(&marks_to_escapes(original.text())).unwrap_or(JsValue::NULL)
}
