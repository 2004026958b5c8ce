//! `Compactor`: the stateless-over-messages API of api.md. The options are parsed once; every method
//! works on the caller's array and returns new values (the input is never mutated).

use super::convert::{originals, outgoing, to_js, Incoming};
use super::error::{throw, to_js as error_to_js};
use super::identity::{IdentityCache, Totals};
use crate::core::error::Error;
use crate::core::estimate::{calibrated_total, Counter, Estimate, Estimator, Usage};
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
    /// Identity-cache ids of `replaced` (compared first; messages only when ids differ).
    pub replaced_ids: Vec<u32>,
    pub head: Vec<crate::core::message::Message>,
    pub head_js: Vec<JsValue>,
    /// Tokens, turns and non-system messages of `head`.
    pub head_totals: Totals,
}

/// Mutable state, borrowed briefly and never across an `.await`.
pub struct State {
    pub consecutive_failures: u32,
    pub compactions: u32,
    pub memo: Option<Memo>,
    /// Every message object seen, imported once (see `identity`).
    pub identity: IdentityCache,
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
    /// Identity-cache ids of the caller's messages.
    pub ids: Vec<u32>,
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

/// A call's messages resolved through the identity cache, not copied yet.
pub struct Resolved {
    pub array: js_sys::Array,
    pub format: crate::formats::Format,
    pub ids: Vec<u32>,
    pub estimator: Estimator,
}

/// The cheap decision of an automatic call: the array it would return below the trigger.
pub struct Quick {
    pub array: js_sys::Array,
    pub continued: bool,
    pub tokens: usize,
    pub should_compact: bool,
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

    /// Resolves `messages` through the identity cache: only unseen objects are converted.
    pub fn resolve(&self, messages: &JsValue) -> Result<Resolved, JsValue> {
        if !js_sys::Array::is_array(messages) {
            return throw(Err(Error::invalid_input(
                "messages",
                "messages must be an array",
            )));
        }
        let array = js_sys::Array::from(messages);
        let estimator = self.estimator()?;
        // The cache is taken out while JS runs (getters of the caller's objects may call back).
        let mut cache = std::mem::take(&mut self.state.borrow_mut().identity);
        let resolved = cache.resolve(&array, self.options.format, &estimator);
        self.state.borrow_mut().identity = cache;
        let r = resolved?;
        Ok(Resolved {
            array,
            format: r.format,
            ids: r.ids,
            estimator,
        })
    }

    /// Tokens, turns and non-system messages of a call's cached messages.
    pub fn totals(&self, ids: &[u32]) -> Totals {
        self.state.borrow_mut().identity.totals_of_call(ids)
    }

    /// Tokens of each cached message.
    pub fn per_message(&self, ids: &[u32]) -> Vec<usize> {
        let state = self.state.borrow();
        ids.iter()
            .map(|id| state.identity.get(*id).map_or(0, |e| e.tokens))
            .collect()
    }

    pub fn analyze(&self, messages: &JsValue) -> Result<Analyzed, JsValue> {
        let r = self.resolve(messages)?;
        Ok(self.materialize(r))
    }

    /// Copies the cached messages of a resolved call for planning.
    fn materialize(&self, r: Resolved) -> Analyzed {
        let state = self.state.borrow();
        let messages = state.identity.messages(&r.ids);
        let kinds = r
            .ids
            .iter()
            .map(|id| state.identity.get(*id).map(|e| e.kinds).unwrap_or_default())
            .collect();
        Analyzed {
            incoming: Incoming {
                array: r.array,
                format: r.format,
                messages,
            },
            ids: r.ids,
            estimate: Estimate::from_kinds(kinds),
            estimator: r.estimator,
            continued: None,
        }
    }

    /// How many of the caller's messages the last automatic compaction replaced, when the call
    /// starts with exactly them and holds something after them.
    fn continuation(&self, r: &Resolved) -> Option<usize> {
        let state = self.state.borrow();
        let memo = state.memo.as_ref()?;
        let n = memo.replaced.len();
        if memo.format != r.format || r.ids.len() <= n {
            return None;
        }
        let same = r
            .ids
            .iter()
            .zip(memo.replaced_ids.iter())
            .zip(memo.replaced.iter())
            .all(|((id, old), m)| {
                id == old || state.identity.get(*id).is_some_and(|e| e.message == *m)
            });
        same.then_some(n)
    }

    /// The trigger on an automatic call's history (continued from the last compaction when it
    /// applies), from cached counts alone: no message is copied.
    pub fn quick(&self, messages: &JsValue) -> Result<Quick, JsValue> {
        let r = self.resolve(messages)?;
        let n = self.continuation(&r);
        let (mut totals, array) = match n {
            None => (self.totals(&r.ids), r.array.slice(0, r.array.length())),
            Some(n) => {
                let state = self.state.borrow();
                let head = js_sys::Array::new();
                if let Some(memo) = &state.memo {
                    for v in &memo.head_js {
                        head.push(v);
                    }
                }
                let start = u32::try_from(n).unwrap_or(u32::MAX);
                (
                    state.identity.totals(r.ids.get(n..).unwrap_or_default()),
                    head.concat(&r.array.slice(start, r.array.length())),
                )
            }
        };
        if n.is_some() {
            if let Some(memo) = &self.state.borrow().memo {
                totals.tokens = totals.tokens.saturating_add(memo.head_totals.tokens);
                totals.turns += memo.head_totals.turns;
                totals.non_system += memo.head_totals.non_system;
            }
        }
        let settings = &self.options.settings;
        let d = settings
            .trigger
            .evaluate(&crate::core::trigger::TriggerInput {
                tokens: totals.tokens,
                turns: totals.turns,
                messages: totals.non_system,
                budget: settings.budget,
                forced: false,
            });
        Ok(Quick {
            array,
            continued: n.is_some(),
            tokens: totals.tokens,
            should_compact: d.should_compact,
        })
    }

    /// Like [`Inner::analyze`], continuing from the last automatic compaction when the messages
    /// start with exactly the messages it replaced (and hold something after them).
    pub fn analyze_continuing(&self, messages: &JsValue) -> Result<Analyzed, JsValue> {
        let r = self.resolve(messages)?;
        let Some(n) = self.continuation(&r) else {
            return Ok(self.materialize(r));
        };
        let a = self.materialize(r);
        let state = self.state.borrow();
        let Some(memo) = &state.memo else {
            drop(state);
            return Ok(a);
        };
        let head = js_sys::Array::new();
        for v in &memo.head_js {
            head.push(v);
        }
        let start = u32::try_from(n).unwrap_or(u32::MAX);
        let array = head.concat(&a.incoming.array.slice(start, a.incoming.array.length()));
        let mut messages = memo.head.clone();
        messages.extend(a.incoming.messages.iter().skip(n).cloned());
        let per_message: Vec<crate::core::estimate::KindTokens> = memo
            .head
            .iter()
            .map(|m| a.estimator.estimate_message(m))
            .chain(a.estimate.per_message_kinds.iter().skip(n).copied())
            .collect();
        let continued = Continued {
            prefix_len: n,
            head_len: memo.head.len(),
            caller: a.incoming.messages.clone(),
        };
        Ok(Analyzed {
            incoming: Incoming {
                array,
                format: a.incoming.format,
                messages,
            },
            ids: a.ids,
            estimate: Estimate::from_kinds(per_message),
            estimator: a.estimator,
            continued: Some(continued),
        })
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
        let upto = match &a.continued {
            None => Some(first_kept),
            Some(c) => first_kept
                .checked_sub(c.head_len)
                .map(|extra| c.prefix_len + extra),
        };
        let caller = match &a.continued {
            None => &a.incoming.messages,
            Some(c) => &c.caller,
        };
        let replaced =
            upto.and_then(|n| Some((caller.get(..n)?.to_vec(), a.ids.get(..n)?.to_vec())));
        let head_totals = {
            let mut t = Totals::default();
            for m in &head {
                t.tokens = t
                    .tokens
                    .saturating_add(a.estimator.estimate_message(m).total());
                if m.is_user_turn_start() {
                    t.turns += 1;
                }
                if m.role != crate::core::message::Role::System {
                    t.non_system += 1;
                }
            }
            t
        };
        let memo = replaced.map(|(replaced, replaced_ids)| Memo {
            format: a.incoming.format,
            replaced,
            replaced_ids,
            head,
            head_js,
            head_totals,
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
            memo: None,
            identity: IdentityCache::default(),
        });
        Ok(Compactor {
            inner: Rc::new(Inner {
                options,
                callbacks,
                state,
            }),
        })
    }

    /// Forgets every message object seen so far. Messages are read once, when first seen; call
    /// this after changing a message object in place (or pass a new object instead).
    pub fn forget(&self) {
        self.inner.state.borrow_mut().identity.clear();
    }

    /// `{ total, perMessage, byKind }`.
    pub fn estimate(&self, messages: JsValue) -> Result<JsValue, JsValue> {
        let r = self.inner.resolve(&messages)?;
        let (per_message, k) = {
            let state = self.inner.state.borrow();
            let mut by_kind = crate::core::estimate::KindTokens::default();
            let per: Vec<usize> = r
                .ids
                .iter()
                .map(|id| match state.identity.get(*id) {
                    Some(e) => {
                        for kind in crate::core::estimate::Kind::ALL {
                            by_kind.add_kind(kind, e.kinds.get(kind));
                        }
                        e.tokens
                    }
                    None => 0,
                })
                .collect();
            (per, by_kind)
        };
        Ok(to_js(&json!({
            "total": per_message.iter().sum::<usize>(),
            "perMessage": per_message,
            "byKind": {"text": k.text, "toolCalls": k.tool_calls, "toolResults": k.tool_results, "images": k.images, "reasoning": k.reasoning, "system": k.system},
        })))
    }

    /// `{ shouldCompact, tokens, threshold, reason }`; `options.usage` calibrates the count. Only
    /// messages not seen before are converted: O(new messages) plus a walk of the array.
    pub fn check(&self, messages: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
        let r = self.inner.resolve(&messages)?;
        let usage = usage_of(&options)?;
        let totals = self.inner.totals(&r.ids);
        let tokens = match (&usage, totals.last_assistant) {
            (Some(u), Some(anchor)) => {
                let after: usize = self
                    .inner
                    .per_message(r.ids.get(anchor + 1..).unwrap_or_default())
                    .iter()
                    .sum();
                usize::try_from(u.total())
                    .unwrap_or(usize::MAX)
                    .saturating_add(after)
            }
            _ => totals.tokens,
        };
        let settings = &self.inner.options.settings;
        let input = crate::core::trigger::TriggerInput {
            tokens,
            turns: totals.turns,
            messages: totals.non_system,
            budget: settings.budget,
            forced: false,
        };
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
