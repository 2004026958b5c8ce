//! The circuit breaker of automatic compaction: after `max` failures in a row, `maybeCompact` stops
//! compacting (and says so) until a compaction succeeds; a manual `compact()` always runs.

/// Counts consecutive failures of automatic compactions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Breaker {
    failures: u32,
    max: u32,
}

impl Breaker {
    /// Closed, opening after `max` failures in a row.
    pub fn new(max: u32) -> Breaker {
        Breaker { failures: 0, max }
    }

    /// True when automatic compaction is off.
    pub fn is_open(&self) -> bool {
        self.failures >= self.max
    }

    /// A compaction succeeded: closes the breaker.
    pub fn success(&mut self) {
        self.failures = 0;
    }

    /// An automatic compaction failed.
    pub fn failure(&mut self) {
        self.failures = self.failures.saturating_add(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opens_after_max_failures_in_a_row_and_closes_on_success() {
        let mut b = Breaker::new(3);
        b.failure();
        b.failure();
        assert!(!b.is_open());
        b.success();
        b.failure();
        b.failure();
        assert!(!b.is_open());
        b.failure();
        assert!(b.is_open());
        b.success();
        assert!(!b.is_open());
    }
}
