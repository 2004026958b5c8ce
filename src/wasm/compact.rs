//! `compact` and `maybeCompact`: the Compactor's side of a compaction. The cheap trigger check
//! before anything is copied, the analysis and plan, then the core's step machine
//! ([`crate::core::pipeline::Job`]: breaker, hooks, summarizer calls, `onFailure`, the extractive
//! fallback) run by the shared runner ([`super::runner`]); the commit builds the result and
//! remembers the head for the next `maybeCompact`. Works on an owned snapshot: no borrow of the
//! `Compactor` is held across an `.await`, so callbacks may call back into it, and overlapping
//! calls do not interfere. Any failure leaves the caller's array untouched.

use super::analyze::{Analyzed, Inner};
use super::call::call_options;
use super::convert::{originals, outgoing, set, to_js};
use super::runner::{run, Context, Host, Ran};
use crate::core::driver::next_round;
use crate::core::pipeline::{Compacted, Input, Job, Kind, Pipeline, Start};
use crate::core::plan::Plan;
use crate::core::render::Origin;
use js_sys::Array;
use serde_json::json;
use std::cell::RefMut;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// The result of a call that changed nothing: `messages` (a copy of the caller's array, or the
/// last compaction's head plus the caller's new messages when `continued`), with `warning`.
fn unchanged(messages: &Array, continued: bool, tokens: usize, warning: &str) -> JsValue {
    let result = to_js(
        &json!({"compacted": false, "continued": continued, "summary": null, "tokensBefore": tokens, "tokensAfter": tokens, "round": 0, "splitTurn": false, "digest": null, "warnings": [warning]}),
    );
    set(result.unchecked_ref(), "messages", messages);
    set(result.unchecked_ref(), "removed", &Array::new());
    result
}

/// Remembers what replaced the messages before the kept tail, for the next `maybeCompact`.
fn remember(
    inner: &Inner,
    a: &Analyzed,
    plan: &Plan,
    rendered: &[crate::core::render::Rendered],
    out: &Array,
    digest: serde_json::Value,
) {
    // The kept tail: Codex's kept user messages before it belong to the head.
    let first_kept = plan.tail_start();
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
    inner.remember(a, first_kept, (head, head_js), digest);
}

/// The whole compaction, as the core's pipeline decides it. `automatic`: called by
/// `maybeCompact` (counts toward the circuit breaker, adds the continue message).
pub async fn compact(
    inner: Rc<Inner>,
    messages: JsValue,
    options: JsValue,
    automatic: bool,
) -> Result<JsValue, JsValue> {
    let call = call_options(&options);
    let kind = match (automatic, call.force) {
        (false, _) => Kind::Manual,
        (true, false) => Kind::Automatic,
        (true, true) => Kind::Forced,
    };
    if kind == Kind::Automatic {
        // Below the trigger nothing is copied or planned: cached counts decide.
        let q = inner.quick(&messages)?;
        let start = inner
            .state
            .borrow()
            .pipeline
            .start(kind, q.should_compact, q.tokens);
        if let Start::Skip(warning) = start {
            return Ok(unchanged(&q.array, q.continued, q.tokens, warning));
        }
    }
    let a = if automatic {
        inner.analyze_continuing(&messages)?
    } else {
        inner.analyze(&messages)?
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
    let estimate = |t: &str| a.estimator.counter.count(t);
    let job = Job::new(Input {
        kind,
        should_compact: prepared.decision.should_compact,
        tokens_before,
        messages: &a.incoming.messages,
        plan: &plan,
        options: &inner.options,
        estimator: &a.estimator,
        estimate: &estimate,
        round,
        instructions: call.instructions.clone(),
        state: None,
        summarizer: inner.callbacks.summarize.is_some(),
        continues: kind.continues(),
        warn_repeat: true,
    });
    let host = Commit {
        inner: &inner,
        a: &a,
        plan: &plan,
        kind,
    };
    let cx = Context {
        options: &inner.options,
        callbacks: &inner.callbacks,
        reentry: &inner.reentry,
        estimator: &a.estimator,
        all: &a.incoming.array,
        format: a.incoming.format,
        call: &call,
        state: None,
        conversation: None,
        tokens_before,
    };
    match run(job, &host, &cx).await? {
        Ran::Committed(result) => Ok(result),
        Ran::Unchanged(warning) => {
            let array = &a.incoming.array;
            let copy = array.slice(0, array.length());
            Ok(unchanged(
                &copy,
                a.continued.is_some(),
                tokens_before,
                &warning,
            ))
        }
    }
}

/// The Compactor as the runner's host: its pipeline, and the result of a committed compaction.
struct Commit<'a> {
    inner: &'a Rc<Inner>,
    a: &'a Analyzed,
    plan: &'a Plan,
    kind: Kind,
}

impl Host for Commit<'_> {
    fn pipeline(&self) -> RefMut<'_, Pipeline> {
        RefMut::map(self.inner.state.borrow_mut(), |s| &mut s.pipeline)
    }

    fn commit(&self, mut done: Compacted) -> Result<JsValue, JsValue> {
        let (a, plan) = (self.a, self.plan);
        // Seed 003's `hidden`: what a prune hid in the summarized messages.
        done.digest = self
            .inner
            .digest_with_hidden(a, plan, std::mem::take(&mut done.digest));
        let result = to_js(&done.result());
        let out = outgoing(&a.incoming, &done.rendered);
        if self.kind.is_automatic() {
            remember(
                self.inner,
                a,
                plan,
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
}
