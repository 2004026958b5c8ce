//! Round numbering and the no-progress rule.

use crate::core::error::{Error, ErrorCode, Result};

/// The round of a new summary: 1 when it folds in no earlier summary (`previous` is `None`);
/// otherwise one more than the earlier summary's round as read from its text (`Some(round)`), or,
/// when the text names none (`Some(None)`), one more than the `compactions` made so far (at least 1
/// for the earlier summary itself).
pub fn next_round(previous: Option<Option<u32>>, compactions: u32) -> u32 {
    match previous {
        None => 1,
        Some(Some(round)) => round.max(1).saturating_add(1),
        Some(None) => compactions.max(1).saturating_add(1),
    }
}

/// A compaction must shrink the context: `NO_PROGRESS` when `after >= before`.
pub fn check_progress(before: usize, after: usize) -> Result<()> {
    if after >= before {
        Err(Error::new(
            ErrorCode::NoProgress,
            format!("the compacted context ({after} tokens) is not smaller than the original ({before})"),
        ))
    } else {
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn rounds_and_progress() {
        assert_eq!(next_round(None, 7), 1);
        assert_eq!(
            next_round(Some(Some(3)), 0),
            4,
            "a fresh compactor continues round 3"
        );
        assert_eq!(next_round(Some(Some(3)), 9), 4);
        assert_eq!(
            next_round(Some(None), 0),
            2,
            "an earlier summary from elsewhere is round 1"
        );
        assert_eq!(next_round(Some(None), 3), 4);
        assert!(check_progress(10, 9).is_ok());
        assert_eq!(
            check_progress(10, 10).unwrap_err().code,
            ErrorCode::NoProgress
        );
    }
}
