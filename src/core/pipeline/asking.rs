//! The calls of one summarizer request ([`Asking`]): how each call's end is taken (an answer that
//! is text, a failure to retry after the backoff of [`crate::core::driver::retry`], or the error
//! that ends the request), for the pieces of a [`super::Job`] and for a single request outside a
//! compaction (a memory block's).

use crate::core::driver::{Attempts, CallFailure, RetryPolicy};
use crate::core::error::{Error, ErrorCode};
use crate::core::options::Options;

use super::steps::{CallEnd, StateField, ValueId};

/// The error of a call the caller's signal aborted.
pub fn aborted() -> Error {
    Error::new(
        ErrorCode::Aborted,
        "compaction aborted by the caller's signal",
    )
}

/// What [`too_long`] calls the summarizer's answer.
pub const ANSWER: &str = "the summarizer's answer";

/// The error of a text of `units` UTF-16 units past what a summary may hold (`what` names it).
pub fn too_long(units: usize, what: &str) -> Error {
    match crate::core::summary::answer::check_length(units, what) {
        Err(error) => error,
        Ok(()) => Error::new(ErrorCode::Internal, format!("{what} is not too long")),
    }
}

/// The retry numbers of `options`.
pub fn retry_policy(options: &Options) -> RetryPolicy {
    RetryPolicy {
        retries: options.settings.retries,
        delay_ms: options.settings.retry_delay_ms,
        timeout_ms: options.timeout_ms,
    }
}

/// What the end of one call comes to.
#[derive(Clone, Debug, PartialEq)]
pub enum Asked {
    /// An answer with text (and the state field of the answer).
    Answer(String, StateField),
    /// Call again after this many milliseconds.
    Again(u64),
    /// The request failed: this error, with this cause.
    Failed(Error, Option<ValueId>),
}

/// The calls of one request.
#[derive(Clone, Debug)]
pub struct Asking {
    attempts: Attempts,
}

impl Asking {
    /// A request under `policy`; its first call goes out at once.
    pub fn new(policy: RetryPolicy) -> Asking {
        let mut attempts = Attempts::new(policy);
        // The first call's delay (0).
        let _ = attempts.next_delay();
        Asking { attempts }
    }

    /// Takes the end of the latest call.
    pub fn ended(&mut self, end: CallEnd) -> Asked {
        let cause = match end {
            CallEnd::Answer {
                text: Some(text),
                state,
                ..
            } => return Asked::Answer(text, state),
            CallEnd::Aborted(why) => return Asked::Failed(aborted(), Some(why)),
            CallEnd::TooLong(units) => return Asked::Failed(too_long(units, ANSWER), None),
            CallEnd::Answer {
                text: None, value, ..
            } => {
                self.attempts.failed(CallFailure::NotText);
                Some(value)
            }
            CallEnd::Threw(value) => {
                self.attempts.failed(CallFailure::Threw);
                Some(value)
            }
            CallEnd::TimedOut => {
                self.attempts.failed(CallFailure::TimedOut);
                None
            }
        };
        match self.attempts.next_delay() {
            Some(delay) => Asked::Again(delay),
            None => Asked::Failed(self.attempts.error(), cause),
        }
    }
}

#[cfg(test)]
#[allow(clippy::panic)]
mod tests {
    use super::*;

    fn policy(retries: u32) -> RetryPolicy {
        RetryPolicy {
            retries,
            delay_ms: 100,
            timeout_ms: 50,
        }
    }

    #[test]
    fn failures_are_retried_with_backoff_and_the_last_names_the_error() {
        let mut a = Asking::new(policy(2));
        assert_eq!(a.ended(CallEnd::TimedOut), Asked::Again(100));
        assert_eq!(a.ended(CallEnd::Threw(ValueId(1))), Asked::Again(200));
        let not_text = CallEnd::Answer {
            text: None,
            state: StateField::Absent,
            value: ValueId(2),
        };
        match a.ended(not_text) {
            Asked::Failed(e, cause) => {
                assert_eq!(e.code, ErrorCode::SummarizerFailed);
                assert!(e.message.contains("neither a string"), "{}", e.message);
                assert_eq!(cause, Some(ValueId(2)));
            }
            other => panic!("{other:?}"),
        }
        let mut a = Asking::new(policy(0));
        match a.ended(CallEnd::TimedOut) {
            Asked::Failed(e, None) => assert_eq!(e.code, ErrorCode::Timeout),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_abort_ends_at_once_and_an_answer_is_taken() {
        let mut a = Asking::new(policy(5));
        match a.ended(CallEnd::Aborted(ValueId(7))) {
            Asked::Failed(e, Some(ValueId(7))) => assert_eq!(e.code, ErrorCode::Aborted),
            other => panic!("{other:?}"),
        }
        let answer = CallEnd::Answer {
            text: Some("s".into()),
            state: StateField::Absent,
            value: ValueId(0),
        };
        assert_eq!(
            Asking::new(policy(0)).ended(answer),
            Asked::Answer("s".into(), StateField::Absent)
        );
    }
}
