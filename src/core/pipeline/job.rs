//! One compaction as a sans-IO step machine, the same for the `Compactor` and the `Session`:
//! [`Job::next`] takes the answer to the previous [`Step`] and hands out the next one, until
//! [`Step::Done`]. The binding only runs the steps (calls the caller's code, waits, keeps the
//! caller's values); every decision is here, in this order:
//!
//! 1. The start ([`Pipeline::start`]): below the trigger, or with the breaker open and no
//!    fallback, nothing changes; a breaker notice is reported first. A plan with nothing to do
//!    changes nothing.
//! 2. When the plan summarizes: `onBeforeCompaction` (which may cancel, or supply the summary),
//!    then the extractive summary (`summarize: "extractive"`, or the fallback) or the summary
//!    job's pieces ([`crate::core::summary::job`]): the pieces handed out together run in
//!    parallel, each retried with backoff ([`Asking`]), its answer validated and asked for again
//!    when rejected (a rollup that never condenses is skipped); `onProgress` after each accepted
//!    piece; the caller's signal is checked before each batch. The first piece that fails aborts
//!    its siblings.
//! 3. The render, the no-progress check, `onAfterCompaction`, then the commit; a committed
//!    compaction closes the breaker when the summarizer wrote it ([`Pipeline::succeeded`]).
//! 4. Any failure in 2–3 is raised, counted by the breaker, reported, and ends as `onFailure`
//!    says ([`Pipeline::failed`]): reject, unchanged, or the whole of 2–3 again with the
//!    extractive summary (whose own failure rejects unreported).

use std::collections::VecDeque;

use serde_json::Value;

use crate::core::driver::{check_progress, Resubmits, RetryPolicy};
use crate::core::error::{Error, ErrorCode};
use crate::core::message::Message;
use crate::core::plan::Disposition;
use crate::core::render::render;
use crate::core::session::workstream;
use crate::core::summary::is_blank;
use crate::core::summary::job::{Finished, PieceId, PieceRequest, Purpose, SummaryJob};

use super::asking::{aborted, retry_policy, Asked, Asking};
use super::steps::{
    digest_json, BeforeAnswer, CallEnd, CallId, Compacted, Event, HookEnd, Input, Outcome,
    StateField, Step, ValueId,
};
use super::{Failed, Pipeline, Start, CANCELLED, NOTHING_TO_COMPACT};

/// What a raised error is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Raised {
    /// The breaker's notice at the start.
    Notice,
    /// A failure of the compaction (`abort`: its calls still running are aborted).
    Failure { code: ErrorCode, abort: bool },
    /// A failure that rejects unreported (the fallback's own, a commit's).
    Final,
}

/// What the job waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Waiting {
    Start,
    Raised(Raised),
    Before,
    /// The signal, before a batch (`true`) or before rendering a plan that only drops.
    Signal(bool),
    Call,
    Progress,
    After,
    Commit,
    Over,
}

/// One piece of the running batch.
struct Piece {
    request: PieceRequest,
    call: Option<CallId>,
    asking: Asking,
    resubmits: Resubmits,
}

/// One compaction's step machine (see the module documentation).
pub struct Job<'a> {
    input: Input<'a>,
    policy: RetryPolicy,
    waiting: Waiting,
    queue: VecDeque<Step>,
    extractive: bool,
    fell_back: bool,
    fallback: Option<String>,
    summary_job: Option<SummaryJob<'a>>,
    pieces: Vec<Piece>,
    calls: u32,
    summary: Option<String>,
    digest: Value,
    deltas: Vec<Value>,
    warnings: Vec<String>,
    compacted: Option<Compacted>,
    /// The message of the error being raised (for the breaker's count).
    raising: String,
    /// How the job ended.
    over: Option<Outcome>,
}

impl<'a> Job<'a> {
    /// A job on `input`; its first step comes from `next(pipeline, Event::Ready)`.
    pub fn new(input: Input<'a>) -> Job<'a> {
        Job {
            policy: retry_policy(input.options),
            input,
            waiting: Waiting::Start,
            queue: VecDeque::new(),
            extractive: false,
            fell_back: false,
            fallback: None,
            summary_job: None,
            pieces: Vec::new(),
            calls: 0,
            summary: None,
            digest: Value::Null,
            deltas: Vec::new(),
            warnings: Vec::new(),
            compacted: None,
            raising: String::new(),
            over: None,
        }
    }

    /// Takes the answer to the previous step (`Event::Ready` first) and hands out the next step.
    /// `pipeline` is the handle's, borrowed only for this call. An event the job does not wait
    /// for (a call it no longer wants) is ignored; after [`Step::Done`] it hands out `Done` again.
    pub fn next(&mut self, pipeline: &mut Pipeline, event: Event) -> Step {
        if let Some(step) = self.queue.pop_front() {
            // Fire-and-forget steps queued before a waiting one are answered `Ready`.
            return step;
        }
        let step = self.take(pipeline, event);
        match self.queue.pop_front() {
            Some(first) => {
                self.queue.push_back(step);
                first
            }
            None => step,
        }
    }

    fn wait(&mut self, waiting: Waiting, step: Step) -> Step {
        self.waiting = waiting;
        step
    }

    fn done(&mut self, outcome: Outcome) -> Step {
        self.waiting = Waiting::Over;
        self.over = Some(outcome.clone());
        Step::Done(outcome)
    }

    fn take(&mut self, pipeline: &mut Pipeline, event: Event) -> Step {
        match (self.waiting, event) {
            (Waiting::Start, _) => self.start(pipeline),
            (Waiting::Raised(why), Event::Raised(id)) => self.raised(pipeline, why, id),
            (Waiting::Before, Event::Before(answer)) => self.before(answer),
            (Waiting::Signal(_), Event::Signal(Some(why))) => self.fail(aborted(), Some(why)),
            (Waiting::Signal(true), Event::Signal(None)) => self.start_batch(),
            (Waiting::Signal(false), Event::Signal(None)) => self.render(),
            (Waiting::Call, Event::Call { call, end }) => self.call_ended(call, end),
            (Waiting::Progress, Event::Hook(end)) => {
                self.observed(end, "onProgress");
                self.after_piece()
            }
            (Waiting::After, Event::Hook(end)) => {
                self.observed(end, "onAfterCompaction");
                match self.compacted.take() {
                    Some(mut c) => {
                        c.warnings = std::mem::take(&mut self.warnings);
                        let repeat = &self.input.options.settings.repeat_warning;
                        if let (true, true, Some(text)) =
                            (self.input.warn_repeat, self.input.round > 1, repeat)
                        {
                            c.warnings.push(text.clone());
                        }
                        c.warnings.extend(self.fallback.take());
                        self.wait(Waiting::Commit, Step::Commit(Box::new(c)))
                    }
                    None => self.done(Outcome::Unchanged(NOTHING_TO_COMPACT.into())),
                }
            }
            (Waiting::Commit, Event::Committed(Ok(()))) => {
                pipeline.succeeded(!self.extractive);
                self.done(Outcome::Committed)
            }
            (Waiting::Commit, Event::Committed(Err(error))) => self.done(Outcome::Rejected(error)),
            (Waiting::Over, _) => Step::Done(self.over.clone().unwrap_or(Outcome::Committed)),
            // Not what the job waits for (the end of a call it gave up): wait on.
            (Waiting::Call, _) => Step::Await,
            (waiting, event) => {
                let error = Error::new(
                    ErrorCode::InvalidInput,
                    format!("the compaction job got {event:?} while waiting for {waiting:?}"),
                );
                self.raise(error, None, Raised::Final)
            }
        }
    }

    fn raise(&mut self, error: Error, cause: Option<ValueId>, why: Raised) -> Step {
        self.raising = error.message.clone();
        self.wait(Waiting::Raised(why), Step::Raise { error, cause })
    }

    /// A failure of the compaction: raised, then the policy's (after a fallback: rejected).
    fn fail_with(&mut self, error: Error, cause: Option<ValueId>, abort: bool) -> Step {
        let why = if self.fell_back {
            Raised::Final
        } else {
            Raised::Failure {
                code: error.code,
                abort,
            }
        };
        self.raise(error, cause, why)
    }

    fn fail(&mut self, error: Error, cause: Option<ValueId>) -> Step {
        self.fail_with(error, cause, false)
    }

    fn start(&mut self, pipeline: &mut Pipeline) -> Step {
        let i = &self.input;
        match pipeline.start(i.kind, i.should_compact, i.tokens_before) {
            Start::Skip(warning) => self.done(Outcome::Unchanged(warning.into())),
            Start::Compact { extractive, notice } => {
                self.extractive = extractive;
                match notice {
                    Some(notice) => self.raise(notice, None, Raised::Notice),
                    None => self.begin(),
                }
            }
        }
    }

    fn begin(&mut self) -> Step {
        if self.input.plan.is_noop() {
            return self.done(Outcome::Unchanged(NOTHING_TO_COMPACT.into()));
        }
        self.attempt()
    }

    fn raised(&mut self, pipeline: &mut Pipeline, why: Raised, id: ValueId) -> Step {
        match why {
            Raised::Notice => {
                self.queue.push_back(Step::Report {
                    error: id,
                    swallowed: true,
                    failure: false,
                });
                self.begin()
            }
            Raised::Final => self.done(Outcome::Rejected(id)),
            Raised::Failure { code, abort } => {
                if abort {
                    self.queue.push_back(Step::AbortCalls { reason: id });
                }
                let i = &self.input;
                let failed = pipeline.failed(i.kind, code, &self.raising, i.tokens_before);
                self.queue.push_back(Step::Report {
                    error: id,
                    swallowed: failed.swallowed(),
                    failure: true,
                });
                match failed {
                    Failed::Reject => self.done(Outcome::Rejected(id)),
                    Failed::Unchanged(text) => self.done(Outcome::Unchanged(text)),
                    Failed::Extractive(text) => {
                        self.fallback = Some(text);
                        self.fell_back = true;
                        self.extractive = true;
                        self.attempt()
                    }
                }
            }
        }
    }

    /// Steps 2–3 (again after a fallback).
    fn attempt(&mut self) -> Step {
        self.summary_job = None;
        self.pieces.clear();
        self.summary = None;
        self.digest = Value::Null;
        self.deltas.clear();
        self.warnings.clear();
        let summarizes = self
            .input
            .plan
            .dispositions
            .iter()
            .any(|d| matches!(d, Disposition::Summarize | Disposition::TurnPrefix));
        if summarizes {
            let tokens_before = self.input.tokens_before;
            self.wait(Waiting::Before, Step::Before { tokens_before })
        } else {
            self.wait(Waiting::Signal(false), Step::CheckSignal)
        }
    }

    fn before(&mut self, answer: BeforeAnswer) -> Step {
        let hook = |code, message: &str| Error::new(code, message.to_string());
        match answer {
            BeforeAnswer::Proceed => self.summarize(),
            BeforeAnswer::Cancel => self.done(Outcome::Unchanged(CANCELLED.into())),
            BeforeAnswer::Summary(None) => self.fail(
                hook(
                    ErrorCode::HookFailed,
                    "onBeforeCompaction's summary must be a string",
                ),
                None,
            ),
            BeforeAnswer::Summary(Some(text)) if is_blank(&text) => self.fail(
                hook(
                    ErrorCode::SummaryEmpty,
                    "onBeforeCompaction supplied an empty summary",
                ),
                None,
            ),
            BeforeAnswer::Summary(Some(text)) => {
                self.summary = Some(text);
                self.render()
            }
            BeforeAnswer::TooLong(units) => self.fail(
                super::asking::too_long(units, "onBeforeCompaction's summary"),
                None,
            ),
            BeforeAnswer::Threw(e) => self.fail(
                hook(
                    ErrorCode::HookFailed,
                    "onBeforeCompaction threw; the compaction did not run",
                ),
                Some(e),
            ),
            BeforeAnswer::Rejected(e) => self.fail(
                hook(
                    ErrorCode::HookFailed,
                    "onBeforeCompaction rejected; the compaction did not run",
                ),
                Some(e),
            ),
            BeforeAnswer::TimedOut => {
                let ms = self.input.options.timeout_ms;
                self.fail(
                    Error::new(
                        ErrorCode::Timeout,
                        format!(
                            "onBeforeCompaction did not settle within {ms} ms; the compaction \
                             did not run"
                        ),
                    ),
                    None,
                )
            }
        }
    }

    fn summary_job(&self) -> crate::core::error::Result<SummaryJob<'a>> {
        let i = &self.input;
        SummaryJob::new(
            i.messages,
            i.plan,
            &i.options.settings,
            i.options.settings.templates.clone(),
            None,
            i.instructions.clone(),
            i.round,
            i.estimate,
        )
    }

    fn summarize(&mut self) -> Step {
        if self.extractive {
            return match self.summary_job() {
                Ok(job) => {
                    let finished = job.extractive(self.input.messages);
                    self.finished(&finished);
                    self.render()
                }
                Err(e) => self.fail(e, None),
            };
        }
        if !self.input.summarizer {
            // The same check as a `Compactor`'s constructor (a `Session` may live without a
            // summarizer until it has to write a summary).
            let error = self
                .input
                .options
                .check_summarizer(false)
                .err()
                .unwrap_or_else(|| {
                    Error::invalid_option(
                        "summarize",
                        "a summarize function is required to compact with a summary",
                    )
                });
            return self.fail(error, None);
        }
        match self.summary_job() {
            Ok(mut job) => {
                job.set_state(self.input.state.and_then(workstream::render));
                self.summary_job = Some(job);
                self.next_batch()
            }
            Err(e) => self.fail(e, None),
        }
    }

    fn finished(&mut self, finished: &Finished) {
        self.digest = digest_json(&finished.digest, &finished.summary);
        self.summary = Some(finished.summary.clone());
    }

    fn next_batch(&mut self) -> Step {
        let pieces = self
            .summary_job
            .as_mut()
            .map(SummaryJob::next)
            .unwrap_or_default();
        if pieces.is_empty() {
            return match self.summary_job.take().map(SummaryJob::finish) {
                Some(Ok(finished)) => {
                    self.finished(&finished);
                    self.render()
                }
                Some(Err(e)) => self.fail(e, None),
                None => self.render(),
            };
        }
        self.pieces = pieces
            .into_iter()
            .map(|request| Piece {
                request,
                call: None,
                asking: Asking::new(self.policy),
                resubmits: Resubmits::new(self.policy.retries),
            })
            .collect();
        self.wait(Waiting::Signal(true), Step::CheckSignal)
    }

    fn call(&mut self, k: usize, delay_ms: u64) {
        let call = CallId(self.calls);
        self.calls = self.calls.saturating_add(1);
        if let Some(piece) = self.pieces.get_mut(k) {
            piece.call = Some(call);
            self.queue.push_back(Step::Call {
                call,
                request: Box::new(piece.request.clone()),
                delay_ms,
            });
        }
    }

    fn start_batch(&mut self) -> Step {
        for k in 0..self.pieces.len() {
            self.call(k, 0);
        }
        self.wait(Waiting::Call, Step::Await)
    }

    fn call_ended(&mut self, call: CallId, end: CallEnd) -> Step {
        let Some(k) = self.pieces.iter().position(|p| p.call == Some(call)) else {
            return Step::Await;
        };
        let Some(piece) = self.pieces.get_mut(k) else {
            return Step::Await;
        };
        piece.call = None;
        match piece.asking.ended(end) {
            Asked::Again(delay) => {
                self.call(k, delay);
                Step::Await
            }
            Asked::Failed(error, cause) => self.fail_with(error, cause, true),
            Asked::Answer(text, state) => self.answered(k, &text, state),
        }
    }

    fn answered(&mut self, k: usize, text: &str, state: StateField) -> Step {
        let Some(piece) = self.pieces.get_mut(k) else {
            return Step::Await;
        };
        let Some(job) = self.summary_job.as_mut() else {
            return Step::Await;
        };
        let (id, purpose) = (piece.request.id, piece.request.purpose);
        match job.submit(id, text) {
            Ok(()) => {
                let delta = match state {
                    StateField::Absent => None,
                    StateField::Unreadable { message, cause } => {
                        return self.fail_with(
                            Error::new(ErrorCode::SummarizerFailed, message),
                            cause,
                            true,
                        )
                    }
                    StateField::Given(value) => match workstream::validate_delta(&value) {
                        Ok(()) => Some(value),
                        Err(e) => {
                            let message =
                                format!("the summarizer's state delta is invalid: {}", e.message);
                            return self.fail_with(
                                Error::new(ErrorCode::SummarizerFailed, message),
                                None,
                                true,
                            );
                        }
                    },
                };
                self.deltas.extend(delta);
                // A delta given in the text, after its marker line.
                self.deltas.extend(job.take_state_deltas());
                self.piece_done(k)
            }
            Err(e) => {
                if piece.resubmits.again() {
                    piece.asking = Asking::new(self.policy);
                    self.call(k, 0);
                    return Step::Await;
                }
                if purpose != Purpose::Rollup {
                    return self.fail_with(e, None, true);
                }
                // The rollup never condensed: the summary is cut to its cap instead.
                match job.skip_rollup(id) {
                    Ok(()) => self.piece_done(k),
                    Err(e) => self.fail_with(e, None, true),
                }
            }
        }
    }

    fn piece_done(&mut self, k: usize) -> Step {
        if let Some(piece) = self.pieces.get_mut(k) {
            piece.request.id = PieceId(u32::MAX);
        }
        self.pieces.retain(|p| p.request.id != PieceId(u32::MAX));
        let (done, total) = self
            .summary_job
            .as_ref()
            .map_or((0, 0), SummaryJob::progress);
        self.wait(Waiting::Progress, Step::Progress { done, total })
    }

    fn after_piece(&mut self) -> Step {
        if self.pieces.is_empty() {
            self.next_batch()
        } else {
            self.wait(Waiting::Call, Step::Await)
        }
    }

    fn observed(&mut self, end: HookEnd, name: &str) {
        match end {
            HookEnd::Settled => {}
            HookEnd::Failed(detail) => self.warnings.push(format!("{name} failed: {detail}")),
            HookEnd::TimedOut => self.warnings.push(format!(
                "{name} did not settle within {} ms; the compaction went on",
                self.input.options.timeout_ms
            )),
        }
    }

    fn render(&mut self) -> Step {
        let i = &self.input;
        let rendered = render(
            i.messages,
            i.plan,
            self.summary.as_deref(),
            &i.options.settings.summary,
            i.round,
            i.continues,
        );
        let out: Vec<Message> = rendered.iter().map(|r| r.message.clone()).collect();
        let tokens_after = i.estimator.total(&out);
        let tokens_before = i.tokens_before;
        if let Err(e) = check_progress(tokens_before, tokens_after) {
            return self.fail(e, None);
        }
        let mut state = i.state.cloned();
        for delta in &self.deltas {
            state = Some(workstream::merge(state.as_ref(), delta));
        }
        let removed = i
            .plan
            .dispositions
            .iter()
            .enumerate()
            .filter(|(_, d)| {
                matches!(
                    d,
                    Disposition::Summarize | Disposition::TurnPrefix | Disposition::Drop
                )
            })
            .map(|(k, _)| k)
            .collect();
        self.compacted = Some(Compacted {
            tokens_before,
            round: i.round,
            split_turn: i.plan.split_turn,
            removed,
            summary: self.summary.clone(),
            digest: self.digest.clone(),
            rendered,
            tokens_after,
            state,
            warnings: Vec::new(),
        });
        self.wait(
            Waiting::After,
            Step::After {
                tokens_before,
                tokens_after,
            },
        )
    }
}
