//! How close the live context is to the trigger: below the background threshold, past it (start
//! summarizing in the background while the conversation goes on), or at the trigger (a turn must
//! wait for a compaction).

use crate::core::trigger::Decision;

/// The pressure on the context window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pressure {
    /// Nothing to do.
    Below,
    /// Past the background threshold: start a compaction without waiting for it.
    Soft,
    /// The trigger fires: compact before the next request.
    Hard,
}

/// The pressure for `decision` at `tokens`, with a background threshold of `background` tokens.
pub fn of(decision: &Decision, tokens: usize, background: Option<usize>) -> Pressure {
    if decision.should_compact {
        Pressure::Hard
    } else if background.is_some_and(|b| tokens >= b) {
        Pressure::Soft
    } else {
        Pressure::Below
    }
}
