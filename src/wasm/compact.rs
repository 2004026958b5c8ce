//! `compact` and `maybeCompact`: plan, ask the caller's `summarize` for each piece (with timeout,
//! abort, retries with backoff), validate, render. Works on an owned snapshot: no borrow of the
//! `Compactor` is held across an `.await`, so callbacks may call back into it, and overlapping
//! calls do not interfere. Any failure leaves the caller's array untouched and rejects with a
//! `CompactionError`.

use super::analyze::{Analyzed, Inner};
use super::call::{call_options, CallOptions};
use super::convert::{originals, outgoing, to_js};
use super::summarize::{execute, Exec};
use crate::core::driver::{next_round, Recovery};
use crate::core::error::ErrorCode;
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
    let fits = inner.options.settings.budget.available();
    let policy = inner.options.on_failure;
    // With the breaker open, an automatic call skips the failing summarizer: the extractive
    // summary when the policy would fall back to it, otherwise the messages unchanged.
    let breaker_fallback = |tokens: usize| {
        policy.recover(ErrorCode::SummarizerFailed, tokens, fits) == Recovery::Extractive
    };
    if automatic && !call.force {
        // Below the trigger nothing is copied or planned: cached counts decide.
        let q = inner.quick(&messages)?;
        let off = inner.state.borrow().breaker.is_open();
        if !q.should_compact || (off && !breaker_fallback(q.tokens)) {
            let warning = if q.should_compact {
                BREAKER_OPEN
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
    let mut extractive = inner.options.extractive;
    if automatic && inner.state.borrow().breaker.is_open() {
        if !breaker_fallback(tokens_before) {
            return Ok(unchanged(&a, tokens_before, BREAKER_OPEN));
        }
        // Say so: the summarizer is skipped, the context is over its room.
        let error = super::error::to_js(
            &crate::core::error::Error::new(
                ErrorCode::SummarizerFailed,
                format!(
                    "automatic compaction is off after repeated summarizer failures and the context \
                     ({tokens_before} tokens) no longer fits {fits}: an extractive summary is used"
                ),
            ),
            None,
        );
        report(&inner.callbacks, &error, true).await;
        extractive = true;
    }
    if automatic && !prepared.decision.should_compact && !call.force {
        return Ok(unchanged(&a, tokens_before, "below the trigger"));
    }
    let plan = prepared.plan;
    if plan.is_noop() {
        return Ok(unchanged(&a, tokens_before, "nothing to compact"));
    }
    let mut outcome = run(
        &inner,
        &a,
        &plan,
        &call,
        tokens_before,
        automatic,
        extractive,
    )
    .await;
    if let Err(error) = &outcome {
        let error = error.clone();
        let code = code_of(&error);
        if automatic {
            inner.state.borrow_mut().breaker.failure();
        }
        let recovery = if automatic {
            policy.recover(code, tokens_before, fits)
        } else {
            Recovery::Reject
        };
        let swallowed = recovery != Recovery::Reject;
        report(&inner.callbacks, &error, swallowed).await;
        match recovery {
            Recovery::Reject => return Err(error),
            Recovery::Unchanged => {
                let text = format!(
                    "the compaction failed ({}): {}; the messages are unchanged",
                    code.as_str(),
                    message_of(&error)
                );
                return Ok(unchanged(&a, tokens_before, &text));
            }
            Recovery::Extractive => {
                outcome = run(&inner, &a, &plan, &call, tokens_before, automatic, true).await;
                if let Ok(result) = &outcome {
                    let text = format!(
                        "the summarizer failed ({}): {}; an extractive summary was used instead",
                        code.as_str(),
                        message_of(&error)
                    );
                    warn(result, &text);
                }
            }
        }
    }
    if outcome.is_ok() {
        let mut state = inner.state.borrow_mut();
        if !extractive {
            state.breaker.success();
        }
        state.compactions += 1;
    }
    outcome
}

const BREAKER_OPEN: &str =
    "automatic compaction is off after repeated failures; call compact() to retry";

/// The code of a `CompactionError` (`SUMMARIZER_FAILED` for anything else).
fn code_of(error: &JsValue) -> ErrorCode {
    Reflect::get(error, &JsValue::from_str("code"))
        .ok()
        .and_then(|c| c.as_string())
        .and_then(|c| ErrorCode::parse(&c))
        .unwrap_or(ErrorCode::SummarizerFailed)
}

fn message_of(error: &JsValue) -> String {
    Reflect::get(error, &JsValue::from_str("message"))
        .ok()
        .and_then(|c| c.as_string())
        .unwrap_or_default()
}

/// Adds a warning to a result's `warnings`.
fn warn(result: &JsValue, text: &str) {
    if let Ok(list) = Reflect::get(result, &JsValue::from_str("warnings")) {
        if let Some(list) = list.dyn_ref::<Array>() {
            list.push(&JsValue::from_str(text));
        }
    }
}

/// Reports a failed compaction to `onError` (awaited; its own errors are ignored). Without a hook,
/// a failure that does not reject is written to `console.warn`, so it is never silent.
async fn report(callbacks: &super::options::Callbacks, error: &JsValue, swallowed: bool) {
    match &callbacks.on_error {
        Some(hook) => {
            if let Ok(value) = hook.call1(&JsValue::UNDEFINED, error) {
                if let Some(promise) = value.dyn_ref::<js_sys::Promise>() {
                    let _ = wasm_bindgen_futures::JsFuture::from(promise.clone()).await;
                }
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
    automatic: bool,
    extractive: bool,
) -> Result<JsValue, JsValue> {
    let previous = plan.previous_summary.map(|i| {
        a.incoming
            .messages
            .get(i)
            .and_then(|m| inner.recognizer.round(&m.plain_text()))
    });
    let round = next_round(previous, inner.state.borrow().compactions);
    let exec = Exec {
        options: &inner.options,
        callbacks: &inner.callbacks,
        estimator: &a.estimator,
        state: None,
        extractive,
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
        "warnings": done.warnings,
    }));
    if let (true, Some(text)) = (round > 1, &inner.options.settings.repeat_warning) {
        warn(&result, text);
    }
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
