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
}

impl Counter {
    /// Tokens of `text`.
    pub fn count(&self, text: &str) -> usize {
        if text.is_empty() {
            return 0;
        }
        match self {
            Counter::Heuristic => heuristic::estimate(text),
            Counter::Exact(encoding) => encoding.count(text),
        }
    }

    /// The encoding counted with, `None` for the heuristic.
    pub fn encoding(&self) -> Option<EncodingName> {
        match self {
            Counter::Heuristic => None,
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
    fn heuristic_counts_and_empty_is_zero() {
        let c = Counter::default();
        assert_eq!(c.count(""), 0);
        assert_eq!(c.count("hello world"), heuristic::estimate("hello world"));
        assert!(c.count("hello world") >= 2);
        assert_eq!(c.encoding(), None);
        assert!(!c.is_exact());
    }
}
