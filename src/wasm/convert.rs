//! Values across the boundary: JS message arrays into the core's model (keeping the caller's array
//! so untouched messages come back as the very same objects), and JSON results into JS objects.

use super::error::throw;
pub use super::plain::to_js;
use super::plain::{snapshot, string_of, to_json_with_binaries, with_binaries, Kind::Input};
use crate::core::message::Message;
use crate::core::plain_data;
use crate::core::render::Rendered;
use crate::core::surrogates::escapes_to_marks_owned;
use crate::formats::convert::import_in;
use crate::formats::outgoing::Out;
use crate::formats::{self, Format};
use js_sys::Array;
use wasm_bindgen::prelude::*;

/// A caller's message array, imported.
pub struct Incoming {
    /// The caller's array (its elements are returned as they are when unchanged).
    pub array: Array,
    /// The format the messages are in.
    pub format: Format,
    /// The messages in the core's model.
    pub messages: Vec<Message>,
    /// The caller's binary values (`Uint8Array`, `ArrayBuffer`, `URL`) that the JSON of the whole
    /// array holds as numbered placeholders; `None` when there were none or when the messages were
    /// converted one by one (a `Compactor`'s cache: see [`super::plain::with_binaries`]).
    pub binaries: Option<Array>,
}

/// Imports `messages` (a JS array) in `format` (`None`: detect it).
pub fn incoming(messages: &JsValue, format: Option<Format>) -> Result<Incoming, JsValue> {
    require_array(messages, "messages")?;
    let array = snapshot(messages, "messages")?;
    let (json, binaries) = throw(to_json_with_binaries(
        messages, "messages", Input, "messages",
    ))?;
    let (format, messages) = throw(import_in(&json, format))?;
    Ok(Incoming {
        array,
        format,
        messages,
        binaries,
    })
}

/// Checks that an argument is an array: `INVALID_INPUT` at `path` otherwise.
pub fn require_array(value: &JsValue, path: &str) -> Result<(), JsValue> {
    match Array::is_array(value) {
        true => Ok(()),
        false => throw(Err(plain_data::not_an_array(path))),
    }
}

/// Checks a call's options object: absent, or an object whose keys are all in `allowed`
/// ([`crate::core::plain_data::check_keys`]).
pub fn check_keys(options: &JsValue, allowed: &[&str]) -> Result<(), JsValue> {
    if options.is_undefined() || options.is_null() {
        return Ok(());
    }
    let keys: Option<Vec<String>> = (options.is_object() && !Array::is_array(options)).then(|| {
        let keys = js_sys::Object::keys(options.unchecked_ref::<js_sys::Object>());
        keys.iter().filter_map(|k| k.as_string()).collect()
    });
    throw(plain_data::check_keys(keys.as_deref(), allowed))
}

/// A string argument: `INVALID_INPUT` at `path` for anything else (a number, an object), instead of
/// the `TypeError` the generated glue would throw.
/// A long string crosses as UTF-8 bytes ([`super::plain::string_of`]).
pub fn text_arg(value: &JsValue, path: &str) -> Result<String, JsValue> {
    string_of(value).ok_or_else(|| {
        let js_type = value.js_typeof().as_string().unwrap_or_default();
        super::error::to_js(&plain_data::not_a_string(path, &js_type), None)
    })
}

/// JSON text given by the caller (a session log, a session file): [`text_arg`], with the
/// `\udXXX` escapes of lone surrogates read as the marks the core keeps them as
/// ([`crate::core::surrogates`]).
pub fn json_text_arg(value: &JsValue, path: &str) -> Result<String, JsValue> {
    text_arg(value, path).map(escapes_to_marks_owned)
}

/// The caller's message at `index`, or the message exported in the caller's format
/// ([`crate::formats::outgoing`]).
pub fn outgoing(incoming: &Incoming, rendered: &[Rendered]) -> Array {
    let original = |i| at(&incoming.array, i);
    let binaries = incoming.binaries.as_ref();
    let values = formats::outgoing::outgoing(incoming.format, rendered).map(|out| match out {
        Out::Same(i) => original(i),
        Out::Exported(value, Some(i)) => with_binaries(&value, binaries, &original(i)),
        Out::Exported(value, None) => to_js(&value),
    });
    values.collect()
}

/// The caller's messages at `indices`, as they are.
pub fn originals(incoming: &Incoming, indices: impl Iterator<Item = usize>) -> Array {
    indices.map(|i| at(&incoming.array, i)).collect()
}

/// `array[index]` (`undefined` past its end, or for an index beyond `u32`).
pub fn at(array: &Array, index: usize) -> JsValue {
    u32::try_from(index).map_or(JsValue::UNDEFINED, |i| array.get(i))
}

/// Sets `key` on a JS object (results, requests, events); a failing setter is ignored.
pub fn set(obj: &JsValue, key: &str, value: &JsValue) {
    let _ = js_sys::Reflect::set(obj, &JsValue::from_str(key), value);
}

/// `obj[key]`, `undefined` when `obj` is not an object or the getter throws.
pub fn get(obj: &JsValue, key: &str) -> JsValue {
    if obj.is_object() {
        js_sys::Reflect::get(obj, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
    } else {
        JsValue::UNDEFINED
    }
}
