//! `Compactor`: the stateless-over-messages API of api.md. The options are parsed once; every method
//! works on the caller's array and returns new values (the input is never mutated). Its state and
//! every decision on it (`check`'s count, learning and trigger, the plan) are the core's
//! `CompactorState`; this file converts the arguments and the results.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::Reflect;
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

use super::analyze::{Inner, State};
use super::convert::to_js;
use super::error::throw;
use super::identity::Identity;
use super::options::split_options;
use crate::core::estimate::Usage;
use crate::core::options::parse;
use crate::core::plan::{Disposition, Escalation, Plan};
use crate::core::prepare::Prepared;
use crate::core::summary::Recognizer;

/// Compacts message arrays (see api.md). Construct with `new Compactor(options)`.
#[wasm_bindgen(skip_typescript)]
pub struct Compactor {
    pub(crate) inner: Rc<Inner>,
}

/// The options of `compact` and `maybeCompact`.
fn check_call(options: &JsValue) -> Result<(), JsValue> {
    super::convert::check_keys(options, &["instructions", "signal", "force"])
}

/// The caller's array as it is now (the compaction runs a microtask later); anything else as it
/// is (the compaction reports it).
fn snapshot(messages: &JsValue) -> Result<JsValue, JsValue> {
    if js_sys::Array::is_array(messages) {
        super::plain::snapshot(messages, "messages").map(JsValue::from)
    } else {
        Ok(messages.clone())
    }
}

fn usage_of(options: &JsValue) -> Result<Option<Usage>, JsValue> {
    super::convert::check_keys(options, &["usage"])?;
    if options.is_undefined() || options.is_null() {
        return Ok(None);
    }
    let value = Reflect::get(options, &JsValue::from_str("usage")).unwrap_or(JsValue::UNDEFINED);
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    let json = super::plain::to_json(&value, "usage", super::plain::Kind::Options, "usage")?;
    throw(Usage::parse(&json, "usage")).map(Some)
}

/// A plan as `plan()` reports it (a `Compactor`'s and a `Session`'s), without `cost`.
pub fn plan_json(plan: &Plan, prepared: &Prepared) -> Value {
    let of = |d: Disposition| plan.indices(d);
    let escalations: Vec<Value> = plan
        .escalations
        .iter()
        .map(|e| match e {
            Escalation::Pruned { freed } => json!({"step": "prune", "tokensFreed": freed}),
            Escalation::ShrankTail { from, to } => {
                json!({"step": "shrink", "from": from, "to": to})
            }
            Escalation::SplitTurn => json!({"step": "split-turn"}),
            Escalation::Truncated { freed } => json!({"step": "truncate", "tokensFreed": freed}),
            Escalation::KeptNothing => json!({"step": "keep-nothing"}),
        })
        .collect();
    json!({
        "shouldCompact": prepared.decision.should_compact,
        "reason": prepared.decision.reason,
        "threshold": prepared.decision.threshold,
        "tokensBefore": plan.tokens_before,
        "tokensAfter": plan.tokens_after,
        "summarize": of(Disposition::Summarize),
        "turnPrefix": of(Disposition::TurnPrefix),
        "dropped": of(Disposition::Drop),
        "pinned": of(Disposition::Pinned),
        "kept": of(Disposition::Keep),
        "system": of(Disposition::System),
        "previousSummary": plan.previous_summary,
        "splitTurn": plan.split_turn,
        "pruned": plan.pruned.iter().map(|a| json!({"message": a.message, "part": a.part, "tokensFreed": a.tokens_freed})).collect::<Vec<_>>(),
        "truncated": plan.truncations.iter().map(|t| json!({"message": t.message, "part": t.part, "tokensFreed": t.tokens_freed()})).collect::<Vec<_>>(),
        "escalations": escalations,
        "noop": plan.is_noop(),
    })
}

impl Compactor {
    /// The call's options checked and its messages copied and converted now, in the call itself:
    /// bad input becomes the promise's rejection, and a failure of the instance (out of memory)
    /// happens where the trap guard of the JS entry sees it, never later inside the promise.
    fn converted(&self, messages: &JsValue, options: &JsValue) -> Result<JsValue, JsValue> {
        check_call(options)?;
        let copy = snapshot(messages)?;
        if js_sys::Array::is_array(&copy) {
            self.inner.resolve(&copy)?;
        }
        Ok(copy)
    }
}

#[wasm_bindgen]
impl Compactor {
    /// Validates the options up front (`INVALID_OPTIONS` naming the key).
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<Compactor, JsValue> {
        let (json, callbacks) = split_options(&options)?;
        let options = throw(parse(&json))?;
        throw(options.check_summarizer(callbacks.summarize.is_some()))?;
        let recognizer = Recognizer::with(&options.settings.summary);
        let state = RefCell::new(State::new(&options));
        Ok(Compactor {
            inner: Rc::new(Inner {
                options,
                recognizer,
                callbacks,
                state,
                identity: Identity::default(),
            }),
        })
    }

    /// Forgets every message object seen so far. Messages are read once, when first seen; call
    /// this after changing a message object in place (or pass a new object instead).
    pub fn forget(&self) {
        self.inner.state.borrow_mut().store.clear();
    }

    /// `{ total, perMessage, byKind }`.
    pub fn estimate(&self, messages: JsValue) -> Result<JsValue, JsValue> {
        let r = self.inner.resolve(&messages)?;
        let state = self.inner.state.borrow();
        let per_kind = state.store.kinds(&r.ids);
        let per_message: Vec<usize> = per_kind.iter().map(|k| k.total()).collect();
        let k: crate::core::estimate::KindTokens = per_kind.into_iter().sum();
        let learned = state.learned;
        drop(state);
        Ok(to_js(&json!({
            "total": per_message.iter().sum::<usize>(),
            "perMessage": per_message,
            "byKind": {"text": k.text, "toolCalls": k.tool_calls, "toolResults": k.tool_results, "images": k.images, "reasoning": k.reasoning, "system": k.system},
            "calibration": super::calibration::to_json(&learned, self.inner.options.profile.name),
        })))
    }

    /// `{ shouldCompact, tokens, tokensError, threshold, reason }`; `options.usage` calibrates the
    /// count and self-calibration learns from it. Only messages not seen before are converted:
    /// O(new messages) plus a walk of the array.
    pub fn check(&self, messages: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
        let r = self.inner.resolve(&messages)?;
        let usage = usage_of(&options)?;
        let c = self
            .inner
            .state
            .borrow_mut()
            .check(&self.inner.options, &r.ids, usage.as_ref());
        Ok(to_js(&json!({
            "shouldCompact": c.decision.should_compact,
            "tokens": c.count.tokens(),
            "tokensError": c.count.error,
            "threshold": c.decision.threshold,
            "reason": c.decision.reason,
        })))
    }

    /// A preview of what `compact` would do, without a model call.
    pub fn plan(&self, messages: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
        let a = self.inner.analyze(&messages)?;
        let usage = usage_of(&options)?;
        let prepared = self.inner.prepare(&a, usage.as_ref(), false)?;
        let mut dto = plan_json(&prepared.plan, &prepared);
        if let Some(obj) = dto.as_object_mut() {
            obj.insert(
                "cost".into(),
                super::cost::cost_json(&self.inner, &a, &prepared.plan),
            );
        }
        let out = to_js(&dto);
        drop(prepared);
        self.inner.restore(a);
        Ok(out)
    }

    /// The synchronous part of `compact` and `maybeCompact` (`js/driver.mjs` installs both):
    /// the call's options checked and its messages copied and converted now, in the call itself
    /// (bad input becomes the promise's rejection, and a failure of the instance happens where
    /// the trap guard sees it), then the result of a call that changes nothing or the compaction
    /// as a `__Driven` handle. `automatic`: `maybeCompact`.
    #[wasm_bindgen(js_name = __compact)]
    pub fn start_compaction(
        &self,
        messages: JsValue,
        options: JsValue,
        automatic: bool,
    ) -> Result<JsValue, JsValue> {
        let snapshot = self.converted(&messages, &options)?;
        super::heap::headroom();
        super::compact::start(&self.inner, &snapshot, &options, automatic)
    }
}
