//! The text argument of `Session.fromJSONL` and `Session.fromSessionFile`: one string, or an
//! iterable of strings, fed to the core's reader a piece at a time (the pieces may be cut
//! anywhere: a surrogate pair cut between two pieces is put back together before it crosses,
//! so it is not read as two lone surrogates, `core::pieces`). The memory grows ahead of each
//! piece (`heap.rs`).

use js_sys::JsString;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::convert::text_arg;
use super::error::throw;
use crate::core::pieces::{is_high_surrogate, PieceReader};
use crate::core::session::results;

/// Feeds `reader` the text of `value` as UTF-8, a string whole, an iterable's strings one by
/// one, and ends it. Anything else, or an element that is not a string, is `INVALID_INPUT` at
/// `path`.
pub fn read_pieces<R: PieceReader>(
    value: &JsValue,
    path: &str,
    mut reader: R,
) -> Result<R::Output, JsValue> {
    let mut push = |text: &JsValue| throw(reader.push(text_arg(text, path)?.as_bytes()));
    if value.is_string() {
        push(value)?;
        return throw(reader.finish());
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
        if len > 0 && is_high_surrogate(piece.char_code_at(len - 1)) {
            held = Some(piece.slice(len - 1, len));
            piece = piece.slice(0, len - 1);
        }
        if piece.length() > 0 {
            // Each piece becomes entries several times its size: the memory grows ahead, in
            // doubling steps, not a page at a time (`heap.rs`).
            super::heap::grow_ahead();
            push(&piece)?;
        }
    }
    // A high surrogate at the very end has no pair: it crosses as the lone surrogate it is.
    if let Some(high) = held {
        push(&high)?;
    }
    throw(reader.finish())
}
