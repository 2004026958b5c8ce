//! One summarizer request outside a compaction (a memory block's condensed notes) as a step
//! machine, in the vocabulary of [`super::steps`]: [`Step::Call`] (the binding names its purpose
//! `memory` and sends no messages), [`Step::Await`], again after the backoff of [`Asking`] while
//! the calls fail, then [`Step::Done`] with [`Outcome::Answered`] (non-empty text) or, after a
//! [`Step::Raise`], [`Outcome::Rejected`]. No hooks, no `onFailure`: the caller's call rejects.

use crate::core::error::{Error, ErrorCode};
use crate::core::options::Options;
use crate::core::summary::job::{PieceId, PieceRequest, Purpose};

use super::asking::{retry_policy, Asked, Asking};
use super::steps::{CallId, Event, Outcome, Step};

/// The state of one request.
pub struct Once {
    request: PieceRequest,
    /// How long a call (and the handle's hooks) may take: the options' `timeoutMs`.
    timeout_ms: u64,
    asking: Asking,
    calls: u32,
    waiting: bool,
    over: Option<Outcome>,
}

impl Once {
    /// A request of `system` and `prompt` for at most `max_tokens`, retried as `options` say.
    pub fn new(options: &Options, system: &str, prompt: &str, max_tokens: usize) -> Once {
        Once {
            request: PieceRequest {
                id: PieceId(0),
                purpose: Purpose::History,
                system: system.to_string(),
                prompt: prompt.to_string(),
                transcript: prompt.to_string(),
                message_indices: Vec::new(),
                previous_summary: None,
                instructions: None,
                max_tokens,
                round: 1,
            },
            timeout_ms: options.timeout_ms,
            asking: Asking::new(retry_policy(options)),
            calls: 0,
            waiting: false,
            over: None,
        }
    }

    /// The request (its `system`, `prompt` and `maxTokens` are what the summarizer gets).
    pub fn request(&self) -> &PieceRequest {
        &self.request
    }

    /// The options' `timeoutMs`, as the driver waits for the call.
    pub fn timeout_ms(&self) -> u64 {
        self.timeout_ms
    }

    fn call(&mut self, delay_ms: u64) -> Step {
        let call = CallId(self.calls);
        self.calls = self.calls.saturating_add(1);
        Step::Call {
            call,
            request: Box::new(self.request.clone()),
            delay_ms,
        }
    }

    fn done(&mut self, outcome: Outcome) -> Step {
        self.over = Some(outcome.clone());
        Step::Done(outcome)
    }

    /// Takes what happened and hands out the next step (`Event::Ready` first).
    pub fn next(&mut self, event: Event) -> Step {
        if let Some(over) = &self.over {
            return Step::Done(over.clone());
        }
        match event {
            Event::Ready if self.calls == 0 => self.call(0),
            Event::Ready => {
                self.waiting = true;
                Step::Await
            }
            Event::Call { end, .. } if self.waiting => {
                self.waiting = false;
                match self.asking.ended(end) {
                    Asked::Answer(text, _) if !text.trim().is_empty() => {
                        self.done(Outcome::Answered(text))
                    }
                    Asked::Answer(..) => self.raise(
                        Error::new(
                            ErrorCode::SummaryEmpty,
                            "the summarizer returned an empty summary",
                        ),
                        None,
                    ),
                    Asked::Again(delay) => self.call(delay),
                    Asked::Failed(error, cause) => self.raise(error, cause),
                }
            }
            Event::Raised(id) => self.done(Outcome::Rejected(id)),
            other => self.raise(
                Error::new(
                    ErrorCode::InvalidInput,
                    format!("the request got {other:?} while it did not wait for it"),
                ),
                None,
            ),
        }
    }

    fn raise(&mut self, error: Error, cause: Option<super::ValueId>) -> Step {
        Step::Raise { error, cause }
    }
}

#[cfg(test)]
#[allow(clippy::panic)]
mod tests {
    use super::*;
    use crate::core::pipeline::{CallEnd, StateField, ValueId};

    fn options(retries: u32) -> Options {
        let json =
            serde_json::json!({"contextWindow": 10000, "retries": retries, "retryDelayMs": 10});
        match crate::core::options::parse(&json) {
            Ok(o) => o,
            Err(e) => panic!("{e}"),
        }
    }

    fn answer(text: &str) -> Event {
        Event::Call {
            call: CallId(0),
            end: CallEnd::Answer {
                text: Some(text.into()),
                state: StateField::Absent,
                value: ValueId(0),
            },
        }
    }

    #[test]
    fn a_failed_call_is_retried_after_the_backoff_and_the_answer_ends_it() {
        let mut once = Once::new(&options(2), "sys", "notes", 50);
        match once.next(Event::Ready) {
            Step::Call {
                delay_ms: 0,
                request,
                ..
            } => {
                assert_eq!((request.system.as_str(), request.max_tokens), ("sys", 50))
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(once.next(Event::Ready), Step::Await);
        let threw = Event::Call {
            call: CallId(0),
            end: CallEnd::Threw(ValueId(1)),
        };
        assert!(matches!(once.next(threw), Step::Call { delay_ms: 10, .. }));
        assert_eq!(once.next(Event::Ready), Step::Await);
        assert_eq!(
            once.next(answer("short")),
            Step::Done(Outcome::Answered("short".into()))
        );
    }

    #[test]
    fn an_empty_answer_or_the_last_failure_rejects() {
        let mut once = Once::new(&options(0), "sys", "notes", 50);
        once.next(Event::Ready);
        once.next(Event::Ready);
        match once.next(answer("  ")) {
            Step::Raise { error, .. } => assert_eq!(error.code, ErrorCode::SummaryEmpty),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            once.next(Event::Raised(ValueId(4))),
            Step::Done(Outcome::Rejected(ValueId(4)))
        );
        let mut once = Once::new(&options(0), "sys", "notes", 50);
        once.next(Event::Ready);
        once.next(Event::Ready);
        let timed_out = Event::Call {
            call: CallId(0),
            end: CallEnd::TimedOut,
        };
        match once.next(timed_out) {
            Step::Raise { error, .. } => assert_eq!(error.code, ErrorCode::Timeout),
            other => panic!("{other:?}"),
        }
    }
}
