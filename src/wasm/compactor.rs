//! `Compactor`: the stateless-over-messages API of api.md. The options are parsed once; every method
//! works on the caller's array and returns new values (the input is never mutated). Its state and
//! every decision on it (`check`'s count, learning and trigger, the plan and its report, `prune`,
//! the memo of the last automatic compaction) are the core's `CompactorState` (`core::compactor`);
//! this file hands the core's results to JS, on the store ids of the caller's objects
//! (`super::identity`, which converts only unseen messages), with the steps of a store-backed
//! Compactor (its memo as a line).
//!
//! `compact` and `maybeCompact`: the cheap trigger check before anything is copied, then the
//! core's plan and pipeline input (`CompactorState::job_input`) and its step machine
//! ([`crate::core::pipeline::Job`]: breaker, hooks, summarizer calls, `onFailure`, the extractive
//! fallback) handed to `js/driver.mjs` as a [`Driven`] handle; the commit builds the result and
//! has the core remember the head for the next `maybeCompact`. The job owns its snapshot: no
//! borrow of the `Compactor` is held while JS runs, so callbacks may call back into it, and
//! overlapping calls do not interfere. Any failure leaves the caller's array untouched.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::Array;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::convert::{check_keys, get, originals, outgoing, set, to_js};
use super::driven::{Driven, Host, Owner, Requests};
use super::error::throw;
use super::functions::refuse_langchain_only;
pub use super::identity::{Analyzed, Inner, State};
use super::options::{estimator_for, split_options};
use super::plain::{to_json, Kind as Shape};
use crate::core::compactor::call::trim_options;
use crate::core::estimate::Usage;
use crate::core::options::parse;
use crate::core::pipeline::{Compacted, Input, Job, Kind};
use crate::formats::memo_line::{memo_header, memo_line, seed_memo};

/// Compacts message arrays (see api.md). Construct with `new Compactor(options)`.
#[wasm_bindgen(skip_typescript)]
pub struct Compactor {
    pub(crate) inner: Rc<Inner>,
}

/// `options.usage` of `check` and `plan`, parsed.
fn usage_of(options: &JsValue) -> Result<Option<Usage>, JsValue> {
    check_keys(options, &["usage"])?;
    let value = get(options, "usage");
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    let json = to_json(&value, "usage", Shape::Options, "usage")?;
    throw(Usage::parse(&json, "usage")).map(Some)
}

#[wasm_bindgen]
impl Compactor {
    /// Validates the options up front (`INVALID_OPTIONS` naming the key).
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<Compactor, JsValue> {
        let (json, callbacks) = split_options(&options)?;
        let options = throw(parse(&json))?;
        throw(options.check_summarizer(callbacks.summarize.is_some()))?;
        let inner = Rc::new(Inner {
            state: RefCell::new(State::new(&options)),
            identity: js_sys::WeakMap::new(),
            options,
            callbacks,
        });
        Ok(Compactor { inner })
    }

    /// Forgets every message object seen so far. Messages are read once, when first seen; call
    /// this after changing a message object in place (or pass a new object instead).
    pub fn forget(&self) {
        self.inner.state.borrow_mut().store.clear();
    }

    /// `{ total, perMessage, byKind, calibration }`.
    pub fn estimate(&self, messages: JsValue) -> Result<JsValue, JsValue> {
        let (_, ids, _) = self.inner.resolve(&messages)?;
        let state = self.inner.state.borrow();
        Ok(to_js(&state.estimate_report(&self.inner.options, &ids)))
    }

    /// `{ shouldCompact, tokens, tokensError, threshold, reason }`; `options.usage` calibrates the
    /// count and self-calibration learns from it. Only messages not seen before are converted:
    /// O(new messages) plus a walk of the array.
    pub fn check(&self, messages: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
        let (_, ids, _) = self.inner.resolve(&messages)?;
        let usage = usage_of(&options)?;
        let mut state = self.inner.state.borrow_mut();
        let report = state.check_report(&self.inner.options, &ids, usage.as_ref());
        Ok(to_js(&report))
    }

    /// A preview of what `compact` would do, without a model call.
    pub fn plan(&self, messages: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
        let a = self.inner.analyze(&messages, false)?;
        let usage = usage_of(&options)?;
        let mut state = self.inner.state.borrow_mut();
        let report = state.plan_report(&self.inner.options, a.call, usage.as_ref());
        Ok(to_js(&throw(report)?))
    }

    /// The synchronous part of `compact` and `maybeCompact` (`js/driver.mjs` installs both): the
    /// call's options checked and its messages copied and converted now, in the call itself (bad
    /// input becomes the promise's rejection, and a failure of the instance happens where the trap
    /// guard sees it), then the result of a call that changes nothing or the compaction as a
    /// `__Driven` handle. `automatic`: `maybeCompact` (counts toward the circuit breaker, adds the
    /// continue message).
    #[wasm_bindgen(js_name = __compact)]
    pub fn start_compaction(
        &self,
        messages: JsValue,
        options: JsValue,
        automatic: bool,
    ) -> Result<JsValue, JsValue> {
        check_keys(&options, &["instructions", "signal", "force"])?;
        let mut copy = messages;
        if Array::is_array(&copy) {
            copy = super::plain::snapshot(&copy, "messages")?.into();
            self.inner.resolve(&copy)?;
        }
        super::heap::headroom();
        let (inner, call) = (&self.inner, call_options(&options));
        let kind = Kind::of_call(automatic, call.force);
        if kind == Kind::Automatic {
            // Below the trigger nothing is copied or planned: cached counts decide.
            let (array, q) = inner.quick(&copy)?;
            let skipped = inner.state.borrow().skipped(&q);
            if let Some(json) = skipped {
                return Ok(with_messages(&json, &array, &Array::new()));
            }
        }
        let mut a = inner.analyze(&copy, automatic)?;
        let (options, summarizer) = (&inner.options, inner.callbacks.summarize.is_some());
        let (force, instructions) = (call.force, call.instructions);
        let state = inner.state.borrow();
        let input = state.job_input(options, &mut a.call, kind, force, instructions, summarizer);
        drop(state);
        let input = throw(input)?;
        let (array, format) = (a.incoming.array.clone(), a.incoming.format);
        let requests = Requests::new(array, format);
        let host = Commit {
            inner: Rc::clone(inner),
            a,
            kind,
        };
        Ok(Driven::job(Job::new(input), Box::new(host), requests, call.signal).into())
    }

    /// `trimMessages` with the compactor's tokenizer and format, on its message store: the kept
    /// messages are the caller's objects (a partial one a copy). Only messages not seen before
    /// are converted.
    pub fn trim(&self, messages: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
        refuse_langchain_only(&options)?;
        let json = to_json(&options, "options", Shape::Options, "options")?;
        let trim_options = throw(trim_options(&json))?;
        let a = self.inner.analyze(&messages, false)?;
        let trimmed = (self.inner.state.borrow_mut()).trim_call(a.call, &trim_options);
        Ok(outgoing(&a.incoming, &throw(trimmed)?).into())
    }

    /// Tool-output pruning alone (no model call), decided by the core
    /// (`CompactorState::prune_call`). Returns a new array: unchanged messages are the caller's
    /// objects, and a message pruned the same way as in the previous call comes back as the same
    /// object.
    pub fn prune(&self, messages: JsValue) -> Result<JsValue, JsValue> {
        let mut a = self.inner.analyze(&messages, false)?;
        let now = js_sys::Date::now() as i64;
        let pruned =
            (self.inner.state.borrow_mut()).prune_call(&self.inner.options, &mut a.call, now);
        // Exporting runs after the borrow ends (it reads the caller's objects, whose getters may
        // call back into this object).
        let rendered = pruned.iter().enumerate().filter_map(|(i, p)| p.rendered(i));
        let made = rendered
            .map(|r| outgoing(&a.incoming, &[r]).iter().collect())
            .collect();
        let original = |i: usize| a.incoming.array.get(u32::try_from(i).unwrap_or(u32::MAX));
        let (out, forms) =
            (self.inner.state.borrow_mut()).finish_prune(a.call, pruned, made, original);
        let out: Array = out.into_iter().collect();
        // The pruned forms are registered now, each knowing which of its parts stand for hidden
        // ones: a compaction that summarizes them lists those in its digest (`hidden`).
        if !forms.is_empty() {
            let ids = self.inner.resolve(&out).map(|r| r.1).unwrap_or_default();
            self.inner.state.borrow_mut().mark_hidden(&ids, &forms);
        }
        Ok(out.into())
    }

    // The steps of a Compactor given a store (js/stored-compactor.mjs; not API: the names start
    // with `__`): its last automatic compaction as a line a later process reads back
    // (`formats::memo_line`), and seeding the continuation from such a line.

    /// Counts the automatic compactions remembered here (a change means a new record).
    #[wasm_bindgen(js_name = __memoEpoch, skip_typescript)]
    pub fn memo_epoch(&self) -> f64 {
        self.inner.state.borrow().memo_epoch as f64
    }

    /// Whether `maybeCompact(messages)` would compact now (continuing from the last compaction,
    /// from cached counts): a store-backed Compactor takes the store's lease first.
    #[wasm_bindgen(js_name = __wouldCompact, skip_typescript)]
    pub fn would_compact(&self, messages: JsValue) -> Result<bool, JsValue> {
        Ok(self.inner.quick(&messages)?.1.decision.should_compact)
    }

    /// The header line of a compactor's log in a store, for messages in `format`.
    #[wasm_bindgen(js_name = __memoHeader, skip_typescript)]
    pub fn memo_header(&self) -> Option<String> {
        Some(memo_header(self.inner.state.borrow().memo.as_ref()?))
    }

    /// The last automatic compaction made here as a memo line with entry id `id` (`undefined`
    /// when there is none, or when it was read from a store).
    #[wasm_bindgen(js_name = __memoRecord, skip_typescript)]
    pub fn memo_record(&self, id: String) -> Option<String> {
        memo_line(self.inner.state.borrow().memo.as_ref()?, &id)
    }

    /// Continues from a stored memo line: a call whose first messages have the memo's digest
    /// continues from its head.
    #[wasm_bindgen(js_name = __memoSeed, skip_typescript)]
    pub fn memo_seed(&self, line: String) -> Result<(), JsValue> {
        let estimator = estimator_for(&self.inner.options)?;
        let mut state = self.inner.state.borrow_mut();
        throw(seed_memo(&mut state, &line, &estimator, to_js::<Value>))
    }
}

/// The caller's instructions, signal and `force` of a `compact`/`maybeCompact` call.
pub struct CallOptions {
    pub instructions: Option<String>,
    pub signal: JsValue,
    pub force: bool,
}

/// Reads the call's options (`{ instructions?, signal?, force? }`).
pub fn call_options(value: &JsValue) -> CallOptions {
    CallOptions {
        instructions: get(value, "instructions").as_string(),
        signal: get(value, "signal"),
        force: get(value, "force").as_bool().unwrap_or(false),
    }
}

/// A result (the core's `json`) with its `messages` and the caller's objects it `removed`.
fn with_messages(json: &Value, messages: &Array, removed: &Array) -> JsValue {
    let result = to_js(json);
    set(&result, "messages", messages);
    set(&result, "removed", removed);
    result
}

/// The Compactor as the host of a driven compaction: its pipeline, and the result of a committed
/// compaction.
struct Commit {
    inner: Rc<Inner>,
    a: Analyzed,
    kind: Kind,
}

impl Host for Commit {
    fn owner(&self) -> &dyn Owner {
        &*self.inner
    }

    fn commit(&mut self, input: &mut Input, mut done: Compacted) -> Result<JsValue, JsValue> {
        let (a, inner) = (&self.a, &self.inner);
        let out = outgoing(&a.incoming, &done.rendered);
        // Seed 003's `hidden` in the digest, and for `maybeCompact` the memo.
        let head_value = |i: usize| out.get(u32::try_from(i).unwrap_or(u32::MAX));
        let (call, now) = ((&a.call, &*input, self.kind), js_sys::Date::now() as i64);
        (inner.state.borrow_mut()).commit_compacted(call, &mut done, head_value, Some(now));
        // The next cut is floored past what this one returned (seed 000, pi).
        inner.returned(&out);
        let removed = originals(&a.incoming, done.removed.iter().copied());
        Ok(with_messages(&done.result(), &out, &removed))
    }

    fn unchanged(&self, tokens: usize, warning: &str) -> Result<JsValue, JsValue> {
        let array = &self.a.incoming.array;
        let copy = array.slice(0, array.length());
        let json = self.a.call.unchanged(tokens, warning);
        Ok(with_messages(&json, &copy, &Array::new()))
    }
}
