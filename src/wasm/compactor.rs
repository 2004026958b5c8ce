//! `Compactor`: the stateless-over-messages API of api.md. The options are parsed once; every method
//! works on the caller's array and returns new values (the input is never mutated).

use super::convert::{incoming, originals, outgoing, to_js, Incoming};
use super::error::{throw, to_js as error_to_js};
use crate::core::error::Error;
use crate::core::estimate::{calibrated_total, Counter, Estimate, EstimateCache, Estimator, Usage};
use crate::core::message::Part;
use crate::core::options::{parse, Options, Tokenizer, FUNCTION_KEYS};
use crate::core::plan::{Disposition, Escalation, Plan};
use crate::core::prepare::{prepare, History, Prepared};
use crate::core::prune;
use crate::core::render::{render, Origin, Rendered};
use crate::core::settings::Estimation;
use js_sys::{Function, Object, Reflect};
use serde_json::{json, Map, Value};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// The JS callbacks given in the options.
#[derive(Default)]
pub struct Callbacks {
    pub summarize: Option<Function>,
    pub on_before: Option<Function>,
    pub on_after: Option<Function>,
    pub on_progress: Option<Function>,
}

/// Mutable state, borrowed briefly and never across an `.await`.
pub struct State {
    pub consecutive_failures: u32,
    pub compactions: u32,
    pub cache: EstimateCache,
}

/// What a `Compactor` holds; shared with its in-flight compactions.
pub struct Inner {
    pub options: Options,
    pub callbacks: Callbacks,
    pub state: RefCell<State>,
}

/// Compacts message arrays (see api.md). Construct with `new Compactor(options)`.
#[wasm_bindgen(skip_typescript)]
pub struct Compactor {
    pub(crate) inner: Rc<Inner>,
}

/// One analyzed call: the caller's messages, their estimate and the estimator used.
pub struct Analyzed {
    pub incoming: Incoming,
    pub estimate: Estimate,
    pub estimator: Estimator,
}

impl Inner {
    pub fn estimator(&self) -> Result<Estimator, JsValue> {
        let counter = match self.options.tokenizer {
            Tokenizer::Exact(name) => Counter::Exact(super::tokens::encoding(name)?),
            Tokenizer::Heuristic => match self.options.settings.estimation {
                Estimation::Heuristic => Counter::Heuristic,
                Estimation::CharsPerToken(n) => Counter::CharsPerToken(n),
            },
        };
        Ok(Estimator::new(counter).with_image_rule(self.options.image_rule))
    }

    pub fn analyze(&self, messages: &JsValue) -> Result<Analyzed, JsValue> {
        let incoming = incoming(messages, self.options.format)?;
        let estimator = self.estimator()?;
        let estimate = {
            let mut state = self.state.borrow_mut();
            if estimator.counter.is_exact() {
                state.cache.estimate_all(&estimator, &incoming.messages)
            } else {
                estimator.estimate_all(&incoming.messages)
            }
        };
        Ok(Analyzed {
            incoming,
            estimate,
            estimator,
        })
    }

    /// Decides and plans for `a`; `usage` calibrates the total.
    pub fn prepare(
        &self,
        a: &Analyzed,
        usage: Option<&Usage>,
        forced: bool,
    ) -> Result<Prepared, JsValue> {
        let total = match usage {
            Some(u) => calibrated_total(&a.incoming.messages, &a.estimate.per_message, u),
            None => a.estimate.total,
        };
        let cost = |p: &Part| a.estimator.part_tokens(p);
        let history = History {
            messages: &a.incoming.messages,
            tokens: &a.estimate.per_message,
            total,
            part_cost: &cost,
        };
        throw(prepare(&self.options.settings, &history, forced))
    }
}

fn usage_of(options: &JsValue) -> Result<Option<Usage>, JsValue> {
    if options.is_undefined() || options.is_null() {
        return Ok(None);
    }
    let value = Reflect::get(options, &JsValue::from_str("usage")).unwrap_or(JsValue::UNDEFINED);
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    let json: Value = serde_wasm_bindgen::from_value(value).unwrap_or(Value::Null);
    Usage::from_value(&json).map(Some).ok_or_else(|| {
        error_to_js(
            &Error::invalid_input("usage", "usage must hold input and output token counts"),
            None,
        )
    })
}

/// Splits the options object into its functions and its JSON part.
fn split_options(options: &JsValue) -> Result<(Value, Callbacks), JsValue> {
    if !options.is_object() || js_sys::Array::is_array(options) {
        return throw(Err(Error::invalid_option(
            "options",
            "options must be an object",
        )));
    }
    let mut json = Map::new();
    let mut callbacks = Callbacks::default();
    let object: &Object = options.unchecked_ref();
    for key in Object::keys(object).iter() {
        let Some(name) = key.as_string() else {
            continue;
        };
        let value = Reflect::get(options, &key).unwrap_or(JsValue::UNDEFINED);
        if value.is_undefined() {
            continue;
        }
        if FUNCTION_KEYS.contains(&name.as_str()) {
            let Some(f) = value.dyn_ref::<Function>() else {
                return throw(Err(Error::invalid_option(
                    name.clone(),
                    format!("{name} must be a function"),
                )));
            };
            let slot = match name.as_str() {
                "summarize" => &mut callbacks.summarize,
                "onBeforeCompaction" => &mut callbacks.on_before,
                "onAfterCompaction" => &mut callbacks.on_after,
                _ => &mut callbacks.on_progress,
            };
            *slot = Some(f.clone());
            continue;
        }
        let converted: Value = serde_wasm_bindgen::from_value(value).map_err(|e| {
            error_to_js(
                &Error::invalid_option(name.clone(), format!("{name}: {e}")),
                None,
            )
        })?;
        json.insert(name, converted);
    }
    Ok((Value::Object(json), callbacks))
}

fn plan_json(plan: &Plan, prepared: &Prepared) -> Value {
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

#[wasm_bindgen]
impl Compactor {
    /// Validates the options up front (`INVALID_OPTIONS` naming the key).
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<Compactor, JsValue> {
        let (json, callbacks) = split_options(&options)?;
        let options = throw(parse(&json))?;
        let state = RefCell::new(State {
            consecutive_failures: 0,
            compactions: 0,
            cache: EstimateCache::default(),
        });
        Ok(Compactor {
            inner: Rc::new(Inner {
                options,
                callbacks,
                state,
            }),
        })
    }

    /// `{ total, perMessage, byKind }`.
    pub fn estimate(&self, messages: JsValue) -> Result<JsValue, JsValue> {
        let a = self.inner.analyze(&messages)?;
        let k = &a.estimate.by_kind;
        Ok(to_js(&json!({
            "total": a.estimate.total,
            "perMessage": a.estimate.per_message,
            "byKind": {"text": k.text, "toolCalls": k.tool_calls, "toolResults": k.tool_results, "images": k.images, "reasoning": k.reasoning, "system": k.system},
        })))
    }

    /// `{ shouldCompact, tokens, threshold, reason }`; `options.usage` calibrates the count.
    pub fn check(&self, messages: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
        let a = self.inner.analyze(&messages)?;
        let usage = usage_of(&options)?;
        let tokens = match &usage {
            Some(u) => calibrated_total(&a.incoming.messages, &a.estimate.per_message, u),
            None => a.estimate.total,
        };
        let settings = &self.inner.options.settings;
        let input =
            crate::core::trigger::TriggerInput::new(&a.incoming.messages, tokens, settings.budget);
        let d = settings.trigger.evaluate(&input);
        Ok(to_js(
            &json!({"shouldCompact": d.should_compact, "tokens": tokens, "threshold": d.threshold, "reason": d.reason}),
        ))
    }

    /// A preview of what `compact` would do, without a model call.
    pub fn plan(&self, messages: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
        let a = self.inner.analyze(&messages)?;
        let usage = usage_of(&options)?;
        let prepared = self.inner.prepare(&a, usage.as_ref(), false)?;
        Ok(to_js(&plan_json(&prepared.plan, &prepared)))
    }

    /// Tool-output pruning alone (no model call): superseded reads, then the configured style
    /// (OpenCode's when none is configured). Returns a new array.
    pub fn prune(&self, messages: JsValue) -> Result<JsValue, JsValue> {
        let a = self.inner.analyze(&messages)?;
        let cost = |p: &Part| a.estimator.part_tokens(p);
        let (supersede, style) = match &self.inner.options.settings.plan.prune {
            Some(p) => (p.supersede, p.style.clone()),
            None => (
                true,
                prune::Style::OpenCode(prune::OpenCodeOptions::default()),
            ),
        };
        let actions = prune::order(&a.incoming.messages, supersede, &style, &cost);
        let pruned = prune::apply(&a.incoming.messages, &actions);
        let rendered: Vec<Rendered> = pruned
            .into_iter()
            .enumerate()
            .map(|(i, message)| {
                let origin = if actions.iter().any(|x| x.message == i) {
                    Origin::Changed(i)
                } else {
                    Origin::Input(i)
                };
                Rendered { message, origin }
            })
            .collect();
        Ok(outgoing(&a.incoming, &rendered).into())
    }

    /// Compacts now (a manual `/compact`): resolves to the result of api.md, or rejects with a
    /// `CompactionError` leaving the input untouched. `options`: `{ instructions?, signal?, force? }`.
    pub fn compact(&self, messages: JsValue, options: JsValue) -> js_sys::Promise {
        wasm_bindgen_futures::future_to_promise(super::compact::compact(
            Rc::clone(&self.inner),
            messages,
            options,
            false,
        ))
    }

    /// Resolves to the messages unchanged unless the trigger fires; then to the compacted messages
    /// (fits AI SDK `prepareStep`). Stops after repeated failures (the circuit breaker).
    #[wasm_bindgen(js_name = maybeCompact)]
    pub fn maybe_compact(&self, messages: JsValue, options: JsValue) -> js_sys::Promise {
        let inner = Rc::clone(&self.inner);
        wasm_bindgen_futures::future_to_promise(async move {
            let result = super::compact::compact(inner, messages.clone(), options, true).await?;
            if Reflect::get(&result, &JsValue::from_str("compacted")).ok() == Some(JsValue::TRUE) {
                Reflect::get(&result, &JsValue::from_str("messages"))
            } else {
                Ok(messages)
            }
        })
    }

    /// The render of a plan without a summary call (used by tests and strategies without a model).
    #[wasm_bindgen(js_name = "__renderDrop", skip_typescript)]
    pub fn render_drop(&self, messages: JsValue) -> Result<JsValue, JsValue> {
        let a = self.inner.analyze(&messages)?;
        let prepared = self.inner.prepare(&a, None, true)?;
        let out = render(
            &a.incoming.messages,
            &prepared.plan,
            None,
            &self.inner.options.settings.summary,
            false,
        );
        let removed = originals(
            &a.incoming,
            prepared.plan.indices(Disposition::Drop).into_iter(),
        );
        let result = Object::new();
        let _ = Reflect::set(&result, &"messages".into(), &outgoing(&a.incoming, &out));
        let _ = Reflect::set(&result, &"removed".into(), &removed);
        Ok(result.into())
    }
}
