//! The caller's message array read one message at a time, for `trimMessages`: a message is
//! converted and counted only when the trimming rules ask for it (`core::trim::trim_history`,
//! through the core's `JsonSource`, which imports and counts it). Before that, one walk in JS
//! hashes every string the messages hold under a key ending in `id` (every tool id is one), which
//! tells the rules which messages may hold a given tool id; and, when the format is to be
//! detected, gives what detection reads of each message (its fields and those of its content
//! blocks, without their text). An array that is not plain data (class instances, Maps, cycles,
//! throwing getters...) is converted whole, as every call did before: by the caller of
//! [`OnDemandMessages::new`], which gets `None`, and by [`detect_format`] itself.

use js_sys::Array;
use wasm_bindgen::prelude::*;

use super::error::throw;
use super::plain::Kind;
use crate::core::estimate::Estimator;
use crate::core::trim::{JsonSource, TrimSource, TrimmedHistory};
use crate::formats::detect::{detect_decided, detect_shapes, Detected};
use crate::formats::{message_importer, Codec, Format};

/// A message array prepared for reading on demand.
pub struct OnDemandMessages {
    /// The caller's array as given (a snapshot): kept messages are returned from it.
    array: Array,
    /// The messages as they are read (LangChain messages as plain objects).
    plain: Array,
    format: Format,
    /// `[hash, index]` pairs of every string under an `id` key, sorted.
    ids: Vec<u32>,
}

impl OnDemandMessages {
    /// Prepares `messages` in `format` (`None`: detected from the whole array). `Ok(None)` when the
    /// array must be converted whole; errors: not an array, reading it threw, an ambiguous format.
    pub fn new(messages: &JsValue, format: Option<Format>) -> Result<Option<Self>, JsValue> {
        super::convert::require_array(messages, "messages")?;
        let array = super::plain::snapshot(messages, "messages")?;
        let Some(view) = super::plain::on_demand(&array, format.is_none()) else {
            return Ok(None);
        };
        let detected = format.is_none().then(|| detect_view(&view)).transpose()?;
        let Some(format) = format.or(detected.flatten().map(|d| d.format)) else {
            return Ok(None);
        };
        Ok(Some(OnDemandMessages {
            array,
            plain: view.plain,
            format,
            ids: view.ids,
        }))
    }

    /// The messages as a [`TrimSource`] whose tokens `estimator` counts (the core's
    /// [`JsonSource`]: each message converted when the rules first read it).
    pub fn source<'e>(&'e self, estimator: &'e Estimator) -> impl TrimSource<'static> + 'e {
        JsonSource {
            len: self.plain.length() as usize,
            read: |index: usize, path: &str| {
                let value = super::convert::at(&self.plain, index);
                super::plain::json_of(&value, path, Kind::Input, "messages")
            },
            import: message_importer(self.format),
            estimator,
            ids: &self.ids,
        }
    }

    /// The kept messages: the caller's objects, those kept in part rebuilt in the caller's format.
    pub fn output(&self, kept: &TrimmedHistory) -> Array {
        let out = Array::new();
        for (index, partial) in kept.messages() {
            let original = super::convert::at(&self.array, index);
            let Some(message) = partial else {
                out.push(&original);
                continue;
            };
            for value in self.format.export(std::slice::from_ref(message)) {
                out.push(&super::plain::with_binaries(&value, None, &original));
            }
        }
        out
    }
}

/// The format of `array` (a snapshot) and whether the messages showed it, from what detection
/// reads of each message, each distinct shape converted once; an array that is not plain data is
/// converted whole to detect it. Errors: an ambiguous format, messages that are not plain data.
pub fn detect_format(array: &Array) -> Result<Detected, JsValue> {
    let view = super::plain::on_demand(array, true);
    if let Some(detected) = view.map(|v| detect_view(&v)).transpose()?.flatten() {
        return Ok(detected);
    }
    let json = super::plain::to_json(array, "messages", Kind::Input, "messages")?;
    throw(detect_decided(&json))
}

/// The format the shapes of `view` show (`None` without shapes, or when their text does not
/// parse: the array is then converted whole).
fn detect_view(view: &super::plain::OnDemand) -> Result<Option<Detected>, JsValue> {
    let Some((text, order)) = &view.shapes else {
        return Ok(None);
    };
    detect_shapes(text, order).map(throw).transpose()
}
