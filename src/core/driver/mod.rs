//! The compaction driver's policy, shared by the `Compactor` and the `Session`: how often and when a
//! summarizer call is retried ([`retry`]), when an answer is asked for again ([`retry::Resubmits`]),
//! the circuit breaker of automatic compaction ([`breaker`]), what `maybeCompact` does when the
//! summarizer fails ([`failure`]), round numbering and the no-progress
//! rule ([`progress`]), and the `maybeCompact` continuation ([`memo`]). The binding only runs the
//! calls and sleeps these decide, so every rule here is tested natively. The order in which a
//! compaction applies them is [`crate::core::pipeline`].

pub mod breaker;
pub mod failure;
pub mod memo;
pub mod progress;
pub mod retry;

pub use breaker::Breaker;
pub use failure::{FailurePolicy, Recovery};
pub use memo::{continuation, prefix_digest, replaced_upto, StoredMemo};
pub use progress::{check_progress, next_round};
pub use retry::{Attempts, CallFailure, Resubmits, RetryPolicy};
