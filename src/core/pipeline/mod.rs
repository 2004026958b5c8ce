//! The compaction pipeline that both handles drive: the `Compactor` (`compact`, `maybeCompact`) and
//! the `Session` (`compact`, `prepare`, its background compactions). One [`Pipeline`] per handle
//! holds the state that outlives a call (the circuit breaker, the count of compactions); one
//! [`Job`] per call is the call's step machine ([`job`], its summarizing part in `pieces`), which
//! the binding hands to JS as a handle and `js/driver.mjs` carries out ([`steps`]: what it asks
//! for and what it is told, as plain data; [`reading`]: how the driver's report of a step becomes
//! the event the job takes; [`kept`]: the caller's values the binding keeps, named by id). [`Once`] is the same for one request outside a
//! compaction (a memory block's); a [`Machine`] is either, as the binding's handle steps it. The job makes every decision of a call,
//! in order, with these rules:
//!
//! 1. [`Pipeline::start`]: from the kind of call ([`Kind`]), the trigger's decision on the
//!    calibrated count (computed once by the caller's view) and the breaker, whether to compact at
//!    all ([`Start::Skip`] with the warning of the unchanged result) and how ([`Start::Compact`]:
//!    with the summarizer or the extractive summary, and an error to report first when the
//!    breaker is open).
//! 2. The summary job ([`crate::core::summary::job`]) yields the summarizer requests; each is
//!    asked with the retries of [`asking`] (the schedule is [`crate::core::driver::retry`]).
//! 3. [`Pipeline::failed`]: on a failure, what the call does ([`Failed`]: reject, leave the
//!    messages unchanged, or compact again with the extractive summary) under `onFailure`, with
//!    the warning to add, and whether it is reported to `onError` as swallowed.
//! 4. [`Pipeline::succeeded`]: closes the breaker (unless the summarizer was skipped) and counts
//!    the compaction (for round numbers).
//!
//! [`on_pressure`] says what a `Session.prepare()` does about the pressure on the window (compact
//! in the foreground, start a background compaction, or only render).
//!
//! [`Kind::continues`] says whether the compacted context ends with the style's continue message
//! (OpenCode's "Continue if you have next steps"): after an automatic compaction in the
//! foreground, whichever handle ran it.

pub mod asking;
pub mod job;
pub mod kept;
pub mod machine;
pub mod once;
mod pieces;
pub mod prepare;
pub mod reading;
pub mod steps;

pub use asking::{Asked, Asking};
pub use job::Job;
pub use kept::Kept;
pub use machine::Machine;
pub use once::Once;
pub use prepare::{on_pressure, Prepare};
pub use reading::{event, Awaits, ReportedValue, Seen};
pub use steps::{
    BeforeAnswer, CallEnd, CallId, Compacted, Event, HookEnd, Input, Outcome, StateField, Step,
    ValueId,
};

use crate::core::driver::{Breaker, FailurePolicy, Recovery};
use crate::core::error::{Error, ErrorCode};
use crate::core::options::Options;

/// What started a compaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `compact()` on either handle: always runs, a failure always rejects.
    Manual,
    /// `maybeCompact()` or `Session.prepare()`: runs at the trigger only.
    Automatic,
    /// `maybeCompact({ force: true })` or `prepare({ force: true })`: runs below the trigger too.
    Forced,
    /// A `Session`'s background compaction, past the background threshold.
    Background,
}

impl Kind {
    /// The kind of a `compact()` (`automatic` false) or `maybeCompact()` call, given its `force`.
    pub fn of_call(automatic: bool, force: bool) -> Kind {
        match (automatic, force) {
            (false, _) => Kind::Manual,
            (true, false) => Kind::Automatic,
            (true, true) => Kind::Forced,
        }
    }

    /// Counts toward the circuit breaker and follows `onFailure`.
    pub fn is_automatic(self) -> bool {
        self != Kind::Manual
    }

    /// Below the trigger nothing is compacted.
    pub fn gated(self) -> bool {
        self == Kind::Automatic
    }

    /// The compacted context ends with the style's continue message.
    pub fn continues(self) -> bool {
        matches!(self, Kind::Automatic | Kind::Forced)
    }
}

/// The warning of a call that compacted nothing because the context is below the trigger.
pub const BELOW_TRIGGER: &str = "below the trigger";
/// The warning of a call whose plan has nothing to compact.
pub const NOTHING_TO_COMPACT: &str = "nothing to compact";
/// The warning of a call that `onBeforeCompaction` cancelled.
pub const CANCELLED: &str = "cancelled by onBeforeCompaction";
/// The warning of an automatic call skipped while the breaker is open.
pub const BREAKER_OPEN: &str =
    "automatic compaction is off after repeated failures; call compact() to retry";

/// How a call starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    /// Compact nothing: the messages unchanged, with this warning.
    Skip(&'static str),
    /// Compact.
    Compact {
        /// Write the extractive summary instead of calling the summarizer.
        extractive: bool,
        /// Report this to `onError` first (the summarizer is skipped because the breaker is open).
        notice: Option<Error>,
    },
}

/// What a failed call does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failed {
    /// Reject with the error.
    Reject,
    /// The messages unchanged, with this warning.
    Unchanged(String),
    /// Compact again with the extractive summary; add this warning to its result.
    Extractive(String),
}

impl Failed {
    /// The failure is not the call's outcome: `onError` hears of it (or the console, without one).
    pub fn swallowed(&self) -> bool {
        !matches!(self, Failed::Reject)
    }
}

/// The state of one handle's compactions and the decisions of each call.
#[derive(Clone, Debug)]
pub struct Pipeline {
    breaker: Breaker,
    policy: FailurePolicy,
    /// The most tokens the model takes with its reserve (`onFailure: "auto"` compares with it).
    fits: usize,
    /// `summarize: "extractive"`.
    extractive: bool,
    compactions: u32,
}

impl Pipeline {
    /// A pipeline for `options` (breaker closed, nothing compacted yet).
    pub fn new(options: &Options) -> Pipeline {
        Pipeline {
            breaker: Breaker::new(options.max_consecutive_failures),
            policy: options.on_failure,
            fits: options.settings.budget.available(),
            extractive: options.extractive,
            compactions: 0,
        }
    }

    /// Successful compactions so far (round numbers when a summary's text names none).
    pub fn compactions(&self) -> u32 {
        self.compactions
    }

    /// True while automatic compaction skips the summarizer.
    pub fn breaker_open(&self) -> bool {
        self.breaker.is_open()
    }

    /// How a call of `kind` starts on a context of `tokens` tokens (the calibrated count) when
    /// the trigger says `should_compact`.
    pub fn start(&self, kind: Kind, should_compact: bool, tokens: usize) -> Start {
        let open = kind.is_automatic() && self.breaker.is_open();
        if kind.gated() && !should_compact {
            return Start::Skip(BELOW_TRIGGER);
        }
        if !open {
            return Start::Compact {
                extractive: self.extractive,
                notice: None,
            };
        }
        // With the breaker open the failing summarizer is skipped: the extractive summary when
        // the policy would fall back to it, otherwise nothing.
        if self
            .policy
            .recover(ErrorCode::SummarizerFailed, tokens, self.fits)
            != Recovery::Extractive
        {
            return Start::Skip(BREAKER_OPEN);
        }
        let fits = self.fits;
        Start::Compact {
            extractive: true,
            notice: Some(Error::new(
                ErrorCode::SummarizerFailed,
                format!(
                    "automatic compaction is off after repeated summarizer failures and the context \
                     ({tokens} tokens) no longer fits {fits}: an extractive summary is used"
                ),
            )),
        }
    }

    /// A call of `kind` on `tokens` tokens failed with `code` and `message`: counts the failure
    /// of an automatic call and says what the call does.
    pub fn failed(&mut self, kind: Kind, code: ErrorCode, message: &str, tokens: usize) -> Failed {
        if !kind.is_automatic() {
            return Failed::Reject;
        }
        self.breaker.failure();
        match self.policy.recover(code, tokens, self.fits) {
            Recovery::Reject => Failed::Reject,
            Recovery::Unchanged => Failed::Unchanged(format!(
                "the compaction failed ({}): {message}; the messages are unchanged",
                code.as_str()
            )),
            Recovery::Extractive => Failed::Extractive(format!(
                "the summarizer failed ({}): {message}; an extractive summary was used instead",
                code.as_str()
            )),
        }
    }

    /// A compaction was committed; `summarized`: the summarizer wrote it (the breaker closes).
    pub fn succeeded(&mut self, summarized: bool) {
        if summarized {
            self.breaker.success();
        }
        self.compactions = self.compactions.saturating_add(1);
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod job_tests;
