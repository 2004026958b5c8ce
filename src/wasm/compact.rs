//! `compact` and `maybeCompact`: plan, ask the caller's `summarize` for each piece (with timeout,
//! abort, retries with backoff), validate, render. Works on an owned snapshot: no borrow of the
//! `Compactor` is held across an `.await`, so callbacks may call back into it, and overlapping
//! calls do not interfere. Any failure leaves the caller's array untouched and rejects with a
//! `CompactionError`.

use super::analyze::{Analyzed, Inner};
use super::convert::{originals, outgoing, to_js};
use super::summarize::{execute, Exec};
use crate::core::driver::next_round;
use crate::core::plan::Disposition;
use crate::core::render::Origin;
use js_sys::{Array, Object, Reflect};
use serde_json::json;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

fn set(obj: &Object, key: &str, value: &JsValue) {
    let _ = Reflect::set(obj, &JsValue::from_str(key), value);
}

/// What the caller passed as the second argument.
pub struct CallOptions {
    pub instructions: Option<String>,
    pub signal: JsValue,
    pub force: bool,
}

pub fn call_options(value: &JsValue) -> CallOptions {
    let get = |k: &str| {
        if value.is_object() {
            Reflect::get(value, &JsValue::from_str(k)).unwrap_or(JsValue::UNDEFINED)
        } else {
            JsValue::UNDEFINED
        }
    };
    CallOptions {
        instructions: get("instructions").as_string(),
        signal: get("signal"),
        force: get("force").as_bool().unwrap_or(false),
    }
}

fn unchanged(a: &Analyzed, tokens: usize, warning: &str) -> JsValue {
    // `continued`: the messages are the last compaction's head plus the caller's new messages.
    let continued = a.continued.is_some();
    let result = to_js(
        &json!({"compacted": false, "continued": continued, "summary": null, "tokensBefore": tokens, "tokensAfter": tokens, "round": 0, "splitTurn": false, "digest": null, "warnings": [warning]}),
    );
    set(
        result.unchecked_ref(),
        "messages",
        &Array::from(&a.incoming.array).slice(0, a.incoming.array.length()),
    );
    set(result.unchecked_ref(), "removed", &Array::new());
    result
}

/// Remembers what replaced the messages before the kept tail, for the next `maybeCompact`.
fn remember(
    inner: &Inner,
    a: &Analyzed,
    plan: &crate::core::plan::Plan,
    rendered: &[crate::core::render::Rendered],
    out: &Array,
) {
    let kept = |i: usize| plan.dispositions.get(i) == Some(&Disposition::Keep);
    let first_kept = (0..plan.dispositions.len())
        .find(|&i| kept(i))
        .unwrap_or(plan.dispositions.len());
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
    inner.remember(a, first_kept, head, head_js);
}

/// The whole compaction. `automatic`: called by `maybeCompact` (counts toward the circuit breaker,
/// adds the continue message).
pub async fn compact(
    inner: Rc<Inner>,
    messages: JsValue,
    options: JsValue,
    automatic: bool,
) -> Result<JsValue, JsValue> {
    let call = call_options(&options);
    if automatic && !call.force {
        // Below the trigger nothing is copied or planned: cached counts decide.
        let q = inner.quick(&messages)?;
        let off = inner.state.borrow().breaker.is_open();
        if off || !q.should_compact {
            let warning = if off {
                "automatic compaction is off after repeated failures; call compact() to retry"
            } else {
                "below the trigger"
            };
            let result = to_js(
                &json!({"compacted": false, "continued": q.continued, "summary": null, "tokensBefore": q.tokens, "tokensAfter": q.tokens, "round": 0, "splitTurn": false, "digest": null, "warnings": [warning]}),
            );
            set(result.unchecked_ref(), "messages", &q.array);
            set(result.unchecked_ref(), "removed", &Array::new());
            return Ok(result);
        }
    }
    let a = if automatic {
        inner.analyze_continuing(&messages)?
    } else {
        inner.analyze(&messages)?
    };
    let prepared = inner.prepare(&a, None, call.force)?;
    let tokens_before = a.estimate.total;
    if automatic {
        let state = inner.state.borrow();
        if state.breaker.is_open() {
            return Ok(unchanged(
                &a,
                tokens_before,
                "automatic compaction is off after repeated failures; call compact() to retry",
            ));
        }
    }
    if automatic && !prepared.decision.should_compact && !call.force {
        return Ok(unchanged(&a, tokens_before, "below the trigger"));
    }
    let plan = prepared.plan;
    if plan.is_noop() {
        return Ok(unchanged(&a, tokens_before, "nothing to compact"));
    }
    let outcome = run(&inner, &a, &plan, &call, tokens_before, automatic).await;
    {
        let mut state = inner.state.borrow_mut();
        match &outcome {
            Ok(_) => {
                state.breaker.success();
                state.compactions += 1;
            }
            Err(_) if automatic => state.breaker.failure(),
            Err(_) => {}
        }
    }
    outcome
}

async fn run(
    inner: &Rc<Inner>,
    a: &Analyzed,
    plan: &crate::core::plan::Plan,
    call: &CallOptions,
    tokens_before: usize,
    automatic: bool,
) -> Result<JsValue, JsValue> {
    let round = next_round(
        plan.previous_summary.is_some(),
        inner.state.borrow().compactions,
    );
    let exec = Exec {
        options: &inner.options,
        callbacks: &inner.callbacks,
        estimator: &a.estimator,
        state: None,
    };
    let Some(done) = execute(
        &exec,
        &a.incoming.messages,
        &a.incoming.array,
        plan,
        call,
        automatic,
        round,
        tokens_before,
    )
    .await?
    else {
        return Ok(unchanged(
            a,
            tokens_before,
            "cancelled by onBeforeCompaction",
        ));
    };
    let removed: Vec<usize> = plan
        .dispositions
        .iter()
        .enumerate()
        .filter(|(_, d)| {
            matches!(
                d,
                Disposition::Summarize | Disposition::TurnPrefix | Disposition::Drop
            )
        })
        .map(|(i, _)| i)
        .collect();
    let result = to_js(&json!({
        "compacted": true,
        "summary": done.summary,
        "tokensBefore": tokens_before,
        "tokensAfter": done.tokens_after,
        "round": round,
        "splitTurn": plan.split_turn,
        "digest": done.digest,
        "warnings": [],
    }));
    let out = outgoing(&a.incoming, &done.rendered);
    if automatic {
        remember(inner, a, plan, &done.rendered, &out);
    }
    set(result.unchecked_ref(), "messages", &out);
    set(
        result.unchecked_ref(),
        "removed",
        &originals(&a.incoming, removed.into_iter()),
    );
    Ok(result)
}
