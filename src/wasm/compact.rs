//! `compact` and `maybeCompact`: the Compactor's side of a compaction. The cheap trigger check
//! before anything is copied, the analysis and plan, then the core's step machine
//! ([`crate::core::pipeline::Job`]: breaker, hooks, summarizer calls, `onFailure`, the extractive
//! fallback) handed to `js/driver.mjs` as a [`Driven`] handle; the commit builds the result and
//! remembers the head for the next `maybeCompact`. The job owns its snapshot: no borrow of the
//! `Compactor` is held while JS runs, so callbacks may call back into it, and overlapping calls
//! do not interfere. Any failure leaves the caller's array untouched.

use super::analyze::{Analyzed, Inner};
use super::convert::{get, originals, outgoing, set, to_js};
use super::driven::{Driven, Host, Owner, Requests};
use crate::core::driver::next_round;
use crate::core::pipeline::{Compacted, Input, Job, Kind, Start};
use crate::core::render::Origin;
use js_sys::Array;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// The result of a call that changed nothing: `messages` (a copy of the caller's array, or the
/// last compaction's head plus the caller's new messages when `continued`), with `warning`.
fn unchanged(messages: &Array, continued: bool, tokens: usize, warning: &str) -> JsValue {
    let mut json = crate::core::report::unchanged(tokens, warning);
    if let Some(fields) = json.as_object_mut() {
        fields.insert("continued".into(), continued.into());
    }
    let result = to_js(&json);
    set(result.unchecked_ref(), "messages", messages);
    set(result.unchecked_ref(), "removed", &Array::new());
    result
}

/// Remembers what replaced the messages before the kept tail, for the next `maybeCompact`.
fn remember(
    inner: &Inner,
    a: &Analyzed,
    input: &Input,
    rendered: &[crate::core::render::Rendered],
    out: &Array,
    digest: serde_json::Value,
) {
    // The kept tail: Codex's kept user messages before it belong to the head.
    let first_kept = input.plan.tail_start();
    let kept = |i: usize| i >= first_kept;
    let head_len = rendered
        .iter()
        .take_while(|r| !matches!(r.origin, Origin::Input(i) | Origin::Changed(i) if kept(i)))
        .count();
    let head = rendered
        .iter()
        .take(head_len)
        .map(|r| r.message.clone())
        .collect();
    let head_js = (0..head_len)
        .map(|i| out.get(u32::try_from(i).unwrap_or(u32::MAX)))
        .collect();
    inner.remember(a, &input.messages, first_kept, (head, head_js), digest);
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
    let kind = match (automatic, call.force) {
        (false, _) => Kind::Manual,
        (true, false) => Kind::Automatic,
        (true, true) => Kind::Forced,
    };
    if kind == Kind::Automatic {
        // Below the trigger nothing is copied or planned: cached counts decide.
        let q = inner.quick(messages)?;
        let start = inner
            .state
            .borrow()
            .pipeline
            .start(kind, q.should_compact, q.tokens);
        if let Start::Skip(warning) = start {
            return Ok(unchanged(&q.array, q.continued, q.tokens, warning));
        }
    }
    let mut a = if automatic {
        inner.analyze_continuing(messages)?
    } else {
        inner.analyze(messages)?
    };
    let prepared = inner.prepare(&a, None, call.force)?;
    let tokens_before = a.estimate.total;
    let plan = prepared.plan;
    let previous = plan.previous_summary.map(|i| {
        a.incoming
            .messages
            .get(i)
            .and_then(|m| inner.recognizer.round(&m.plain_text()))
    });
    let round = next_round(previous, inner.state.borrow().pipeline.compactions());
    let job = Job::new(Input {
        kind,
        should_compact: prepared.decision.should_compact,
        tokens_before,
        // Taken, not copied: the commit reads them from the job.
        messages: std::mem::take(&mut a.incoming.messages),
        plan,
        options: inner.options.clone(),
        estimator: a.estimator.clone(),
        round,
        instructions: call.instructions.clone(),
        state: None,
        summarizer: inner.callbacks.summarize.is_some(),
        continues: kind.continues(),
        warn_repeat: true,
    });
    let requests = Requests::new(a.incoming.array.clone(), a.incoming.format, tokens_before);
    let host = Commit {
        inner: Rc::clone(inner),
        a,
        kind,
    };
    Ok(Driven::job(job, Box::new(host), requests, call.signal).into())
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
        let a = &self.a;
        // Seed 003's `hidden`: what a prune hid in the summarized messages.
        done.digest =
            self.inner
                .digest_with_hidden(a, &input.plan, std::mem::take(&mut done.digest));
        let result = to_js(&done.result());
        let out = outgoing(&a.incoming, &done.rendered);
        if self.kind.is_automatic() {
            remember(
                &self.inner,
                a,
                input,
                &done.rendered,
                &out,
                done.digest.clone(),
            );
        }
        // The next cut is floored past what this one returned (seed 000, pi).
        self.inner.returned(&out);
        set(result.unchecked_ref(), "messages", &out);
        set(
            result.unchecked_ref(),
            "removed",
            &originals(&a.incoming, done.removed.iter().copied()),
        );
        Ok(result)
    }

    fn unchanged(&self, tokens: usize, warning: &str) -> Result<JsValue, JsValue> {
        let array = &self.a.incoming.array;
        let copy = array.slice(0, array.length());
        Ok(unchanged(
            &copy,
            self.a.continued.is_some(),
            tokens,
            warning,
        ))
    }
}
