//! The summarizer calls of one compaction, for a `Compactor` or a `Session`: the
//! `onBeforeCompaction` hook, the pieces of the core's summary job run in parallel with timeout,
//! abort and retries (the schedule is the core's `driver`), answer validation, the no-progress
//! check, `onAfterCompaction` and `onProgress`. Every hook is awaited for at most `timeoutMs`, and
//! every call into the caller's code is counted by the handle's re-entry guard
//! ([`super::call::Reentry`]). No borrow is held across an `.await`.

use super::call::CallOptions;
use super::call::{
    call_once, is_aborted, pause, reason, settle, Batch, CallError, Reentry, Settled,
};
use super::continuing::{set_mode, Continuing};
use super::convert::to_js;
use super::error::to_js as error_to_js;
use super::options::Callbacks;
use crate::core::driver::{check_progress, Attempts, CallFailure, Resubmits, RetryPolicy};
use crate::core::error::{Error, ErrorCode};
use crate::core::estimate::Estimator;
use crate::core::message::Message;
use crate::core::options::Options;
use crate::core::plan::{Disposition, Plan};
use crate::core::render::{render, Rendered};
use crate::core::summary::is_blank;
use crate::core::summary::job::{PieceRequest, Purpose, SummaryJob};
use crate::formats::Format;
use js_sys::{Array, Function, Object, Reflect};
use serde_json::json;
use wasm_bindgen::prelude::*;

/// What one compaction's summarizer calls need from the object that runs them (a `Compactor`
/// or a `Session`).
pub struct Exec<'a> {
    pub options: &'a Options,
    pub callbacks: &'a Callbacks,
    pub estimator: &'a Estimator,
    /// The workstream state so far (a session's), shown to the summarizer as `request.state`.
    pub state: Option<&'a serde_json::Value>,
    /// Write the extractive summary instead of calling the summarizer (`summarize: "extractive"`,
    /// or the fallback after a failure).
    pub extractive: bool,
    /// The handle's count of calls into the caller's code.
    pub reentry: &'a Reentry,
    /// The format of the caller's messages (a continuing request's conversation is in it).
    pub format: Format,
}

/// The result of [`execute`].
pub struct Executed {
    /// The summary (`None` when the plan only drops).
    pub summary: Option<String>,
    /// The digest as JSON (null without a summary).
    pub digest: serde_json::Value,
    /// The compacted context.
    pub rendered: Vec<Rendered>,
    /// Its estimated tokens.
    pub tokens_after: usize,
    /// The workstream state deltas the summarizer returned (`{ summary, state }` answers), in
    /// the order of the pieces.
    pub state_deltas: Vec<serde_json::Value>,
    /// Hooks that failed without deciding anything (`onProgress`, `onAfterCompaction`).
    pub warnings: Vec<String>,
}

/// The retry numbers of the options.
fn policy(o: &Options) -> RetryPolicy {
    RetryPolicy {
        retries: o.settings.retries,
        delay_ms: o.settings.retry_delay_ms,
        timeout_ms: o.timeout_ms,
    }
}

fn fail(code: ErrorCode, message: impl Into<String>, cause: Option<&JsValue>) -> JsValue {
    error_to_js(&Error::new(code, message), cause)
}

fn set(obj: &Object, key: &str, value: &JsValue) {
    let _ = Reflect::set(obj, &JsValue::from_str(key), value);
}

/// Refuses text of the caller's longer than a summary may hold, before it is copied into the
/// module (`core::summary::answer::check_length`).
fn check_length(text: &JsValue, what: &str) -> Result<(), JsValue> {
    let units = text
        .dyn_ref::<js_sys::JsString>()
        .map_or(0, js_sys::JsString::length);
    crate::core::summary::answer::check_length(units as usize, what)
        .map_err(|e| error_to_js(&e, None))
}

/// The summary text of an answer: a string, or `{ summary: string }`.
fn answer_text(answer: &JsValue) -> Option<String> {
    answer.as_string().or_else(|| {
        answer
            .is_object()
            .then(|| Reflect::get(answer, &JsValue::from_str("summary")).ok())
            .flatten()
            .and_then(|s| s.as_string())
    })
}

/// The workstream state delta of an answer `{ summary, state }`, validated (seed 004's fields).
fn state_delta(answer: &JsValue) -> Result<Option<serde_json::Value>, JsValue> {
    if !answer.is_object() {
        return Ok(None);
    }
    let state = Reflect::get(answer, &JsValue::from_str("state")).unwrap_or(JsValue::UNDEFINED);
    if state.is_undefined() || state.is_null() {
        return Ok(None);
    }
    let checked =
        super::plain::check_shape(&state, "state", super::plain::Kind::Stored).map_err(|e| {
            fail(
                ErrorCode::SummarizerFailed,
                "the summarizer's state is nested too deeply or too large",
                Some(&e),
            )
        })?;
    let value: serde_json::Value = serde_wasm_bindgen::from_value(checked.value).map_err(|e| {
        fail(
            ErrorCode::SummarizerFailed,
            format!("the summarizer's state is not plain data: {e}"),
            None,
        )
    })?;
    crate::core::session::workstream::validate_delta(&value).map_err(|e| {
        fail(
            ErrorCode::SummarizerFailed,
            format!("the summarizer's state delta is invalid: {}", e.message),
            None,
        )
    })?;
    Ok(Some(value))
}

fn request_object(
    exec: &Exec<'_>,
    piece: &PieceRequest,
    all: &Array,
    continuing: Option<&Continuing>,
) -> Object {
    let obj = Object::new();
    let state = exec.state;
    if let Some(state) = state {
        set(&obj, "state", &to_js(state));
    }
    set(&obj, "purpose", &JsValue::from_str(piece.purpose.as_str()));
    set(&obj, "system", &JsValue::from_str(&piece.system));
    set(&obj, "prompt", &JsValue::from_str(&piece.prompt));
    set(&obj, "transcript", &JsValue::from_str(&piece.transcript));
    set(
        &obj,
        "messages",
        &piece
            .message_indices
            .iter()
            .map(|&i| all.get(u32::try_from(i).unwrap_or(u32::MAX)))
            .collect::<Array>(),
    );
    if let Some(p) = &piece.previous_summary {
        set(&obj, "previousSummary", &JsValue::from_str(p));
    }
    if let Some(i) = &piece.instructions {
        set(&obj, "instructions", &JsValue::from_str(i));
    }
    set(
        &obj,
        "maxTokens",
        &JsValue::from_f64(piece.max_tokens as f64),
    );
    set(&obj, "round", &JsValue::from_f64(f64::from(piece.round)));
    let count = |t: &str| exec.estimator.counter.count(t);
    set_mode(&obj, piece, exec.options, continuing, &count);
    obj
}

/// Asks for one piece: calls with retries and exponential backoff on failures, timeouts and
/// answers that are not text; an abort ends it at once.
async fn ask(
    policy: RetryPolicy,
    summarize: Function,
    request: Object,
    signal: JsValue,
    reentry: Reentry,
) -> Result<JsValue, JsValue> {
    // The schedule and the final error are the core's; the cause is the last failure's value.
    let mut attempts = Attempts::new(policy);
    let mut cause: Option<JsValue> = None;
    while let Some(delay) = attempts.next_delay() {
        if delay > 0 {
            pause(delay, &signal).await.map_err(|why| aborted(&why))?;
        }
        match call_once(&summarize, &request, policy.timeout_ms, &signal, &reentry).await {
            Err(CallError::Aborted(why)) => return Err(aborted(&why)),
            Err(CallError::Timeout) => {
                attempts.failed(CallFailure::TimedOut);
                cause = None;
            }
            Err(CallError::Failed(value)) => {
                attempts.failed(CallFailure::Threw);
                cause = Some(value);
            }
            Ok(answer) => {
                let text = if answer.is_object() {
                    Reflect::get(&answer, &JsValue::from_str("summary")).unwrap_or_default()
                } else {
                    answer.clone()
                };
                check_length(&text, "the summarizer's answer")?;
                if answer_text(&answer).is_some() {
                    return Ok(answer);
                }
                attempts.failed(CallFailure::NotText);
                cause = Some(answer);
            }
        }
    }
    Err(error_to_js(&attempts.error(), cause.as_ref()))
}

/// One summarizer call outside a compaction job (e.g. a memory-block compaction), with the
/// timeout, retries and abort of the options; the answer must be non-empty text.
pub async fn summarize_once(
    exec: &Exec<'_>,
    purpose: &str,
    system: &str,
    prompt: &str,
    max_tokens: usize,
    signal: &JsValue,
) -> Result<String, JsValue> {
    let Some(summarize) = exec.callbacks.summarize.clone() else {
        return Err(error_to_js(
            &Error::invalid_option("summarize", "a summarize function is required"),
            None,
        ));
    };
    let obj = Object::new();
    set(&obj, "purpose", &JsValue::from_str(purpose));
    set(&obj, "system", &JsValue::from_str(system));
    set(&obj, "prompt", &JsValue::from_str(prompt));
    set(&obj, "transcript", &JsValue::from_str(prompt));
    set(&obj, "messages", &Array::new());
    set(&obj, "maxTokens", &JsValue::from_f64(max_tokens as f64));
    set(&obj, "round", &JsValue::from_f64(1.0));
    set(&obj, "mode", &JsValue::from_str("transcript"));
    let answer = ask(
        policy(exec.options),
        summarize,
        obj,
        signal.clone(),
        exec.reentry.clone(),
    )
    .await?;
    match answer_text(&answer) {
        Some(text) if !text.trim().is_empty() => Ok(text),
        _ => Err(fail(
            ErrorCode::SummaryEmpty,
            "the summarizer returned an empty summary",
            None,
        )),
    }
}

fn aborted(why: &JsValue) -> JsValue {
    fail(
        ErrorCode::Aborted,
        "compaction aborted by the caller's signal",
        Some(why),
    )
}

/// What the pieces of a job gave besides their answers.
#[derive(Default)]
struct Gathered {
    /// Workstream state deltas, in the order of the pieces.
    deltas: Vec<serde_json::Value>,
    /// Hooks that failed without deciding anything.
    warnings: Vec<String>,
}

/// Runs the pieces that may run now in parallel, then validates each answer; an answer the job
/// rejects (empty, not smaller) is asked again, up to the retries.
#[allow(clippy::too_many_arguments)]
async fn run_batch(
    exec: &Exec<'_>,
    summarize: &Function,
    job: &mut SummaryJob<'_>,
    pieces: &[PieceRequest],
    all: &Array,
    continuing: Option<&Continuing>,
    signal: &JsValue,
    out: &mut Gathered,
) -> Result<(), JsValue> {
    let limits = policy(exec.options);
    // Siblings share a batch signal: the first failure aborts the others.
    let batch = Batch::new(signal);
    let batch_signal = batch.signal();
    let promises: Array = pieces
        .iter()
        .map(|piece| {
            let ask = ask(
                limits,
                summarize.clone(),
                request_object(exec, piece, all, continuing),
                batch_signal.clone(),
                exec.reentry.clone(),
            );
            JsValue::from(wasm_bindgen_futures::future_to_promise(ask))
        })
        .collect();
    let answers = wasm_bindgen_futures::JsFuture::from(js_sys::Promise::all(&promises)).await;
    if let Err(e) = &answers {
        batch.abort(e);
    }
    batch.close();
    let answers = answers?;
    let answers = Array::from(&answers);
    for (k, piece) in pieces.iter().enumerate() {
        let mut answer = answers.get(u32::try_from(k).unwrap_or(u32::MAX));
        let mut resubmits = Resubmits::new(limits.retries);
        loop {
            let text = answer_text(&answer).unwrap_or_default();
            match job.submit(piece.id, &text) {
                Ok(()) => {
                    if let Some(delta) = state_delta(&answer)? {
                        out.deltas.push(delta);
                    }
                    // A delta given in the text, after its marker line.
                    out.deltas.extend(job.take_state_deltas());
                    break;
                }
                Err(_) if !resubmits.again() && piece.purpose == Purpose::Rollup => {
                    // The rollup never condensed: the summary is cut to its cap instead.
                    job.skip_rollup(piece.id)
                        .map_err(|e| error_to_js(&e, None))?;
                    break;
                }
                Err(e) if !resubmits.again() => return Err(error_to_js(&e, None)),
                Err(_) => {
                    answer = ask(
                        limits,
                        summarize.clone(),
                        request_object(exec, piece, all, continuing),
                        signal.clone(),
                        exec.reentry.clone(),
                    )
                    .await?;
                }
            }
        }
        progress(exec, job, &mut out.warnings).await;
    }
    Ok(())
}

async fn progress(exec: &Exec<'_>, job: &SummaryJob<'_>, warnings: &mut Vec<String>) {
    if let Some(f) = &exec.callbacks.on_progress {
        let (done, total) = job.progress();
        let event = to_js(&json!({"done": done, "total": total}));
        warnings.extend(notify(exec, f, &event, "onProgress").await);
    }
}

/// Calls a hook that only observes (`onProgress`, `onAfterCompaction`) and awaits what it
/// returns for at most `timeoutMs`; a throw, a rejection or no answer in time becomes a warning
/// (never an unhandled rejection, never a hang).
pub async fn notify(
    exec: &Exec<'_>,
    hook: &Function,
    event: &JsValue,
    name: &str,
) -> Option<String> {
    let failed = |e: &JsValue| {
        let detail = e
            .dyn_ref::<js_sys::Error>()
            .map(|e| String::from(e.message()))
            .or_else(|| e.as_string())
            .unwrap_or_else(|| "a non-Error value".to_string());
        Some(format!("{name} failed: {detail}"))
    };
    match exec.reentry.call1(hook, event) {
        Err(e) => failed(&e),
        Ok(value) => match settle(value, exec.options.timeout_ms).await {
            Settled::Failed(e) => failed(&e),
            Settled::TimedOut => Some(format!(
                "{name} did not settle within {} ms; the compaction went on",
                exec.options.timeout_ms
            )),
            Settled::Value(_) => None,
        },
    }
}

/// Asks `onBeforeCompaction`; `Ok(None)`: go on; `Ok(Some(None))`: cancelled; `Ok(Some(Some(s)))`:
/// the hook supplied the summary.
async fn before_hook(
    exec: &Exec<'_>,
    tokens_before: usize,
    all: &Array,
) -> Result<Option<Option<String>>, JsValue> {
    let Some(hook) = &exec.callbacks.on_before else {
        return Ok(None);
    };
    let event = to_js(&json!({"tokensBefore": tokens_before}));
    set(event.unchecked_ref(), "messages", all);
    let value = exec.reentry.call1(hook, &event).map_err(|e| {
        fail(
            ErrorCode::HookFailed,
            "onBeforeCompaction threw; the compaction did not run",
            Some(&e),
        )
    })?;
    let value = match settle(value, exec.options.timeout_ms).await {
        Settled::Value(v) => v,
        Settled::Failed(e) => {
            return Err(fail(
                ErrorCode::HookFailed,
                "onBeforeCompaction rejected; the compaction did not run",
                Some(&e),
            ))
        }
        Settled::TimedOut => {
            return Err(fail(
                ErrorCode::Timeout,
                format!(
                    "onBeforeCompaction did not settle within {} ms; the compaction did not run",
                    exec.options.timeout_ms
                ),
                None,
            ))
        }
    };
    let cancel = value.is_object()
        && Reflect::get(&value, &JsValue::from_str("cancel")).ok() == Some(JsValue::TRUE);
    if value == JsValue::FALSE || cancel {
        return Ok(Some(None));
    }
    if value.is_object() {
        let given = Reflect::get(&value, &JsValue::from_str("summary")).unwrap_or_default();
        if given.is_undefined() {
            return Ok(None);
        }
        check_length(&given, "onBeforeCompaction's summary")?;
        let Some(summary) = given.as_string() else {
            return Err(fail(
                ErrorCode::HookFailed,
                "onBeforeCompaction's summary must be a string",
                None,
            ));
        };
        if is_blank(&summary) {
            return Err(fail(
                ErrorCode::SummaryEmpty,
                "onBeforeCompaction supplied an empty summary",
                None,
            ));
        }
        return Ok(Some(Some(summary)));
    }
    Ok(None)
}

/// Runs one compaction's summarizer calls and renders the result: the `onBeforeCompaction` hook
/// (which may cancel: `Ok(None)`, or supply the summary), the pieces of the summary job with
/// timeout, abort and retries, the no-progress check, then `onAfterCompaction`. `all` holds the
/// caller's objects of `messages` (index-aligned), for the requests and the hook events. Nothing
/// of the caller's is changed; any failure is a `CompactionError`.
#[allow(clippy::too_many_arguments)]
pub async fn execute(
    exec: &Exec<'_>,
    messages: &[Message],
    all: &Array,
    plan: &Plan,
    call: &CallOptions,
    automatic: bool,
    round: u32,
    tokens_before: usize,
) -> Result<Option<Executed>, JsValue> {
    let summarizes = plan
        .dispositions
        .iter()
        .any(|d| matches!(d, Disposition::Summarize | Disposition::TurnPrefix));
    let mut summary_text = None;
    let mut digest = serde_json::Value::Null;
    let mut gathered = Gathered::default();
    if summarizes {
        match before_hook(exec, tokens_before, all).await? {
            Some(None) => return Ok(None),
            Some(Some(text)) => summary_text = Some(text),
            None => {}
        }
        if summary_text.is_none() && exec.extractive {
            let estimate = |t: &str| exec.estimator.counter.count(t);
            let job = SummaryJob::new(
                messages,
                plan,
                &exec.options.settings,
                exec.options.settings.templates.clone(),
                None,
                call.instructions.clone(),
                round,
                &estimate,
            )
            .map_err(|e| error_to_js(&e, None))?;
            let finished = job.extractive(messages);
            digest = digest_json(&finished.digest, &finished.summary);
            summary_text = Some(finished.summary);
        }
        if summary_text.is_none() {
            let Some(summarize) = exec.callbacks.summarize.clone() else {
                // The same check as a `Compactor`'s constructor (a `Session` may live without a
                // summarizer until it has to write a summary).
                let error = exec
                    .options
                    .check_summarizer(false)
                    .err()
                    .unwrap_or_else(|| {
                        Error::invalid_option(
                            "summarize",
                            "a summarize function is required to compact with a summary",
                        )
                    });
                return Err(error_to_js(&error, None));
            };
            let templates = exec.options.settings.templates.clone();
            let estimate = |t: &str| exec.estimator.counter.count(t);
            let mut job = SummaryJob::new(
                messages,
                plan,
                &exec.options.settings,
                templates,
                None,
                call.instructions.clone(),
                round,
                &estimate,
            )
            .map_err(|e| error_to_js(&e, None))?;
            job.set_state(
                exec.state
                    .and_then(crate::core::session::workstream::render),
            );
            let continuing = Continuing::of(exec.options, all, exec.format, tokens_before);
            loop {
                let pieces = job.next();
                if pieces.is_empty() {
                    break;
                }
                if is_aborted(&call.signal) {
                    return Err(aborted(&reason(&call.signal)));
                }
                run_batch(
                    exec,
                    &summarize,
                    &mut job,
                    &pieces,
                    all,
                    continuing.as_ref(),
                    &call.signal,
                    &mut gathered,
                )
                .await?;
            }
            let finished = job.finish().map_err(|e| error_to_js(&e, None))?;
            digest = digest_json(&finished.digest, &finished.summary);
            summary_text = Some(finished.summary);
        }
    } else if is_aborted(&call.signal) {
        return Err(aborted(&reason(&call.signal)));
    }
    let rendered = render(
        messages,
        plan,
        summary_text.as_deref(),
        &exec.options.settings.summary,
        round,
        automatic,
    );
    let out_messages: Vec<_> = rendered.iter().map(|r| r.message.clone()).collect();
    let tokens_after = exec.estimator.total(&out_messages);
    check_progress(tokens_before, tokens_after).map_err(|e| error_to_js(&e, None))?;
    if let Some(hook) = &exec.callbacks.on_after {
        let event = to_js(
            &json!({"tokensBefore": tokens_before, "tokensAfter": tokens_after, "compactedTokens": tokens_before - tokens_after}),
        );
        gathered
            .warnings
            .extend(notify(exec, hook, &event, "onAfterCompaction").await);
    }
    Ok(Some(Executed {
        summary: summary_text,
        digest,
        rendered,
        tokens_after,
        state_deltas: gathered.deltas,
        warnings: gathered.warnings,
    }))
}

/// The digest as the result's `digest` field.
fn digest_json(d: &crate::core::summary::Digest, summary: &str) -> serde_json::Value {
    let r = crate::core::summary::retention::Retention::of(d, summary);
    let mut kinds = serde_json::Map::new();
    for k in &r.kinds {
        kinds.insert(
            k.kind.into(),
            json!({"total": k.total, "kept": k.total - k.missing.len(), "missing": k.missing}),
        );
    }
    json!({
        "filesRead": d.files_read, "filesModified": d.files_modified, "commands": d.commands,
        "errors": d.errors, "userRequests": d.user_requests, "pendingTasks": d.pending_tasks,
        "retention": {"total": r.total(), "kept": r.kept(), "recall": r.recall(), "kinds": kinds},
    })
}
