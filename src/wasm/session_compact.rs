//! Compactions of a `Session`: the synchronous steps that `js/driver.mjs` strings together for
//! `compact()` and `prepare()` (the `__` methods), and `plan()`, the preview. What `prepare()`
//! does, the plan, the round, the commit and the results are the core's
//! (`core::pipeline::on_pressure`, `core::session::planning`, `formats::session_compaction`,
//! `core::session::results`). A compaction is the core's step machine handed to JS as a
//! [`Driven`] handle with the session as its [`Host`]; it works on a snapshot and commits with
//! the core's rule, so the conversation may go on while the summary is written.

use std::rc::Rc;

use js_sys::Array;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::compactor::call_options;
use super::convert::{at, get, set, to_js};
use super::driven::{Driven, Host, Owner, Requests};
use super::error::throw;
use super::options::estimator_for;
use super::session::{Inner, Session, MAKE};
use crate::core::pipeline::NOTHING_TO_COMPACT;
use crate::core::pipeline::{Compacted, Input, Job, Kind};
use crate::core::session::{planning, results};
use crate::core::summary::SummaryMode;
use crate::formats::session_compaction::Pending;

/// A result with the session's live context as the caller's objects (summary and altered
/// messages exported anew) and the caller's objects taken out.
fn with_messages(inner: &Inner, result: &Value, removed: &Array) -> JsValue {
    let out = to_js(result);
    let messages = inner.state.borrow_mut().live(inner.options.format, &MAKE);
    set(&out, "messages", &messages.into_iter().collect::<Array>());
    set(&out, "removed", removed);
    out
}

/// One compaction as the core's pipeline decides it: the result of one that changes nothing, or
/// the [`Driven`] compaction.
fn start(inner: &Rc<Inner>, options: &JsValue, kind: Kind) -> Result<JsValue, JsValue> {
    let call = call_options(options);
    let estimator = estimator_for(&inner.options)?;
    let mut state = inner.state.borrow_mut();
    let asked = planning::Call {
        kind,
        force: call.force,
        instructions: call.instructions.clone(),
        summarizer: inner.callbacks.summarize.is_some(),
    };
    let started = state.start(&inner.options, estimator, asked, &MAKE);
    drop(state);
    let Some((input, pending, values)) = throw(started)? else {
        let result = results::unchanged(0, NOTHING_TO_COMPACT);
        return Ok(with_messages(inner, &result, &Array::new()));
    };
    let originals: Array = values.into_iter().collect();
    let mut requests = Requests::new(originals.clone(), pending.format);
    // The conversation as the model last saw it, for a continuing request: the context as
    // `render()`/`prepare()` give it (pruned parts replaced, cache markers placed).
    if inner.options.settings.summary_mode == SummaryMode::Continue {
        requests.conversation = inner
            .render(options)
            .ok()
            .map(|r| get(&r, "messages").unchecked_into());
    }
    let host = Compaction {
        inner: Rc::clone(inner),
        pending,
        originals,
    };
    Ok(Driven::job(Job::new(input), Box::new(host), requests, call.signal).into())
}

/// The session as the host of a driven compaction: its pipeline, and what the outcome changes
/// in the log (`originals`: the caller's objects the compaction was planned over).
struct Compaction {
    inner: Rc<Inner>,
    pending: Pending,
    originals: Array,
}

impl Host for Compaction {
    fn owner(&self) -> &dyn Owner {
        &*self.inner
    }

    fn unchanged(&self, tokens: usize, warning: &str) -> Result<JsValue, JsValue> {
        let result = results::unchanged(tokens, warning);
        Ok(with_messages(&self.inner, &result, &Array::new()))
    }

    fn failed(&self, error: &JsValue) {
        if self.pending.kind == Kind::Background {
            // Said once by the next `prepare()`, whatever the policy made of it.
            self.inner.state.borrow_mut().background_error = Some(error.clone());
        }
    }

    fn commit(&mut self, input: &mut Input, done: Compacted) -> Result<JsValue, JsValue> {
        let mut state = self.inner.state.borrow_mut();
        let result = state.commit(&mut self.pending, input, &done, js_sys::Date::now());
        drop(state);
        let result = throw(result)?;
        let removed: Array = done
            .removed
            .iter()
            .map(|&i| at(&self.originals, i))
            .collect();
        Ok(with_messages(&self.inner, &result, &removed))
    }
}

/// The session as the host of the memory block's request for its oldest `count` notes.
struct Notes {
    inner: Rc<Inner>,
    count: usize,
}

impl Host for Notes {
    fn owner(&self) -> &dyn Owner {
        &*self.inner
    }

    fn answered(&self, summary: String) {
        let mut state = self.inner.state.borrow_mut();
        state.notes_answered(summary, self.count);
    }
}

#[wasm_bindgen]
impl Session {
    /// What a compaction now would do (`Compactor.plan()`'s fields, `cost` included), without
    /// calling the summarizer or changing the session. An empty session plans nothing.
    pub fn plan(&self) -> Result<JsValue, JsValue> {
        let inner = &self.inner;
        let estimator = estimator_for(&inner.options)?;
        let state = inner.state.borrow();
        let planned = planning::plan(state.core.as_ref(), &inner.options, &estimator, false);
        Ok(to_js(&throw(planned)?.result(&estimator)))
    }

    /// Checks the options of `compact()` (`method` "compact") or `prepare()`; for `prepare()`
    /// returns `{ force, background }` (`background: false`: no background compaction from
    /// this call; a store-backed session starts its own under the store's lease).
    #[wasm_bindgen(js_name = __checkCall)]
    pub fn check_call(&self, options: JsValue, method: &str) -> Result<JsValue, JsValue> {
        super::convert::check_keys(&options, results::call_keys(method))?;
        super::heap::headroom();
        let given = |key: &str| Some(get(&options, key)).filter(|v| !v.is_undefined());
        let now = given("now").map(|v| v.as_f64());
        let background = given("background").map(|v| v.as_bool());
        let read = results::call_options(method, now, background, call_options(&options).force);
        Ok(throw(read)?.map_or(JsValue::UNDEFINED, |v| to_js(&v)))
    }

    /// Seed 003's first render step: hides tool results older than the cache lifetime, at the
    /// call's `now` (the clock when not given).
    #[wasm_bindgen(js_name = __pruneTtl)]
    pub fn prune_ttl(&self, options: JsValue) {
        let now = get(&options, "now").as_f64();
        let mut state = self.inner.state.borrow_mut();
        state.prune_expired(now.unwrap_or_else(js_sys::Date::now));
    }

    /// What `prepare()` does now (`HandleState::prepare_action`).
    #[wasm_bindgen(js_name = __onPressure)]
    pub fn pressure(&self, force: bool, background: bool) -> JsValue {
        to_js(&self.inner.state.borrow().prepare_action(force, background))
    }

    /// The context is past the trigger.
    #[wasm_bindgen(js_name = __pastTrigger)]
    pub fn past_trigger(&self) -> bool {
        self.inner.state.borrow().past_trigger()
    }

    /// Starts a compaction of `kind` ("manual", "automatic", "forced", "background"): its
    /// result when it changes nothing, or the `__Driven` compaction.
    #[wasm_bindgen(js_name = __compact)]
    pub fn start_compaction(&self, options: JsValue, kind: &str) -> Result<JsValue, JsValue> {
        start(&self.inner, &options, results::kind_named(kind))
    }

    /// The memory block's notes when due: condensed now without a model (`undefined`), or the
    /// summarizer's request as a `__Driven` handle.
    #[wasm_bindgen(js_name = __compactNotes)]
    pub fn notes(&self, options: JsValue) -> JsValue {
        let inner = &self.inner;
        let mut state = inner.state.borrow_mut();
        let summarizer = inner.callbacks.summarize.is_some();
        let due = state.notes_request(&inner.options, summarizer);
        drop(state);
        let Some((once, count)) = due else {
            return JsValue::UNDEFINED;
        };
        let host = Notes {
            inner: Rc::clone(inner),
            count,
        };
        Driven::once(once, Box::new(host), call_options(&options).signal).into()
    }

    /// Marks a compaction as running (`isCompacting`) or over.
    #[wasm_bindgen(js_name = __setRunning)]
    pub fn set_running(&self, running: bool) {
        self.inner.state.borrow_mut().running = running;
    }

    /// The error of a background compaction that failed, said once by the next `prepare()`.
    #[wasm_bindgen(js_name = __backgroundFailed)]
    pub fn background_failed(&self, error: JsValue) {
        self.inner.state.borrow_mut().background_error = Some(error);
    }

    /// The end of `prepare()`: the render, with the error of a background compaction that
    /// failed since the last one (it changed nothing).
    #[wasm_bindgen(js_name = __render)]
    pub fn prepared(&self, options: JsValue) -> Result<JsValue, JsValue> {
        let result = self.inner.render(&options)?;
        if let Some(error) = self.inner.state.borrow_mut().background_error.take() {
            set(&result, "backgroundError", &error);
        }
        Ok(result)
    }
}
