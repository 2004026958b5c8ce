//! `Compactor.prune`: tool-output pruning on the compactor's message store
//! (`core::compactor::store`). The costs of the
//! parts are measured once per message, the pruners run on the cached copies without copying the
//! history, and a message pruned the same way as in the previous call comes back as the same
//! object, so pruning before every model call costs little more than reading the array.

use js_sys::Array;
use wasm_bindgen::prelude::*;

use super::compactor::Compactor;
use crate::core::compactor::StoredCosts;
use crate::core::prune::{self, PruneAction, PruneKind};
use crate::formats::Codec;

#[wasm_bindgen]
impl Compactor {
    /// Tool-output pruning alone (no model call): superseded reads, then the configured style
    /// (OpenCode's when none is configured). Returns a new array: unchanged messages are the
    /// caller's objects.
    pub fn prune(&self, messages: JsValue) -> Result<JsValue, JsValue> {
        let mut a = self.inner.analyze(&messages)?;
        let (supersede, style) = match &self.inner.options.settings.plan.prune {
            Some(p) => (p.supersede, p.style.at(js_sys::Date::now() as i64)),
            None => (
                true,
                prune::Style::OpenCode(prune::OpenCodeOptions::default()),
            ),
        };
        let mut state = self.inner.state.borrow_mut();
        state.store.measure_parts(&a.ids, &a.estimator);
        let cost = StoredCosts {
            store: &state.store,
            ids: &a.ids,
            estimator: &a.estimator,
        };
        let actions = prune::order_in_place(&mut a.incoming.messages, supersede, &style, &cost);
        let mut by_message: Vec<Vec<(usize, PruneKind)>> = vec![Vec::new(); a.ids.len()];
        for action in &actions {
            if let Some(list) = by_message.get_mut(action.message) {
                list.push((action.part, action.kind.clone()));
            }
        }
        // What the previous call made is reused; the rest is exported after the borrow ends
        // (exporting reads the caller's objects, whose getters may call back into this object).
        let reused: Vec<Option<Vec<JsValue>>> = by_message
            .iter()
            .enumerate()
            .map(|(i, done)| {
                let id = a.ids.get(i).copied().unwrap_or(0);
                let entry = state.store.get_mut(id)?;
                entry
                    .pruned
                    .as_ref()
                    .filter(|(made, _)| !done.is_empty() && made == done)
                    .map(|(_, values)| values.clone())
            })
            .collect();
        drop(state);
        let out = Array::new();
        let mut made = Vec::new();
        for (i, (done, reused)) in by_message.into_iter().zip(reused).enumerate() {
            let original = a.incoming.array.get(u32::try_from(i).unwrap_or(u32::MAX));
            if done.is_empty() {
                out.push(&original);
                continue;
            }
            let values = match reused {
                Some(values) => values,
                None => {
                    let values = export(&a, i, &actions, &original);
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
            if let Some(e) = state.store.get_mut(id) {
                e.pruned = Some((done, values));
            }
        }
        drop(state);
        self.inner.restore(a);
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
