//! The JS side of a `Compactor`'s identity-keyed message store (`core::compactor::store`, where
//! every rule over the stored messages lives): a `WeakMap` from each message object the caller
//! passed to the id of its imported form. A call converts only the objects the store does not
//! hold; the walk over the array runs in JS (one boundary crossing for the whole array), so
//! `check` on a long history costs a few microseconds per thousand messages.
//!
//! The rule for mutation: a message object is read once, the first time it is seen. Changing an
//! object in place afterwards is not noticed; pass a new object instead (as the AI SDK, LangChain
//! and React-style code do), or call `compactor.forget()` after mutating.

use js_sys::{Array, Uint32Array, WeakMap};
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::error::{throw, to_js as error_to_js};
use super::plain::{to_json_with_binaries, Kind};
use crate::core::compactor::store::{array_threw, check_count, BATCH, BATCH_MAX};
use crate::core::compactor::MessageStore;
use crate::core::error::Error;
use crate::core::estimate::Estimator;
use crate::formats::detect::detect_decided;
use crate::formats::Format;

#[wasm_bindgen(module = "/js/snippets/identity.js")]
extern "C" {
    /// The known id of each message (0 when unknown), in a buffer reused across calls (no garbage
    /// per call); only its first `messages.length` entries are meaningful. Throws (caught) when
    /// reading the array throws (a getter or a Proxy of the caller's).
    #[wasm_bindgen(catch)]
    fn identify(map: &WeakMap, messages: &Array) -> Result<Uint32Array, JsValue>;
}

/// The map from the caller's objects to store ids. The store never gives an id twice, so ids of
/// messages it forgot are simply unknown to it.
#[derive(Default)]
pub struct Identity {
    map: WeakMap,
}

impl Identity {
    /// Resolves `array` (already checked to be an array) in `format` (`None`: the store's format,
    /// or detected on the first call), importing and estimating only the messages `store` does
    /// not hold: the id of each message, and their format. `store` is the caller's own (taken out
    /// of the state while JS runs; the caller settles it, `CompactorState::settle`).
    pub fn resolve(
        &self,
        store: &mut MessageStore<JsValue>,
        array: &Array,
        format: Option<Format>,
        estimator: &Estimator,
    ) -> Result<(Vec<u32>, Format), JsValue> {
        let n = array.length();
        throw(check_count(n))?;
        let buffer = identify(&self.map, array).map_err(|e| {
            let detail = e
                .dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()));
            error_to_js(&array_threw(detail), None)
        })?;
        let mut ids = vec![0u32; n as usize];
        buffer.subarray(0, n).copy_to(&mut ids);
        // Given, or shown by earlier messages; else detected on this call. Plain text alone only
        // suggests `ai-sdk`: the first call whose messages show their format decides it, and
        // messages read provisionally under another format are read again (the store forgets
        // them). Detection reads each message's fields and blocks (each distinct shape once); an
        // array that is not plain data is converted whole.
        let format = store.decide_format(format, || {
            let d = match super::on_demand::detect_format(array)? {
                Some(d) => d,
                None => throw(detect_decided(&to_json(array, "messages")?))?,
            };
            Ok::<_, JsValue>((d.format, d.decided))
        })?;
        let import = crate::formats::message_importer(format);
        let read = |i: usize| {
            let value = js_sys::Reflect::get_u32(array, u32::try_from(i).unwrap_or(u32::MAX));
            let e = || Error::invalid_input(format!("messages[{i}]"), "reading it threw");
            value.map(|v| (i, v)).map_err(|_| error_to_js(&e(), None))
        };
        let unseen = (store.unknown(&ids).into_iter().map(read)).collect::<Result<Vec<_>, _>>()?;
        // In batches of at most BATCH_MAX, each imported before the next is converted.
        for chunk in unseen.chunks(BATCH_MAX) {
            let mut batch = batch_json(chunk).map(Vec::into_iter);
            for (i, value) in chunk {
                let i = *i;
                let json = match batch.as_mut().and_then(Iterator::next) {
                    Some(json) => json,
                    None => to_json(value, &format!("messages[{i}]"))?,
                };
                let id = throw(store.import(i, &json, import, estimator))?;
                if value.is_object() {
                    self.map
                        .set(value.unchecked_ref(), &JsValue::from_f64(f64::from(id)));
                }
                if let Some(slot) = ids.get_mut(i) {
                    *slot = id;
                }
            }
        }
        Ok((ids, format))
    }
}

fn to_json(value: &JsValue, path: &str) -> Result<Value, JsValue> {
    super::plain::to_json(value, path, Kind::Input, "messages")
}

/// The unseen messages converted in one crossing (as the JSON bytes of one array, see
/// `super::plain`) when there are many: `None` when they are few, when one of them holds binary
/// data (its placeholders would be numbered across the batch, not within its message, as the
/// way back expects), or when the batch fails the shape check; each is then converted alone, so
/// an error names the message's own path.
fn batch_json(unseen: &[(usize, JsValue)]) -> Option<Vec<Value>> {
    if unseen.len() < BATCH {
        return None;
    }
    let batch: Array = unseen.iter().map(|(_, v)| v).collect();
    match to_json_with_binaries(&batch.into(), "messages", Kind::Input, "messages") {
        Ok((Value::Array(items), None)) if items.len() == unseen.len() => Some(items),
        _ => None,
    }
}
