//! `Compactor.prune`: tool-output pruning on the compactor's identity cache. The costs of the
//! parts are measured once per message, the pruners run on the cached copies without copying the
//! history, and a message pruned the same way as in the previous call comes back as the same
//! object, so pruning before every model call costs little more than reading the array.

use js_sys::Array;
use wasm_bindgen::prelude::*;

use super::compactor::Compactor;
use super::identity::CachedCosts;
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
        state.identity.measure_parts(&a.ids, &a.estimator);
        let cost = CachedCosts {
            cache: &state.identity,
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
        let out = Array::new();
        for (i, done) in by_message.into_iter().enumerate() {
            let index = u32::try_from(i).unwrap_or(u32::MAX);
            let original = a.incoming.array.get(index);
            if done.is_empty() {
                out.push(&original);
                continue;
            }
            let id = a.ids.get(i).copied().unwrap_or(0);
            let entry = state.identity.get_mut(id);
            let reused = entry
                .as_ref()
                .and_then(|e| e.pruned.as_ref())
                .filter(|(made, _)| *made == done)
                .map(|(_, values)| values.clone());
            let values = match reused {
                Some(values) => values,
                None => {
                    let values = export(&a, i, &actions, &original);
                    if let Some(e) = entry {
                        e.pruned = Some((done, values.clone()));
                    }
                    values
                }
            };
            for v in &values {
                out.push(v);
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
