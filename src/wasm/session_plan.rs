//! `Session.plan()`: a preview of compacting the session now, with no model call and no change:
//! the same fields as `Compactor.plan()` (what would be summarized, kept, pruned, the tokens
//! after) and its `cost` in each request mode. The plan is the one `compact()` would make: the
//! core's `prepare` over the session's snapshot, with the session's budget.

use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

use super::convert::to_js;
use super::error::to_js as error_to_js;
use super::options::estimator_for;
use super::session::Session;
use crate::core::message::Part;
use crate::core::prepare::{prepare_floored, History};
use crate::core::report::{forecast_json, plan_json};
use crate::core::summary::Recognizer;

#[wasm_bindgen]
impl Session {
    /// What a compaction now would do (`Compactor.plan()`'s fields, `cost` included), without
    /// calling the summarizer or changing the session. An empty session plans nothing.
    pub fn plan(&self) -> Result<JsValue, JsValue> {
        let inner = &self.inner;
        let (snapshot, budget) = {
            let state = inner.state.borrow();
            match state.core.as_ref() {
                Some(core) => (Some(core.snapshot()), Some(core.budget())),
                None => (None, None),
            }
        };
        let mut settings = inner.options.settings.clone();
        if let Some(b) = budget {
            settings.budget = b;
        }
        let estimator = estimator_for(&inner.options)?;
        let cost = |p: &Part| estimator.part_tokens(p);
        let (messages, tokens, total, floor) = match &snapshot {
            Some(s) => (&s.messages[..], &s.tokens[..], s.total, s.floor),
            None => (&[][..], &[][..], 0, 0),
        };
        let prepared = prepare_floored(
            &settings,
            &History {
                messages,
                tokens,
                total,
                part_cost: &cost,
            },
            floor,
            false,
        )
        .map_err(|e| error_to_js(&e, None))?;
        let mut dto = plan_json(&prepared.plan, &prepared);
        let round = snapshot.as_ref().map_or(1, |s| {
            s.round(
                &prepared.plan,
                &Recognizer::with(&inner.options.settings.summary),
            )
        });
        let count = |t: &str| estimator.counter.count(t);
        let forecast = if messages.is_empty() {
            Value::Null
        } else {
            forecast_json(&settings, messages, tokens, &prepared.plan, round, &count)
        };
        if let Value::Object(obj) = &mut dto {
            obj.insert("cost".into(), forecast);
        }
        Ok(to_js(&json!(dto)))
    }
}
