//! `Compactor.prune`: tool-output pruning on the compactor's message store, decided by its core
//! state (`core::compactor::CompactorState::prune`). The costs of the
//! parts are measured once per message, the pruners run on the cached copies without copying the
//! history, and a message pruned the same way as in the previous call comes back as the same
//! object, so pruning before every model call costs little more than reading the array.

use js_sys::Array;
use wasm_bindgen::prelude::*;

use super::compactor::Compactor;
use crate::core::prune::{self, PruneAction};
use crate::formats::Codec;

#[wasm_bindgen]
impl Compactor {
    /// Tool-output pruning alone (no model call): superseded reads, then the configured style
    /// (OpenCode's when none is configured). Returns a new array: unchanged messages are the
    /// caller's objects.
    pub fn prune(&self, messages: JsValue) -> Result<JsValue, JsValue> {
        let mut a = self.inner.analyze(&messages)?;
        // Exporting runs after the borrow ends (it reads the caller's objects, whose getters may
        // call back into this object).
        let (actions, pruned) = self.inner.state.borrow_mut().prune(
            &self.inner.options,
            &mut a.incoming.messages,
            &a.ids,
            &a.estimator,
            js_sys::Date::now() as i64,
        );
        let out = Array::new();
        let mut made = Vec::new();
        // Where each new pruned form lands in `out`, with the parts that replaced hidden ones.
        let mut forms: Vec<(u32, Vec<usize>)> = Vec::new();
        for (i, (done, reused)) in pruned.into_iter().enumerate() {
            let original = a.incoming.array.get(u32::try_from(i).unwrap_or(u32::MAX));
            if done.is_empty() {
                out.push(&original);
                continue;
            }
            let values = match reused {
                Some(values) => values,
                None => {
                    let values = export(&a, i, &actions, &original);
                    if values.len() == 1 {
                        let parts = done.iter().map(|(part, _)| *part).collect();
                        forms.push((out.length(), parts));
                    }
                    made.push((a.ids.get(i).copied().unwrap_or(0), done, values.clone()));
                    values
                }
            };
            for v in &values {
                out.push(v);
            }
        }
        let mut state = self.inner.state.borrow_mut();
        for (id, done, values) in made {
            state.keep_pruned(id, done, values);
        }
        drop(state);
        self.inner.restore(a);
        // The pruned forms are registered now, each knowing which of its parts stand for hidden
        // ones: a compaction that summarizes them lists those in its digest (`hidden`).
        self.inner.pruned_forms(&out, &forms);
        Ok(out.into())
    }
}

/// Message `i` of the call pruned by `actions`, in the caller's format.
fn export(
    a: &super::analyze::Analyzed,
    i: usize,
    actions: &[PruneAction],
    original: &JsValue,
) -> Vec<JsValue> {
    let Some(message) = a.incoming.messages.get(i) else {
        return Vec::new();
    };
    let pruned = prune::apply_one(message, i, actions);
    a.incoming
        .format
        .export(std::slice::from_ref(&pruned))
        .iter()
        .map(|v| super::plain::with_binaries(v, a.incoming.binaries.as_ref(), original))
        .collect()
}
