//! Text counting: the heuristic estimate or an exact tiktoken encoding.

use std::rc::Rc;

use crate::core::tokens::{heuristic, Encoding, EncodingName};

/// Counts the tokens of a piece of text. Never panics; the empty text counts 0.
#[derive(Clone, Debug, Default)]
pub enum Counter {
    /// [`heuristic::estimate`]: fast, content-aware, approximates `o200k_base`.
    #[default]
    Heuristic,
    /// The exact count of a loaded encoding ([`Encoding::count`]).
    Exact(Rc<Encoding>),
    /// `ceil(characters / n)`: the flat estimate some agents use (seed 001: 4, seed 004: 3), so
    /// that their presets trigger where they do. `n` of 0 counts as 1.
    CharsPerToken(u32),
}

impl Counter {
    /// The exact count of `exact` when given, the heuristic otherwise.
    pub fn of(exact: Option<Rc<Encoding>>) -> Counter {
        exact.map_or(Counter::Heuristic, Counter::Exact)
    }

    /// Tokens of `text`.
    pub fn count(&self, text: &str) -> usize {
        if text.is_empty() {
            return 0;
        }
        match self {
            Counter::Heuristic => heuristic::estimate(text),
            Counter::Exact(encoding) => encoding.count(text),
            Counter::CharsPerToken(n) => text.chars().count().div_ceil((*n).max(1) as usize),
        }
    }

    /// A value that differs between counters that count differently (for cache keys).
    pub fn identity(&self) -> (Option<EncodingName>, u32) {
        match self {
            Counter::Heuristic => (None, 0),
            Counter::Exact(encoding) => (Some(encoding.name()), 0),
            Counter::CharsPerToken(n) => (None, (*n).max(1)),
        }
    }

    /// The encoding counted with, `None` for the heuristic.
    pub fn encoding(&self) -> Option<EncodingName> {
        match self {
            Counter::Heuristic | Counter::CharsPerToken(_) => None,
            Counter::Exact(encoding) => Some(encoding.name()),
        }
    }

    /// True for the exact counter (where caching pays off).
    pub fn is_exact(&self) -> bool {
        matches!(self, Counter::Exact(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chars_per_token_is_the_flat_estimate() {
        assert_eq!(Counter::CharsPerToken(4).count("abcdefghi"), 3);
        assert_eq!(Counter::CharsPerToken(3).count("上下文"), 1);
        assert_eq!(Counter::CharsPerToken(0).count("ab"), 2);
        assert_ne!(
            Counter::CharsPerToken(3).identity(),
            Counter::CharsPerToken(4).identity()
        );
    }

    #[test]
    fn heuristic_counts_and_empty_is_zero() {
        let c = Counter::default();
        assert_eq!(c.count(""), 0);
        assert_eq!(c.count("hello world"), heuristic::estimate("hello world"));
        assert!(c.count("hello world") >= 2);
        assert_eq!(c.encoding(), None);
        assert!(!c.is_exact());
    }
}
