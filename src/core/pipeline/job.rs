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
use crate::core::summary::job::{PieceRequest, SummaryJob};

use super::asking::{aborted, retry_policy, Asking};
use super::steps::{CallId, Compacted, Event, HookEnd, Input, Outcome, Step, ValueId};
use super::{Failed, Pipeline, Start, NOTHING_TO_COMPACT};

/// What a raised error is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Raised {
    /// The breaker's notice at the start.
    Notice,
    /// A failure of the compaction (`abort`: its calls still running are aborted).
    Failure { code: ErrorCode, abort: bool },
    /// A failure that rejects unreported (the fallback's own, a commit's).
    Final,
}

/// What the job waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Waiting {
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
pub(super) struct Piece {
    pub(super) request: PieceRequest,
    pub(super) call: Option<CallId>,
    pub(super) asking: Asking,
    pub(super) resubmits: Resubmits,
}

/// One compaction's step machine (see the module documentation).
pub struct Job {
    pub(super) input: Input,
    pub(super) policy: RetryPolicy,
    pub(super) waiting: Waiting,
    pub(super) queue: VecDeque<Step>,
    pub(super) extractive: bool,
    pub(super) fell_back: bool,
    pub(super) fallback: Option<String>,
    pub(super) summary_job: Option<SummaryJob<'static>>,
    pub(super) pieces: Vec<Piece>,
    pub(super) calls: u32,
    pub(super) summary: Option<String>,
    pub(super) digest: Value,
    pub(super) deltas: Vec<Value>,
    pub(super) warnings: Vec<String>,
    pub(super) compacted: Option<Compacted>,
    /// The message of the error being raised (for the breaker's count).
    pub(super) raising: String,
    /// How the job ended.
    pub(super) over: Option<Outcome>,
}

impl Job {
    /// A job on `input`; its first step comes from `next(pipeline, Event::Ready)`.
    pub fn new(input: Input) -> Job {
        Job {
            policy: retry_policy(&input.options),
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

    /// What the job works on (the handle reads its plan and messages to commit).
    pub fn input(&self) -> &Input {
        &self.input
    }

    /// The same, for a commit that takes the messages back (after [`Step::Commit`] the job reads
    /// only the plan's counts).
    pub fn input_mut(&mut self) -> &mut Input {
        &mut self.input
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

    pub(super) fn wait(&mut self, waiting: Waiting, step: Step) -> Step {
        self.waiting = waiting;
        step
    }

    pub(super) fn done(&mut self, outcome: Outcome) -> Step {
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

    pub(super) fn raise(&mut self, error: Error, cause: Option<ValueId>, why: Raised) -> Step {
        self.raising = error.message.clone();
        self.wait(Waiting::Raised(why), Step::Raise { error, cause })
    }

    /// A failure of the compaction: raised, then the policy's (after a fallback: rejected).
    pub(super) fn fail_with(&mut self, error: Error, cause: Option<ValueId>, abort: bool) -> Step {
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

    pub(super) fn fail(&mut self, error: Error, cause: Option<ValueId>) -> Step {
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

    pub(super) fn observed(&mut self, end: HookEnd, name: &str) {
        match end {
            HookEnd::Settled => {}
            HookEnd::Failed(detail) => self.warnings.push(format!("{name} failed: {detail}")),
            HookEnd::TimedOut => self.warnings.push(format!(
                "{name} did not settle within {} ms; the compaction went on",
                self.input.options.timeout_ms
            )),
        }
    }

    pub(super) fn render(&mut self) -> Step {
        let i = &self.input;
        let rendered = render(
            &i.messages,
            &i.plan,
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
        let mut state = i.state.clone();
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
