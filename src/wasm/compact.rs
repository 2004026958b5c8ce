//! `compact` and `maybeCompact`: the Compactor's side of a compaction. The cheap trigger check
//! before anything is copied, then the core's plan and pipeline input
//! (`CompactorState::plan_call`, `job_input`) and its step machine
//! ([`crate::core::pipeline::Job`]: breaker, hooks, summarizer calls, `onFailure`, the extractive
//! fallback) handed to `js/driver.mjs` as a [`Driven`] handle; the commit builds the result and
//! has the core remember the head for the next `maybeCompact`. The job owns its snapshot: no
//! borrow of the `Compactor` is held while JS runs, so callbacks may call back into it, and
//! overlapping calls do not interfere. Any failure leaves the caller's array untouched.

use super::convert::{get, originals, outgoing, set, to_js};
use super::driven::{Driven, Host, Owner, Requests};
use super::error::throw;
use super::identity::{Analyzed, Inner};
use crate::core::pipeline::{Compacted, Input, Job, Kind};
use crate::core::report::unchanged_continued;
use js_sys::Array;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// The result of a call that changed nothing (the core's `json`) with its `messages`: a copy of
/// the caller's array (after the last compaction's head when the call continued it).
fn unchanged(json: &serde_json::Value, messages: &Array) -> JsValue {
    let result = to_js(json);
    set(&result, "messages", messages);
    set(&result, "removed", &Array::new());
    result
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

/// Starts a compaction as the core's pipeline decides it: the result of a call that changes
/// nothing (below the trigger), or the [`Driven`] compaction. `automatic`: called by
/// `maybeCompact` (counts toward the circuit breaker, adds the continue message).
pub fn start(
    inner: &Rc<Inner>,
    messages: &JsValue,
    options: &JsValue,
    automatic: bool,
) -> Result<JsValue, JsValue> {
    let call = call_options(options);
    let kind = Kind::of_call(automatic, call.force);
    if kind == Kind::Automatic {
        // Below the trigger nothing is copied or planned: cached counts decide.
        let (array, q) = inner.quick(messages)?;
        let skipped = inner.state.borrow().skipped(&q);
        if let Some(json) = skipped {
            return Ok(unchanged(&json, &array));
        }
    }
    let mut a = inner.analyze(messages, automatic)?;
    let (options, summarizer) = (&inner.options, inner.callbacks.summarize.is_some());
    let (force, instructions) = (call.force, call.instructions);
    let state = inner.state.borrow();
    let input = state.job_input(options, &mut a.call, kind, force, instructions, summarizer);
    drop(state);
    let input = throw(input)?;
    let (array, format) = (a.incoming.array.clone(), a.incoming.format);
    let requests = Requests::new(array, format, input.tokens_before);
    let host = Commit {
        inner: Rc::clone(inner),
        a,
        kind,
    };
    Ok(Driven::job(Job::new(input), Box::new(host), requests, call.signal).into())
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
        let (digest, now) = (std::mem::take(&mut done.digest), js_sys::Date::now() as i64);
        let (call, mut state) = ((&a.call, &*input, self.kind), inner.state.borrow_mut());
        done.digest = state.commit_call(call, &done.rendered, digest, head_value, Some(now));
        drop(state);
        let result = to_js(&done.result());
        // The next cut is floored past what this one returned (seed 000, pi).
        inner.returned(&out);
        set(&result, "messages", &out);
        let removed = originals(&a.incoming, done.removed.iter().copied());
        set(&result, "removed", &removed);
        Ok(result)
    }

    fn unchanged(&self, tokens: usize, warning: &str) -> Result<JsValue, JsValue> {
        let array = &self.a.incoming.array;
        let copy = array.slice(0, array.length());
        let continued = self.a.call.continued.is_some();
        Ok(unchanged(
            &unchanged_continued(tokens, warning, continued),
            &copy,
        ))
    }
}
