//! The one runner of a compaction's steps, shared by the `Compactor` and the `Session`: it takes
//! the core's step machine ([`crate::core::pipeline::Job`]) and carries out each step (calls the
//! caller's summarizer and hooks, awaited for at most `timeoutMs` with [`super::call`], keeps the
//! caller's values for the core to name) and feeds back what happened; it decides nothing. The
//! handle's pipeline is borrowed only while the machine takes one event, never across an
//! `.await`, and every call into the caller's code is counted by the re-entry guard. Also
//! [`summarize_once`], one request outside a compaction (a memory block's), retried as the core's
//! [`Asking`] says.

use std::cell::RefMut;
use std::future::Future;
use std::pin::Pin;
use std::task::Poll;

use js_sys::{Array, Function, Object};
use serde_json::json;
use wasm_bindgen::prelude::*;

use super::call::{call_once, is_aborted, pause, reason, settle, Batch, CallError, CallOptions};
use super::call::{Reentry, Settled};
use super::continuing::{set_mode, Continuing};
use super::convert::{get, set, to_js};
use super::error::to_js as error_to_js;
use super::options::Callbacks;
use crate::core::error::{Error, ErrorCode};
use crate::core::estimate::Estimator;
use crate::core::options::Options;
use crate::core::pipeline::asking::retry_policy;
use crate::core::pipeline::{
    Asked, Asking, BeforeAnswer, CallEnd, CallId, Compacted, Event, HookEnd, Job, Outcome,
    Pipeline, StateField, Step, ValueId,
};
use crate::core::summary::answer::MAX_ANSWER_UNITS;
use crate::core::summary::job::PieceRequest;
use crate::formats::Format;

/// The handle a job runs for.
pub trait Host {
    /// The handle's pipeline (borrowed while the job takes one event).
    fn pipeline(&self) -> RefMut<'_, Pipeline>;
    /// Makes the compaction the handle's: the call's result, or the error to reject with.
    fn commit(&self, compacted: Compacted) -> Result<JsValue, JsValue>;
    /// A failure of the compaction is about to be reported.
    fn failed(&self, _error: &JsValue) {}
}

/// What the steps of one compaction need besides the job.
pub struct Context<'a> {
    pub options: &'a Options,
    pub callbacks: &'a Callbacks,
    pub reentry: &'a Reentry,
    pub estimator: &'a Estimator,
    /// The caller's objects, index-aligned with the job's messages.
    pub all: &'a Array,
    /// Their format (a continuing request's conversation is in it).
    pub format: Format,
    /// The instructions and signal of the call.
    pub call: &'a CallOptions,
    /// The workstream state so far, shown to the summarizer as `request.state`.
    pub state: Option<&'a serde_json::Value>,
    /// The conversation as the model last saw it, when that is not `all` (a `Session`'s
    /// rendered context: pruned parts replaced, cache markers placed).
    pub conversation: Option<&'a Array>,
    /// The tokens of the context (a continuing request's conversation has them).
    pub tokens_before: usize,
}

/// How a run ended, when it did not reject.
pub enum Ran {
    /// The commit's result.
    Committed(JsValue),
    /// Nothing changed, with this warning.
    Unchanged(String),
}

/// The caller's values the job names.
#[derive(Default)]
struct Values(Vec<JsValue>);

impl Values {
    fn keep(&mut self, value: JsValue) -> ValueId {
        self.0.push(value);
        ValueId(u32::try_from(self.0.len() - 1).unwrap_or(u32::MAX))
    }

    fn get(&self, id: ValueId) -> JsValue {
        self.0
            .get(id.0 as usize)
            .cloned()
            .unwrap_or(JsValue::UNDEFINED)
    }
}

type Pending = Pin<Box<dyn Future<Output = Result<JsValue, CallError>>>>;

/// Runs `job` to its end for `host`.
pub async fn run(mut job: Job<'_>, host: &impl Host, cx: &Context<'_>) -> Result<Ran, JsValue> {
    let mut values = Values::default();
    let batch = Batch::new(&cx.call.signal);
    let mut calls: Vec<(CallId, Pending)> = Vec::new();
    let mut continuing: Option<Option<Continuing>> = None;
    let mut result = JsValue::UNDEFINED;
    let mut event = Event::Ready;
    let outcome = loop {
        let step = job.next(&mut host.pipeline(), event);
        event = match step {
            Step::Raise { error, cause } => {
                let cause = cause.map(|c| values.get(c));
                Event::Raised(values.keep(error_to_js(&error, cause.as_ref())))
            }
            Step::Report {
                error,
                swallowed,
                failure,
            } => {
                let error = values.get(error);
                if failure {
                    host.failed(&error);
                }
                report(
                    cx.callbacks,
                    cx.reentry,
                    cx.options.timeout_ms,
                    &error,
                    swallowed,
                )
                .await;
                Event::Ready
            }
            Step::Before { tokens_before } => {
                Event::Before(before(cx, tokens_before, &mut values).await)
            }
            Step::CheckSignal => Event::Signal(
                is_aborted(&cx.call.signal).then(|| values.keep(reason(&cx.call.signal))),
            ),
            Step::Call {
                call,
                request,
                delay_ms,
            } => {
                // The job asks only when the caller gave a summarizer.
                let Some(summarize) = cx.callbacks.summarize.clone() else {
                    let error =
                        Error::invalid_option("summarize", "a summarize function is required");
                    return Err(error_to_js(&error, None));
                };
                let continuing = continuing.get_or_insert_with(|| {
                    Continuing::of(
                        cx.options,
                        cx.conversation.unwrap_or(cx.all),
                        cx.format,
                        cx.tokens_before,
                    )
                });
                let request = request_object(cx, &request, continuing.as_ref());
                let pending = attempt(
                    summarize,
                    request,
                    cx.options.timeout_ms,
                    batch.signal(),
                    cx.reentry.clone(),
                    delay_ms,
                );
                calls.push((call, Box::pin(pending)));
                Event::Ready
            }
            Step::Await => match first_end(&mut calls).await {
                Some((call, end)) => Event::Call {
                    call,
                    end: call_end(end, &mut values),
                },
                None => {
                    let error = Error::new(ErrorCode::InvalidInput, "no summarizer call runs");
                    return Err(error_to_js(&error, None));
                }
            },
            Step::AbortCalls { reason } => {
                batch.abort(&values.get(reason));
                Event::Ready
            }
            Step::Progress { done, total } => {
                let event = to_js(&json!({"done": done, "total": total}));
                Event::Hook(observe(cx, cx.callbacks.on_progress.as_ref(), &event).await)
            }
            Step::After {
                tokens_before,
                tokens_after,
            } => {
                let event = to_js(&json!({
                    "tokensBefore": tokens_before, "tokensAfter": tokens_after,
                    "compactedTokens": tokens_before.saturating_sub(tokens_after),
                }));
                Event::Hook(observe(cx, cx.callbacks.on_after.as_ref(), &event).await)
            }
            Step::Commit(compacted) => match host.commit(*compacted) {
                Ok(value) => {
                    result = value;
                    Event::Committed(Ok(()))
                }
                Err(error) => Event::Committed(Err(values.keep(error))),
            },
            Step::Done(outcome) => break outcome,
        };
    };
    // Calls the job gave up on (aborted) end by themselves, clearing their timers and listeners.
    for (_, pending) in calls {
        wasm_bindgen_futures::spawn_local(async move {
            let _ = pending.await;
        });
    }
    batch.close();
    match outcome {
        Outcome::Committed => Ok(Ran::Committed(result)),
        Outcome::Unchanged(warning) => Ok(Ran::Unchanged(warning)),
        Outcome::Rejected(error) => Err(values.get(error)),
    }
}

/// The first of `calls` to end, taken out of them (`None` when none runs).
async fn first_end(
    calls: &mut Vec<(CallId, Pending)>,
) -> Option<(CallId, Result<JsValue, CallError>)> {
    if calls.is_empty() {
        return None;
    }
    let (k, end) = std::future::poll_fn(|cx| {
        for (k, (_, pending)) in calls.iter_mut().enumerate() {
            if let Poll::Ready(end) = pending.as_mut().poll(cx) {
                return Poll::Ready((k, end));
            }
        }
        Poll::Pending
    })
    .await;
    let (call, _) = calls.remove(k);
    Some((call, end))
}

/// One call after `delay_ms` (an abort during the wait ends it).
async fn attempt(
    summarize: Function,
    request: Object,
    timeout_ms: u64,
    signal: JsValue,
    reentry: Reentry,
    delay_ms: u64,
) -> Result<JsValue, CallError> {
    if delay_ms > 0 {
        pause(delay_ms, &signal).await.map_err(CallError::Aborted)?;
    }
    call_once(&summarize, &request, timeout_ms, &signal, &reentry).await
}

fn call_end(end: Result<JsValue, CallError>, values: &mut Values) -> CallEnd {
    match end {
        Ok(answer) if text_units(&answer) > MAX_ANSWER_UNITS => {
            CallEnd::TooLong(text_units(&answer))
        }
        Ok(answer) => CallEnd::Answer {
            text: answer_text(&answer),
            state: state_field(&answer, values),
            value: values.keep(answer),
        },
        Err(CallError::Aborted(why)) => CallEnd::Aborted(values.keep(why)),
        Err(CallError::Timeout) => CallEnd::TimedOut,
        Err(CallError::Failed(value)) => CallEnd::Threw(values.keep(value)),
    }
}

/// The UTF-16 length of an answer's text (a string, or `{ summary: string }`), read without
/// copying it into the module; 0 when it is neither.
fn text_units(answer: &JsValue) -> usize {
    let text = if answer.is_object() {
        get(answer, "summary")
    } else {
        answer.clone()
    };
    text.dyn_ref::<js_sys::JsString>()
        .map_or(0, |s| s.length() as usize)
}

/// The summary text of an answer: a string, or `{ summary: string }`.
fn answer_text(answer: &JsValue) -> Option<String> {
    answer
        .as_string()
        .or_else(|| get(answer, "summary").as_string())
}

/// The `state` of an answer `{ summary, state }`, as plain data.
fn state_field(answer: &JsValue, values: &mut Values) -> StateField {
    let state = get(answer, "state");
    if state.is_undefined() || state.is_null() {
        return StateField::Absent;
    }
    let checked = match super::plain::check_shape(&state, "state", super::plain::Kind::Stored) {
        Ok(checked) => checked,
        Err(e) => {
            return StateField::Unreadable {
                message: "the summarizer's state is nested too deeply or too large".into(),
                cause: Some(values.keep(e)),
            }
        }
    };
    match serde_wasm_bindgen::from_value(checked.value) {
        Ok(value) => StateField::Given(value),
        Err(e) => StateField::Unreadable {
            message: format!("the summarizer's state is not plain data: {e}"),
            cause: None,
        },
    }
}

fn request_object(
    cx: &Context<'_>,
    piece: &PieceRequest,
    continuing: Option<&Continuing>,
) -> Object {
    let obj = Object::new();
    if let Some(state) = cx.state {
        set(&obj, "state", &to_js(state));
    }
    set(&obj, "purpose", &JsValue::from_str(piece.purpose.as_str()));
    set(&obj, "system", &JsValue::from_str(&piece.system));
    set(&obj, "prompt", &JsValue::from_str(&piece.prompt));
    set(&obj, "transcript", &JsValue::from_str(&piece.transcript));
    let messages: Array = piece
        .message_indices
        .iter()
        .map(|&i| cx.all.get(u32::try_from(i).unwrap_or(u32::MAX)))
        .collect();
    set(&obj, "messages", &messages);
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
    let count = |t: &str| cx.estimator.counter.count(t);
    set_mode(&obj, piece, cx.options, continuing, &count);
    obj
}

/// What `onBeforeCompaction({ tokensBefore, messages })` came to.
async fn before(cx: &Context<'_>, tokens_before: usize, values: &mut Values) -> BeforeAnswer {
    let Some(hook) = &cx.callbacks.on_before else {
        return BeforeAnswer::Proceed;
    };
    let event = to_js(&json!({"tokensBefore": tokens_before}));
    set(event.unchecked_ref(), "messages", cx.all);
    let value = match cx.reentry.call1(hook, &event) {
        Ok(value) => value,
        Err(e) => return BeforeAnswer::Threw(values.keep(e)),
    };
    let value = match settle(value, cx.options.timeout_ms).await {
        Settled::Value(v) => v,
        Settled::Failed(e) => return BeforeAnswer::Rejected(values.keep(e)),
        Settled::TimedOut => return BeforeAnswer::TimedOut,
    };
    if value == JsValue::FALSE || get(&value, "cancel") == JsValue::TRUE {
        return BeforeAnswer::Cancel;
    }
    let summary = get(&value, "summary");
    if summary.is_undefined() {
        return BeforeAnswer::Proceed;
    }
    match text_units(&summary) {
        units if units > MAX_ANSWER_UNITS => BeforeAnswer::TooLong(units),
        _ => BeforeAnswer::Summary(summary.as_string()),
    }
}

/// Calls a hook that only observes (`onProgress`, `onAfterCompaction`) and awaits what it
/// returns for at most `timeoutMs`.
async fn observe(cx: &Context<'_>, hook: Option<&Function>, event: &JsValue) -> HookEnd {
    let Some(hook) = hook else {
        return HookEnd::Settled;
    };
    let detail = |e: &JsValue| {
        e.dyn_ref::<js_sys::Error>()
            .map(|e| String::from(e.message()))
            .or_else(|| e.as_string())
            .unwrap_or_else(|| "a non-Error value".to_string())
    };
    match cx.reentry.call1(hook, event) {
        Err(e) => HookEnd::Failed(detail(&e)),
        Ok(value) => match settle(value, cx.options.timeout_ms).await {
            Settled::Failed(e) => HookEnd::Failed(detail(&e)),
            Settled::TimedOut => HookEnd::TimedOut,
            Settled::Value(_) => HookEnd::Settled,
        },
    }
}

/// The code of a `CompactionError` (`SUMMARIZER_FAILED` for anything else).
fn code_of(error: &JsValue) -> ErrorCode {
    get(error, "code")
        .as_string()
        .and_then(|c| ErrorCode::parse(&c))
        .unwrap_or(ErrorCode::SummarizerFailed)
}

/// Reports an error to `onError` (awaited for at most `timeoutMs`; its own errors are ignored).
/// Without the hook, a `swallowed` error is written to `console.warn`, so it is never silent.
async fn report(
    callbacks: &Callbacks,
    reentry: &Reentry,
    timeout_ms: u64,
    error: &JsValue,
    swallowed: bool,
) {
    match &callbacks.on_error {
        Some(hook) => {
            if let Ok(value) = reentry.call1(hook, error) {
                let _ = settle(value, timeout_ms).await;
            }
        }
        None if swallowed => {
            let text = format!(
                "context-compaction: automatic compaction failed ({}): {}",
                code_of(error).as_str(),
                get(error, "message").as_string().unwrap_or_default()
            );
            console_warn(&text);
        }
        None => {}
    }
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = warn)]
    fn console_warn(text: &str);
}

/// One summarizer call outside a compaction (a memory block's), with the timeout, retries and
/// abort of the options; the answer must be non-empty text.
#[allow(clippy::too_many_arguments)]
pub async fn summarize_once(
    options: &Options,
    callbacks: &Callbacks,
    reentry: &Reentry,
    purpose: &str,
    system: &str,
    prompt: &str,
    max_tokens: usize,
    signal: &JsValue,
) -> Result<String, JsValue> {
    let Some(summarize) = callbacks.summarize.clone() else {
        let error = Error::invalid_option("summarize", "a summarize function is required");
        return Err(error_to_js(&error, None));
    };
    let request = Object::new();
    set(&request, "purpose", &JsValue::from_str(purpose));
    set(&request, "system", &JsValue::from_str(system));
    set(&request, "prompt", &JsValue::from_str(prompt));
    set(&request, "transcript", &JsValue::from_str(prompt));
    set(&request, "messages", &Array::new());
    set(&request, "maxTokens", &JsValue::from_f64(max_tokens as f64));
    set(&request, "round", &JsValue::from_f64(1.0));
    set(&request, "mode", &JsValue::from_str("transcript"));
    let mut asking = Asking::new(retry_policy(options));
    let mut values = Values::default();
    let mut delay_ms = 0;
    loop {
        let end = attempt(
            summarize.clone(),
            request.clone(),
            options.timeout_ms,
            signal.clone(),
            reentry.clone(),
            delay_ms,
        )
        .await;
        match asking.ended(call_end(end, &mut values)) {
            Asked::Answer(text, _) if !text.trim().is_empty() => return Ok(text),
            Asked::Answer(..) => {
                let error = Error::new(
                    ErrorCode::SummaryEmpty,
                    "the summarizer returned an empty summary",
                );
                return Err(error_to_js(&error, None));
            }
            Asked::Again(delay) => delay_ms = delay,
            Asked::Failed(error, cause) => {
                let cause = cause.map(|c| values.get(c));
                return Err(error_to_js(&error, cause.as_ref()));
            }
        }
    }
}
