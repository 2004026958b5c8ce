//! The vocabulary between a compaction's step machine ([`super::Job`]) and the binding that runs
//! it: the [`Step`]s the machine asks for, the [`Event`]s the binding answers with, and the
//! [`Outcome`] a compaction ends with. Values of the caller's (an error thrown by a hook, a
//! summarizer's answer, a signal's abort reason) never reach the core: the binding keeps them and
//! names them by [`ValueId`], so an error the core raises can carry one as its cause. Also what a
//! job works on ([`Input`], owned: a job outlives the call that starts it) and the result's
//! `digest` field. A step serializes to the plain data the binding hands to JS
//! (`{ "step": "call", "call": 0, "delayMs": 0 }`; `tests::steps_json` pins every kind), with the
//! field the caller's value it names goes in ([`Step::value_field`]).

use serde::{Serialize, Serializer};
use serde_json::{json, Value};

use super::Kind;
use crate::core::error::Error;
use crate::core::estimate::Estimator;
use crate::core::message::Message;
use crate::core::options::Options;
use crate::core::plan::Plan;
use crate::core::render::Rendered;
use crate::core::summary::job::PieceRequest;
use crate::core::summary::Digest;

/// A value the binding keeps for the machine (a caller's error or answer, or an error the binding
/// built for a [`Step::Raise`]), named by the binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct ValueId(pub u32);

/// One summarizer call of a job, unique within the job.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct CallId(pub u32);

/// An error as `{ code, message }` (a step's error).
fn error_json<S: Serializer>(error: &Error, s: S) -> Result<S::Ok, S::Error> {
    json!({"code": error.code.as_str(), "message": error.message}).serialize(s)
}

/// What the machine asks the binding to do next. Each step is answered by exactly one [`Event`]:
/// the one named in its documentation, or [`Event::Ready`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(
    tag = "step",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Step {
    /// Make a caller-visible error of `error` (with `cause` as its cause) and keep it:
    /// [`Event::Raised`] names it.
    Raise {
        #[serde(serialize_with = "error_json")]
        error: Error,
        cause: Option<ValueId>,
    },
    /// Report the raised error `error` to `onError` (awaited for at most `timeoutMs`; its own
    /// failure is ignored). Without the hook, a `swallowed` error goes to the console.
    /// `failure`: the compaction failed (a notice otherwise). Answer: [`Event::Ready`].
    Report {
        error: ValueId,
        swallowed: bool,
        failure: bool,
    },
    /// Call `onBeforeCompaction({ tokensBefore, messages })` for at most `timeoutMs`:
    /// [`Event::Before`] (without the hook: [`BeforeAnswer::Proceed`]).
    Before { tokens_before: usize },
    /// Whether the caller's signal has aborted: [`Event::Signal`].
    CheckSignal,
    /// Start summarizer call `call` with `request` after `delay_ms`, under the job's signal
    /// (the caller's, aborted by [`Step::AbortCalls`]); do not wait for it. Answer:
    /// [`Event::Ready`].
    Call {
        call: CallId,
        /// Built into the request object by the binding (it holds the caller's messages).
        #[serde(skip)]
        request: Box<PieceRequest>,
        delay_ms: u64,
    },
    /// Wait until one started call ends: [`Event::Call`].
    Await,
    /// Abort the calls still running (their ends are not wanted), with the raised error as the
    /// reason. Answer: [`Event::Ready`].
    AbortCalls { reason: ValueId },
    /// Call `onProgress({ done, total })`: [`Event::Hook`].
    Progress { done: usize, total: usize },
    /// Call `onAfterCompaction({ tokensBefore, tokensAfter, compactedTokens })`: [`Event::Hook`].
    After {
        tokens_before: usize,
        tokens_after: usize,
    },
    /// Make the compaction the handle's (the Compactor's result, the Session's log entry):
    /// [`Event::Committed`].
    Commit(Box<Compacted>),
    /// The compaction is over.
    Done(Outcome),
}

impl Step {
    /// The caller's value (kept by the binding) that the step hands to JS, and the field of the
    /// step's plain data it goes in: a report's `errorValue`, `abortCalls`'s `reasonValue`, the
    /// `error` a rejected compaction ends with.
    pub fn value_field(&self) -> Option<(&'static str, ValueId)> {
        match self {
            Step::Report { error, .. } => Some(("errorValue", *error)),
            Step::AbortCalls { reason } => Some(("reasonValue", *reason)),
            Step::Done(Outcome::Rejected(id)) => Some(("error", *id)),
            _ => None,
        }
    }
}

/// What the binding answers a [`Step`] with.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// The step is carried out (and the first event of a job).
    Ready,
    /// The error of a [`Step::Raise`].
    Raised(ValueId),
    /// What `onBeforeCompaction` came to.
    Before(BeforeAnswer),
    /// The caller's signal: `Some(reason)` when it has aborted.
    Signal(Option<ValueId>),
    /// A call ended.
    Call { call: CallId, end: CallEnd },
    /// An observing hook (`onProgress`, `onAfterCompaction`) came to this.
    Hook(HookEnd),
    /// The commit: `Err(error)` when the handle could not make it its own.
    Committed(Result<(), ValueId>),
}

/// What `onBeforeCompaction` came to.
#[derive(Clone, Debug, PartialEq)]
pub enum BeforeAnswer {
    /// No hook, or it returned nothing that decides: compact.
    Proceed,
    /// It returned `false` or `{ cancel: true }`.
    Cancel,
    /// It returned `{ summary }`: `Some(text)` when a string, `None` otherwise.
    Summary(Option<String>),
    /// It threw (this value).
    Threw(ValueId),
    /// Its promise rejected (with this value).
    Rejected(ValueId),
    /// It did not settle within `timeoutMs`.
    TimedOut,
    /// It returned `{ summary }` with a string of this many UTF-16 units, past what a summary
    /// may hold ([`crate::core::summary::answer::MAX_ANSWER_UNITS`]): not read.
    TooLong(usize),
}

/// How one summarizer call ended.
#[derive(Clone, Debug, PartialEq)]
pub enum CallEnd {
    /// It answered: `text` is the answer's summary (a string, or `{ summary: string }`), `None`
    /// when it is neither; `state` the workstream state of a `{ summary, state }` answer;
    /// `value` the answer itself.
    Answer {
        text: Option<String>,
        state: StateField,
        value: ValueId,
    },
    /// It threw or its promise rejected (with this value).
    Threw(ValueId),
    /// No answer within `timeoutMs`.
    TimedOut,
    /// The caller's signal aborted (with this reason).
    Aborted(ValueId),
    /// It answered a text of this many UTF-16 units, past what a summary may hold
    /// ([`crate::core::summary::answer::MAX_ANSWER_UNITS`]): not read, and not asked again.
    TooLong(usize),
}

/// The `state` field of a `{ summary, state }` answer, as far as the binding could read it.
#[derive(Clone, Debug, PartialEq)]
pub enum StateField {
    /// No state (or not an object answer).
    Absent,
    /// Plain data, still to be validated as a delta.
    Given(Value),
    /// Not plain data (too deep, too large, not serializable): this message, this cause.
    Unreadable {
        message: String,
        cause: Option<ValueId>,
    },
}

/// How an observing hook ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HookEnd {
    /// It returned, or its promise resolved (or there is no hook).
    Settled,
    /// It threw or its promise rejected; the error's message (or a description).
    Failed(String),
    /// Its promise did not settle within `timeoutMs`.
    TimedOut,
}

/// A compaction ready to commit.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Compacted {
    /// The calibrated count of the context before.
    pub tokens_before: usize,
    /// The round of the summary.
    pub round: u32,
    /// The kept tail starts inside a turn.
    pub split_turn: bool,
    /// The messages the compaction takes out (summarized or dropped), by index.
    pub removed: Vec<usize>,
    /// The summary (`None` when the plan only drops).
    pub summary: Option<String>,
    /// The result's `digest` (null without a summary).
    pub digest: Value,
    /// The compacted context.
    #[serde(skip)]
    pub rendered: Vec<Rendered>,
    /// Its estimated tokens.
    pub tokens_after: usize,
    /// The workstream state after the summarizer's deltas (the job's input state when there are
    /// none; `None` without either).
    pub state: Option<Value>,
    /// The result's warnings: observing hooks that failed without deciding anything, in order;
    /// the style's repeat warning from round 2 on (when [`Input::warn_repeat`]); last, when the
    /// summarizer failed and the extractive summary stands in, that warning.
    pub warnings: Vec<String>,
}

impl Compacted {
    /// The fields of the call's result that both handles return (not `messages`, `removed`).
    pub fn result(&self) -> Value {
        json!({
            "compacted": true,
            "summary": self.summary,
            "tokensBefore": self.tokens_before,
            "tokensAfter": self.tokens_after,
            "round": self.round,
            "splitTurn": self.split_turn,
            "digest": self.digest,
            "warnings": self.warnings,
        })
    }
}

/// How a compaction ended.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "outcome", content = "value", rename_all = "camelCase")]
pub enum Outcome {
    /// Committed (the handle holds the result of its commit).
    Committed,
    /// Nothing changed, with this warning.
    Unchanged(String),
    /// Reject with this raised error.
    Rejected(ValueId),
    /// The answer of a single request ([`super::Once`]): its text.
    Answered(String),
}

/// What a job works on (owned: the job lives as long as its compaction, across calls into JS).
pub struct Input {
    /// What started it.
    pub kind: Kind,
    /// The trigger's decision on the calibrated count.
    pub should_compact: bool,
    /// The calibrated count of the context.
    pub tokens_before: usize,
    /// The history, and the plan over it.
    pub messages: Vec<Message>,
    pub plan: Plan,
    pub options: Options,
    /// Counts the compacted context (its counter counts the summary's texts).
    pub estimator: Estimator,
    /// The round of the new summary.
    pub round: u32,
    /// The caller's instructions for this call.
    pub instructions: Option<String>,
    /// The workstream state so far (a session's), shown to the summarizer.
    pub state: Option<Value>,
    /// The caller gave a summarize function.
    pub summarizer: bool,
    /// The rendered context ends with the style's continue message.
    pub continues: bool,
    /// The result warns from round 2 on with the style's repeat warning (the `Compactor`'s; a
    /// `Session` does not).
    pub warn_repeat: bool,
}

/// The digest as the result's `digest` field.
pub fn digest_json(d: &Digest, summary: &str) -> Value {
    let r = crate::core::summary::retention::Retention::of(d, summary);
    json!({
        "filesRead": d.files_read, "filesModified": d.files_modified, "commands": d.commands,
        "errors": d.errors, "userRequests": d.user_requests, "pendingTasks": d.pending_tasks,
        "retention": crate::core::report::retention(&r),
    })
}
