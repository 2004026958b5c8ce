//! The summarizing part of a [`Job`]: what `onBeforeCompaction` answered (cancel, a summary of
//! its own, or go on), then the extractive summary or the summary job's pieces
//! ([`crate::core::summary::job`]) in batches: the pieces of a batch are called together, each
//! retried with backoff ([`Asking`]), its answer validated and asked for again when rejected (a
//! rollup that never condenses is skipped); `onProgress` after each accepted piece. The first
//! piece that fails aborts its siblings.

use std::rc::Rc;

use crate::core::driver::Resubmits;
use crate::core::error::{Error, ErrorCode};
use crate::core::session::workstream;
use crate::core::summary::is_blank;
use crate::core::summary::job::{Finished, PieceId, Purpose, SummaryJob};

use super::asking::{Asked, Asking};
use super::job::{Job, Piece, Waiting};
use super::steps::{digest_json, BeforeAnswer, CallEnd, CallId, Outcome, StateField, Step};
use super::CANCELLED;

impl Job {
    pub(super) fn before(&mut self, answer: BeforeAnswer) -> Step {
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

    fn summary_job(&self) -> crate::core::error::Result<SummaryJob<'static>> {
        let i = &self.input;
        let counter = i.estimator.counter.clone();
        SummaryJob::with_counter(
            &i.messages,
            &i.plan,
            &i.options.settings,
            i.options.settings.templates.clone(),
            None,
            i.instructions.clone(),
            i.round,
            Rc::new(move |t: &str| counter.count(t)),
        )
    }

    pub(super) fn summarize(&mut self) -> Step {
        if self.extractive {
            return match self.summary_job() {
                Ok(job) => {
                    let finished = job.extractive(&self.input.messages);
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
                job.set_state(self.input.state.as_ref().and_then(workstream::render));
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

    pub(super) fn next_batch(&mut self) -> Step {
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

    pub(super) fn start_batch(&mut self) -> Step {
        for k in 0..self.pieces.len() {
            self.call(k, 0);
        }
        self.wait(Waiting::Call, Step::Await)
    }

    pub(super) fn call_ended(&mut self, call: CallId, end: CallEnd) -> Step {
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

    pub(super) fn after_piece(&mut self) -> Step {
        if self.pieces.is_empty() {
            self.next_batch()
        } else {
            self.wait(Waiting::Call, Step::Await)
        }
    }
}
