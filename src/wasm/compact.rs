//! `compact` and `maybeCompact`: carry out the core pipeline's decisions
//! ([`crate::core::pipeline`]: trigger gate, breaker, `onFailure`, extractive fallback) on the
//! Compactor's analyzed messages, ask the caller's `summarize` ([`super::summarize`]), and build
//! the result. Also `report`, the `onError` call both handles use. Works on an owned snapshot: no
//! borrow of the `Compactor` is held across an `.await`, so callbacks may call back into it, and
//! overlapping calls do not interfere. Any failure leaves the caller's array untouched and
//! rejects with a `CompactionError` (or, for `maybeCompact`, becomes what `onFailure` says).

use super::analyze::{Analyzed, Inner};
use super::call::{call_options, CallOptions};
use super::convert::{originals, outgoing, to_js};
use super::summarize::{execute, Exec};
use crate::core::driver::next_round;
use crate::core::error::ErrorCode;
use crate::core::pipeline::{Failed, Kind, Start, CANCELLED, NOTHING_TO_COMPACT};
use crate::core::plan::Disposition;
use crate::core::render::Origin;
use js_sys::{Array, Object, Reflect};
use serde_json::json;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

fn set(obj: &Object, key: &str, value: &JsValue) {
    let _ = Reflect::set(obj, &JsValue::from_str(key), value);
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
    inner.remember(a, first_kept, head, head_js);
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
    let start =
        inner
            .state
            .borrow()
            .pipeline
            .start(kind, prepared.decision.should_compact, tokens_before);
    let extractive = match start {
        Start::Skip(warning) => return Ok(unchanged(&a, tokens_before, warning)),
        Start::Compact { extractive, notice } => {
            notify(
                &inner.callbacks,
                &inner.reentry,
                inner.options.timeout_ms,
                notice,
            )
            .await;
            extractive
        }
    };
    let plan = prepared.plan;
    if plan.is_noop() {
        return Ok(unchanged(&a, tokens_before, NOTHING_TO_COMPACT));
    }
    let mut outcome = run(&inner, &a, &plan, &call, tokens_before, kind, extractive).await;
    let mut summarized = !extractive;
    if let Err(error) = &outcome {
        let error = error.clone();
        let failed = inner.state.borrow_mut().pipeline.failed(
            kind,
            code_of(&error),
            &message_of(&error),
            tokens_before,
        );
        report(
            &inner.callbacks,
            &inner.reentry,
            inner.options.timeout_ms,
            &error,
            failed.swallowed(),
        )
        .await;
        match failed {
            Failed::Reject => return Err(error),
            Failed::Unchanged(text) => return Ok(unchanged(&a, tokens_before, &text)),
            Failed::Extractive(text) => {
                summarized = false;
                outcome = run(&inner, &a, &plan, &call, tokens_before, kind, true).await;
                if let Ok(result) = &outcome {
                    warn(result, &text);
                }
            }
        }
    }
    if outcome.is_ok() {
        inner.state.borrow_mut().pipeline.succeeded(summarized);
    }
    outcome
}

/// The code of a `CompactionError` (`SUMMARIZER_FAILED` for anything else).
pub fn code_of(error: &JsValue) -> ErrorCode {
    Reflect::get(error, &JsValue::from_str("code"))
        .ok()
        .and_then(|c| c.as_string())
        .and_then(|c| ErrorCode::parse(&c))
        .unwrap_or(ErrorCode::SummarizerFailed)
}

pub fn message_of(error: &JsValue) -> String {
    Reflect::get(error, &JsValue::from_str("message"))
        .ok()
        .and_then(|c| c.as_string())
        .unwrap_or_default()
}

/// Adds a warning to a result's `warnings`.
pub fn warn(result: &JsValue, text: &str) {
    if let Ok(list) = Reflect::get(result, &JsValue::from_str("warnings")) {
        if let Some(list) = list.dyn_ref::<Array>() {
            list.push(&JsValue::from_str(text));
        }
    }
}

/// Reports the pipeline's notice at the start of a compaction (the breaker skipped the summarizer,
/// say) as a swallowed failure, when there is one.
pub async fn notify(
    callbacks: &super::options::Callbacks,
    reentry: &super::call::Reentry,
    timeout_ms: u64,
    notice: Option<crate::core::error::Error>,
) {
    if let Some(notice) = notice {
        let notice = super::error::to_js(&notice, None);
        report(callbacks, reentry, timeout_ms, &notice, true).await;
    }
}

/// Reports a failed compaction to `onError` (awaited for at most `timeoutMs`; its own errors are
/// ignored). Without a hook, a failure that does not reject is written to `console.warn`, so it
/// is never silent.
pub async fn report(
    callbacks: &super::options::Callbacks,
    reentry: &super::call::Reentry,
    timeout_ms: u64,
    error: &JsValue,
    swallowed: bool,
) {
    match &callbacks.on_error {
        Some(hook) => {
            if let Ok(value) = reentry.call1(hook, error) {
                let _ = super::call::settle(value, timeout_ms).await;
            }
        }
        None if swallowed => {
            let text = format!(
                "context-compaction: automatic compaction failed ({}): {}",
                code_of(error).as_str(),
                message_of(error)
            );
            web_sys_warn(&text);
        }
        None => {}
    }
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = warn)]
    fn web_sys_warn(text: &str);
}

async fn run(
    inner: &Rc<Inner>,
    a: &Analyzed,
    plan: &crate::core::plan::Plan,
    call: &CallOptions,
    tokens_before: usize,
    kind: Kind,
    extractive: bool,
) -> Result<JsValue, JsValue> {
    let automatic = kind.continues();
    let previous = plan.previous_summary.map(|i| {
        a.incoming
            .messages
            .get(i)
            .and_then(|m| inner.recognizer.round(&m.plain_text()))
    });
    let round = next_round(previous, inner.state.borrow().pipeline.compactions());
    let exec = Exec {
        options: &inner.options,
        callbacks: &inner.callbacks,
        estimator: &a.estimator,
        state: None,
        extractive,
        reentry: &inner.reentry,
        format: a.incoming.format,
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
        return Ok(unchanged(a, tokens_before, CANCELLED));
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
        "warnings": done.warnings,
    }));
    if let (true, Some(text)) = (round > 1, &inner.options.settings.repeat_warning) {
        warn(&result, text);
    }
    let out = outgoing(&a.incoming, &done.rendered);
    if kind.is_automatic() {
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
