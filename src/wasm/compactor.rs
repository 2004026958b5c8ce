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
#[derive(Clone, Default)]
pub struct Callbacks {
    pub summarize: Option<Function>,
    pub on_before: Option<Function>,
    pub on_after: Option<Function>,
    pub on_progress: Option<Function>,
}

/// The last automatic compaction: the messages it replaced (everything before its kept tail) and
/// the head it put in their place (system messages, the summary block, pinned messages). A later
/// `maybeCompact` whose messages start with exactly `replaced` continues from `head` instead of
/// summarizing again: what a caller who kept the compacted array would have passed.
pub struct Memo {
    pub format: crate::formats::Format,
    pub replaced: Vec<crate::core::message::Message>,
    pub head: Vec<crate::core::message::Message>,
    pub head_js: Vec<JsValue>,
}

/// Mutable state, borrowed briefly and never across an `.await`.
pub struct State {
    pub consecutive_failures: u32,
    pub compactions: u32,
    pub cache: EstimateCache,
    pub memo: Option<Memo>,
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
    /// Set when the messages continue the last automatic compaction: `incoming` is then its head
    /// followed by the caller's messages from `prefix_len` on (`head_len` head messages).
    pub continued: Option<Continued>,
}

/// How an analyzed history maps to the caller's messages after a memo was used.
pub struct Continued {
    /// The caller's messages that the head stands for.
    pub prefix_len: usize,
    /// Messages of the head at the start of the analyzed history.
    pub head_len: usize,
    /// The caller's messages, imported (to remember the next prefix).
    pub caller: Vec<crate::core::message::Message>,
}

/// The estimator the options ask for (an exact encoding must be loaded).
pub fn estimator_for(options: &Options) -> Result<Estimator, JsValue> {
    let counter = match options.tokenizer {
        Tokenizer::Exact(name) => Counter::Exact(super::tokens::encoding(name)?),
        Tokenizer::Heuristic => match options.settings.estimation {
            Estimation::Heuristic => Counter::Heuristic,
            Estimation::CharsPerToken(n) => Counter::CharsPerToken(n),
        },
    };
    Ok(Estimator::new(counter).with_image_rule(options.image_rule))
}

impl Inner {
    pub fn estimator(&self) -> Result<Estimator, JsValue> {
        estimator_for(&self.options)
    }

    pub fn analyze(&self, messages: &JsValue) -> Result<Analyzed, JsValue> {
        let incoming = incoming(messages, self.options.format)?;
        self.analyzed(incoming, None)
    }

    fn analyzed(
        &self,
        incoming: Incoming,
        continued: Option<Continued>,
    ) -> Result<Analyzed, JsValue> {
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
            continued,
        })
    }

    /// Like [`Inner::analyze`], continuing from the last automatic compaction when the messages
    /// start with exactly the messages it replaced (and hold something after them).
    pub fn analyze_continuing(&self, messages: &JsValue) -> Result<Analyzed, JsValue> {
        let incoming = incoming(messages, self.options.format)?;
        let continued = {
            let state = self.state.borrow();
            state.memo.as_ref().and_then(|memo| {
                let n = memo.replaced.len();
                let matches = memo.format == incoming.format
                    && incoming.messages.len() > n
                    && incoming.messages.get(..n) == Some(memo.replaced.as_slice());
                matches.then(|| {
                    let head = js_sys::Array::new();
                    for v in &memo.head_js {
                        head.push(v);
                    }
                    let start = u32::try_from(n).unwrap_or(u32::MAX);
                    let array = head.concat(&incoming.array.slice(start, incoming.array.length()));
                    let mut messages = memo.head.clone();
                    messages.extend(incoming.messages.iter().skip(n).cloned());
                    let continued = Continued {
                        prefix_len: n,
                        head_len: memo.head.len(),
                        caller: incoming.messages.clone(),
                    };
                    (
                        Incoming {
                            array,
                            format: incoming.format,
                            messages,
                        },
                        continued,
                    )
                })
            })
        };
        match continued {
            Some((virtual_incoming, c)) => self.analyzed(virtual_incoming, Some(c)),
            None => self.analyzed(incoming, None),
        }
    }

    /// Remembers a successful automatic compaction of `a` whose kept tail starts at `first_kept`
    /// (an index into `a`), with `head` the rendered messages before the tail.
    pub fn remember(
        &self,
        a: &Analyzed,
        first_kept: usize,
        head: Vec<crate::core::message::Message>,
        head_js: Vec<JsValue>,
    ) {
        let replaced = match &a.continued {
            None => a.incoming.messages.get(..first_kept).map(<[_]>::to_vec),
            Some(c) => first_kept
                .checked_sub(c.head_len)
                .and_then(|extra| c.caller.get(..c.prefix_len + extra))
                .map(<[_]>::to_vec),
        };
        let memo = replaced.map(|replaced| Memo {
            format: a.incoming.format,
            replaced,
            head,
            head_js,
        });
        self.state.borrow_mut().memo = memo;
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
pub(crate) fn split_options(options: &JsValue) -> Result<(Value, Callbacks), JsValue> {
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
            memo: None,
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
            let changed = |key: &str| {
                Reflect::get(&result, &JsValue::from_str(key)).ok() == Some(JsValue::TRUE)
            };
            if changed("compacted") || changed("continued") {
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
