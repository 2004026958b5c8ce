//! The state a `Compactor` shares with its in-flight compactions ([`Inner`]: the options, the
//! callbacks, the core's `CompactorState`) and how a call's array resolves to it: the store ids of
//! the caller's message objects, through a `WeakMap` from each object to the id of its imported
//! form in the core's identity-keyed store (`core::compactor::store`, where every rule over the
//! stored messages lives). A call converts only the objects the store does not hold; the walk
//! over the array runs in JS (one boundary crossing for the whole array), so `check` on a long
//! history costs a few microseconds per thousand messages. On the resolved ids, the core copies a
//! call's messages out for planning (continued from the last automatic compaction when it
//! applies) or decides an automatic call from stored counts alone.
//!
//! The rule for mutation: a message object is read once, the first time it is seen. Changing an
//! object in place afterwards is not noticed; pass a new object instead (as the AI SDK, LangChain
//! and React-style code do), or call `compactor.forget()` after mutating.

use std::cell::RefCell;

use js_sys::{Array, Uint32Array, WeakMap};
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::convert::Incoming;
use super::error::{throw, to_js as error_to_js};
use super::options::{estimator_for, Callbacks};
use super::plain::{error_message, to_json_with_binaries, Kind};
use crate::core::compactor::store::{array_threw, check_count};
use crate::core::compactor::unseen::Reader;
use crate::core::compactor::{Call, CompactorState, MessageStore, Quick};
use crate::core::estimate::Estimator;
use crate::core::options::Options;
use crate::formats::Format;

#[wasm_bindgen(module = "/js/snippets/identity.js")]
extern "C" {
    /// The known id of each message (0 when unknown), in a buffer reused across calls (no garbage
    /// per call); only its first `messages.length` entries are meaningful. Throws (caught) when
    /// reading the array throws (a getter or a Proxy of the caller's).
    #[wasm_bindgen(catch)]
    fn identify(map: &WeakMap, messages: &Array) -> Result<Uint32Array, JsValue>;
}

/// The core state of a `Compactor`, keeping the exported value of each message it made.
pub type State = CompactorState<JsValue>;

/// What a `Compactor` holds; shared with its in-flight compactions.
pub struct Inner {
    pub options: Options,
    pub callbacks: Callbacks,
    /// Mutable state, borrowed briefly and never across an `.await` or a call into JS.
    pub state: RefCell<State>,
    /// The caller's message objects to the ids of `state`'s store (see the module documentation).
    pub identity: WeakMap,
}
super::driven::owner!(Inner);

/// One call's messages: the caller's array (or, continued, the memo's head values followed by the
/// caller's messages after the ones it replaced) and format, without messages of its own (they
/// are `call`'s, the core's).
pub struct Analyzed {
    pub incoming: Incoming,
    pub call: Call,
}

impl Inner {
    /// Resolves `messages` through the identity map (only unseen objects are converted): a
    /// snapshot of the array with its format, the store ids, the estimator.
    pub fn resolve(&self, messages: &JsValue) -> Result<(Incoming, Vec<u32>, Estimator), JsValue> {
        super::convert::require_array(messages, "messages")?;
        let array = super::plain::snapshot(messages, "messages")?;
        let estimator = estimator_for(&self.options)?;
        // The store is taken out while JS runs (getters of the caller's objects may call back).
        let mut store = std::mem::take(&mut self.state.borrow_mut().store);
        let resolved = self.ids_of(&mut store, &array, &estimator);
        let mut state = self.state.borrow_mut();
        state.store = store;
        let (ids, format) = resolved?;
        state.settle(&ids);
        let incoming = Incoming {
            array,
            format,
            messages: Vec::new(),
            binaries: None,
        };
        Ok((incoming, ids, estimator))
    }

    /// The store ids of `array` (already checked to be an array) in the options' format (`None`:
    /// the store's format, or detected on the first call), importing and estimating only the
    /// messages `store` does not hold, and their format. `store` is the state's (taken out of it
    /// while JS runs; [`Inner::resolve`] puts it back and settles it).
    fn ids_of(
        &self,
        store: &mut MessageStore<JsValue>,
        array: &Array,
        estimator: &Estimator,
    ) -> Result<(Vec<u32>, Format), JsValue> {
        let n = array.length();
        throw(check_count(n))?;
        let buffer = identify(&self.identity, array)
            .map_err(|e| error_to_js(&array_threw(error_message(&e)), None))?;
        let mut ids = vec![0u32; n as usize];
        buffer.subarray(0, n).copy_to(&mut ids);
        // Given, or shown by earlier messages; else detected on this call. Plain text alone only
        // suggests `ai-sdk`: the first call whose messages show their format decides it, and
        // messages read provisionally under another format are read again (the store forgets
        // them). Detection reads each message's fields and blocks (each distinct shape once); an
        // array that is not plain data is converted whole.
        let format = store.decide_format(self.options.format, || {
            super::on_demand::detect_format(array).map(|d| (d.format, d.decided))
        })?;
        // Only what the store does not hold is read and converted (`core::compactor::unseen`).
        let reader = Reader {
            read: |i: usize| js_sys::Reflect::get_u32(array, u32::try_from(i).ok()?).ok(),
            batch: batch_json,
            one: |i: usize, value: &JsValue| {
                super::plain::json_of(value, &format!("messages[{i}]"), Kind::Input, "messages")
            },
        };
        let import = crate::formats::message_importer(format);
        let stored = |value: &JsValue, id: u32| {
            if value.is_object() {
                let id = JsValue::from_f64(f64::from(id));
                self.identity.set(value.unchecked_ref(), &id);
            }
        };
        throw(store.import_unseen(&mut ids, reader, import, estimator, stored))?;
        Ok((ids, format))
    }

    /// A call's messages copied out of the store for planning; `continuing` (an automatic call):
    /// continued from the last automatic compaction when it applies.
    pub fn analyze(&self, messages: &JsValue, continuing: bool) -> Result<Analyzed, JsValue> {
        let (mut incoming, ids, estimator) = self.resolve(messages)?;
        let call =
            (self.state.borrow_mut()).take_call((incoming.format, ids), estimator, continuing);
        let continued = call.continued.as_ref().map(|c| c.prefix_len);
        incoming.array = self.call_array(incoming.array, continued);
        Ok(Analyzed { incoming, call })
    }

    /// The array of a call: `array` (a snapshot of the caller's), or when the call continues the
    /// last automatic compaction, the memo's head values followed by `array` from `continued` on.
    fn call_array(&self, array: Array, continued: Option<usize>) -> Array {
        let Some(n) = continued else {
            return array;
        };
        let state = self.state.borrow();
        let head: Array = state.memo.iter().flat_map(|m| &m.head_values).collect();
        head.concat(&array.slice(u32::try_from(n).unwrap_or(u32::MAX), array.length()))
    }

    /// The trigger on an automatic call's history (continued from the last compaction when it
    /// applies), from stored counts alone (no message is copied), with the array it would return
    /// below the trigger.
    pub fn quick(&self, messages: &JsValue) -> Result<(Array, Quick), JsValue> {
        let (incoming, ids, _) = self.resolve(messages)?;
        let q = (self.state.borrow_mut()).quick(&self.options, incoming.format, &ids);
        Ok((self.call_array(incoming.array, q.continued), q))
    }

    /// Remembers that a compaction returned `out`: its objects are registered in the store now
    /// (as the next call would import them), and the next cut is floored past them when the next
    /// call starts with them (`core::compactor::boundary`). Should reading them fail, the next
    /// cut has no floor and the compaction stands.
    pub fn returned(&self, out: &Array) {
        let ids = self.resolve(out).map(|r| r.1).unwrap_or_default();
        self.state.borrow_mut().returned(&ids);
    }
}

/// A batch of unseen messages converted in one crossing (as the JSON bytes of one array, see
/// `super::plain`): `None` when one of them holds binary data (its placeholders would be numbered
/// across the batch, not within its message, as the way back expects), or when the batch fails
/// the shape check; each is then converted alone, so that an error names the message's own path.
fn batch_json(unseen: &[(usize, JsValue)]) -> Option<Vec<Value>> {
    let batch: Array = unseen.iter().map(|(_, v)| v).collect();
    match to_json_with_binaries(&batch.into(), "messages", Kind::Input, "messages") {
        Ok((Value::Array(items), None)) => Some(items),
        _ => None,
    }
}
