//! The text argument of `Session.fromJSONL` and `Session.fromSessionFile`: one string, or an
//! iterable of strings read a piece at a time (the pieces may be cut anywhere: a surrogate pair
//! cut between two pieces is put back together before it crosses, so it is not read as two lone
//! surrogates). The memory grows ahead of each piece (`heap.rs`).

use js_sys::JsString;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::error::throw;
use crate::core::session::results;

/// The high (first) surrogates, as `charCodeAt` gives them.
const HIGH_FIRST: f64 = 55296.0;
const HIGH_LAST: f64 = 56319.0;

/// Hands `each` the text of `value` as UTF-8: a string whole, an iterable's strings one by one.
/// Anything else, or an element that is not a string, is `INVALID_INPUT` at `path`.
pub fn for_each_piece(
    value: &JsValue,
    path: &str,
    mut each: impl FnMut(&str) -> Result<(), JsValue>,
) -> Result<(), JsValue> {
    if value.is_string() {
        return each(&super::convert::text_arg(value, path)?);
    }
    let js_type = |v: &JsValue| v.js_typeof().as_string().unwrap_or_default();
    let iterable = value.is_object() && !value.is_null();
    let Some(items) = (if iterable {
        js_sys::try_iter(value)?
    } else {
        None
    }) else {
        return throw(Err(results::not_text(path, &js_type(value))));
    };
    // The high surrogate that ended the previous piece, waiting for its pair.
    let mut held: Option<JsString> = None;
    for (i, item) in items.enumerate() {
        let item = item?;
        let Some(piece) = item.dyn_ref::<JsString>() else {
            return throw(Err(results::not_a_piece(path, i, &js_type(&item))));
        };
        let mut piece = match held.take() {
            Some(high) => high.concat(piece),
            None => piece.clone(),
        };
        let len = piece.length();
        if len > 0 && (HIGH_FIRST..=HIGH_LAST).contains(&piece.char_code_at(len - 1)) {
            held = Some(piece.slice(len - 1, len));
            piece = piece.slice(0, len - 1);
        }
        if piece.length() > 0 {
            // Each piece becomes entries several times its size: the memory grows ahead, in
            // doubling steps, not a page at a time (`heap.rs`).
            super::heap::grow_ahead();
            each(&super::convert::text_arg(&piece, path)?)?;
        }
    }
    // A high surrogate at the very end has no pair: it crosses as the lone surrogate it is.
    if let Some(high) = held {
        each(&super::convert::text_arg(&high, path)?)?;
    }
    Ok(())
}
