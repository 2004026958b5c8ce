//! What `maybeCompact` does when the summarizer fails (seed 001's `safeCompact`: an agent loop must
//! not die because one summary could not be written).
//!
//! The policy applies to failures of the summary itself: `SUMMARIZER_FAILED`, `TIMEOUT`,
//! `SUMMARY_EMPTY` and `NO_PROGRESS`. Everything else (bad input or options, an abort by the
//! caller, `CANNOT_COMPACT`, `CONFLICT`) always rejects: those are not transient, or the caller
//! asked to stop.
//!
//! | policy | on a summary failure |
//! |---|---|
//! | `auto` (default) | the messages unchanged while they still fit the window minus the reserve; past that, the extractive summary |
//! | `unchanged` | the messages unchanged |
//! | `extractive` | the extractive summary ([`crate::core::summary::extractive`]) |
//! | `reject` | the promise rejects |
//!
//! Whatever the policy, the failure is reported to `onError` (or, without it, as a console
//! warning) before the outcome.

use crate::core::error::{Error, ErrorCode, Result};

/// The failure policy of `maybeCompact`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailurePolicy {
    /// Unchanged while the context fits, extractive when it no longer does.
    Auto,
    /// Return the messages unchanged.
    Unchanged,
    /// Fall back to the extractive summary.
    Extractive,
    /// Reject.
    Reject,
}

/// What to do about one failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recovery {
    /// Return the messages unchanged.
    Unchanged,
    /// Compact again with the extractive summary.
    Extractive,
    /// Reject with the error.
    Reject,
}

impl FailurePolicy {
    /// The names users write: `auto`, `unchanged`, `extractive`, `reject`.
    pub const NAMES: [&'static str; 4] = ["auto", "unchanged", "extractive", "reject"];

    /// Parses a name (`INVALID_OPTIONS` at `path` otherwise).
    pub fn parse(name: &str, path: &str) -> Result<FailurePolicy> {
        match name {
            "auto" => Ok(FailurePolicy::Auto),
            "unchanged" => Ok(FailurePolicy::Unchanged),
            "extractive" => Ok(FailurePolicy::Extractive),
            "reject" => Ok(FailurePolicy::Reject),
            other => Err(Error::invalid_option(
                path,
                format!(
                    "unknown failure policy \"{other}\": expected auto, unchanged, extractive or reject"
                ),
            )),
        }
    }

    /// The recovery from a failure with `code`, for a context of `tokens` tokens when `fits`
    /// tokens is the most the model can take with its reserve.
    pub fn recover(self, code: ErrorCode, tokens: usize, fits: usize) -> Recovery {
        let summary_failure = matches!(
            code,
            ErrorCode::SummarizerFailed
                | ErrorCode::Timeout
                | ErrorCode::SummaryEmpty
                | ErrorCode::NoProgress
        );
        if !summary_failure {
            return Recovery::Reject;
        }
        match self {
            FailurePolicy::Reject => Recovery::Reject,
            FailurePolicy::Unchanged => Recovery::Unchanged,
            FailurePolicy::Extractive => Recovery::Extractive,
            FailurePolicy::Auto if tokens > fits => Recovery::Extractive,
            FailurePolicy::Auto => Recovery::Unchanged,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn recoveries() {
        use ErrorCode::*;
        let auto = FailurePolicy::Auto;
        assert_eq!(auto.recover(SummarizerFailed, 90, 100), Recovery::Unchanged);
        assert_eq!(auto.recover(Timeout, 101, 100), Recovery::Extractive);
        for code in [
            InvalidInput,
            InvalidOptions,
            Aborted,
            CannotCompact,
            Conflict,
        ] {
            for p in [auto, FailurePolicy::Unchanged, FailurePolicy::Extractive] {
                assert_eq!(p.recover(code, 1_000, 100), Recovery::Reject, "{code:?}");
            }
        }
        assert_eq!(
            FailurePolicy::Unchanged.recover(SummaryEmpty, 1_000, 100),
            Recovery::Unchanged
        );
        assert_eq!(
            FailurePolicy::Extractive.recover(NoProgress, 1, 100),
            Recovery::Extractive
        );
        assert_eq!(
            FailurePolicy::Reject.recover(SummarizerFailed, 1_000, 100),
            Recovery::Reject
        );
        for name in FailurePolicy::NAMES {
            assert!(FailurePolicy::parse(name, "onFailure").is_ok());
        }
        assert_eq!(
            FailurePolicy::parse("ignore", "onFailure")
                .unwrap_err()
                .path
                .as_deref(),
            Some("onFailure")
        );
    }
}
