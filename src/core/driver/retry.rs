//! Retries of one summarizer call: the first call at once, then up to `retries` more, each after
//! `delay_ms × 2^(n−1)` milliseconds (exponential backoff, capped at 2^16 × the delay). A call that
//! throws, rejects, times out or answers with something that is not text is retried; an abort is
//! not. An answer the summary job rejects (empty, not smaller) is asked for again, up to `retries`
//! times.

use crate::core::error::{Error, ErrorCode};

/// The retry numbers of a compaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Calls after the first.
    pub retries: u32,
    /// The delay before the first retry, in milliseconds; doubles each retry.
    pub delay_ms: u64,
    /// The time one call may take, in milliseconds.
    pub timeout_ms: u64,
}

impl RetryPolicy {
    /// The delay before call `attempt` (0 = the first call), or `None` past the retries.
    pub fn delay_before(&self, attempt: u32) -> Option<u64> {
        match attempt {
            0 => Some(0),
            n if n <= self.retries => Some(self.delay_ms.saturating_mul(1u64 << (n - 1).min(16))),
            _ => None,
        }
    }
}

/// How a call failed (other than by an abort, which ends everything at once).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallFailure {
    /// The callback threw or its promise rejected.
    Threw,
    /// No answer within the timeout.
    TimedOut,
    /// The answer was neither a string nor `{ summary: string }`.
    NotText,
}

/// The calls of one request: which delay comes next, and the error to report when they run out.
#[derive(Clone, Debug)]
pub struct Attempts {
    policy: RetryPolicy,
    made: u32,
    last: Option<CallFailure>,
}

impl Attempts {
    /// No call made yet.
    pub fn new(policy: RetryPolicy) -> Attempts {
        Attempts {
            policy,
            made: 0,
            last: None,
        }
    }

    /// The delay before the next call (0 for the first), or `None` when the retries are used up.
    pub fn next_delay(&mut self) -> Option<u64> {
        let delay = self.policy.delay_before(self.made)?;
        self.made += 1;
        Some(delay)
    }

    /// Records a failed call.
    pub fn failed(&mut self, failure: CallFailure) {
        self.last = Some(failure);
    }

    /// The error that ends the request after the last failure.
    pub fn error(&self) -> Error {
        match self.last {
            Some(CallFailure::TimedOut) => Error::new(
                ErrorCode::Timeout,
                format!(
                    "the summarizer did not answer within {} ms",
                    self.policy.timeout_ms
                ),
            ),
            Some(CallFailure::Threw) => {
                Error::new(ErrorCode::SummarizerFailed, "the summarizer failed")
            }
            Some(CallFailure::NotText) => Error::new(
                ErrorCode::SummarizerFailed,
                "the summarizer returned neither a string nor { summary: string }",
            ),
            None => Error::new(ErrorCode::SummarizerFailed, "the summarizer was not called"),
        }
    }
}

/// Answers the summary job rejected for one piece: ask again while `retries` allow.
#[derive(Clone, Copy, Debug)]
pub struct Resubmits {
    retries: u32,
    used: u32,
}

impl Resubmits {
    /// None used yet.
    pub fn new(retries: u32) -> Resubmits {
        Resubmits { retries, used: 0 }
    }

    /// After a rejected answer: `true` to ask again, `false` to fail with the job's error.
    pub fn again(&mut self) -> bool {
        if self.used >= self.retries {
            return false;
        }
        self.used += 1;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_and_stops_after_the_retries() {
        let p = RetryPolicy {
            retries: 3,
            delay_ms: 100,
            timeout_ms: 5,
        };
        let mut a = Attempts::new(p);
        let delays: Vec<u64> = std::iter::from_fn(|| a.next_delay()).collect();
        assert_eq!(delays, vec![0, 100, 200, 400]);
        a.failed(CallFailure::TimedOut);
        assert_eq!(a.error().code, ErrorCode::Timeout);
        assert_eq!(RetryPolicy { retries: 0, ..p }.delay_before(1), None);
        // Capped, never overflowing.
        assert_eq!(
            RetryPolicy {
                retries: 100,
                delay_ms: u64::MAX,
                timeout_ms: 1
            }
            .delay_before(90),
            Some(u64::MAX)
        );
        let mut r = Resubmits::new(2);
        assert!(r.again() && r.again() && !r.again());
    }
}
