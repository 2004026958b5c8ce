//! A summarizer's answer made into summary text.
//!
//! Claude Code asks its summarizer to think first in an `<analysis>` block and then to write the
//! summary in a `<summary>` block, and keeps only the summary. Every answer goes through the same
//! rule here: when it holds an `<analysis>…</analysis>` block that the summary follows, the block
//! is dropped; a `<summary>…</summary>` wrapper around what is left is removed. Text without the
//! tags is returned trimmed and otherwise unchanged, so that a summary that merely mentions the
//! tags inside its prose is kept whole.
//!
//! An answer (or a summary a hook supplies) longer than [`MAX_ANSWER_UNITS`] UTF-16 units is
//! refused before it is copied ([`check_length`]): no model writes that much, and copying a
//! runaway answer could exhaust the module's memory while the compaction awaits.

use crate::core::error::{Error, ErrorCode, Result};

/// The most UTF-16 units (JS string length) an answer may hold: 4 Mi, about a million tokens.
pub const MAX_ANSWER_UNITS: usize = 1 << 22;

/// Refuses an answer of `units` UTF-16 units past [`MAX_ANSWER_UNITS`] (`SUMMARIZER_FAILED`;
/// `what` names where it came from).
pub fn check_length(units: usize, what: &str) -> Result<()> {
    if units <= MAX_ANSWER_UNITS {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::SummarizerFailed,
        format!(
            "{what} holds {units} characters, over the {MAX_ANSWER_UNITS} a summary may hold; nothing was changed"
        ),
    ))
}

const ANALYSIS_OPEN: &str = "<analysis>";
const ANALYSIS_CLOSE: &str = "</analysis>";
const SUMMARY_OPEN: &str = "<summary>";
const SUMMARY_CLOSE: &str = "</summary>";

/// `answer` without its analysis scratchpad and summary tags (see the module documentation).
pub fn summary_text(answer: &str) -> String {
    let mut text = answer.trim();
    if let Some(rest) = text.strip_prefix(ANALYSIS_OPEN) {
        match rest.find(ANALYSIS_CLOSE) {
            Some(end) => {
                let after = rest.get(end + ANALYSIS_CLOSE.len()..).unwrap_or_default();
                // Only the analysis and nothing else: keep it rather than lose the answer.
                if !after.trim().is_empty() {
                    text = after.trim();
                }
            }
            // An analysis that never closes, with a summary after it: take the summary.
            None => {
                if let Some(at) = rest.rfind(SUMMARY_OPEN) {
                    text = rest.get(at..).unwrap_or_default().trim();
                }
            }
        }
    }
    if let Some(inner) = text.strip_prefix(SUMMARY_OPEN) {
        let inner = inner.trim_end();
        let inner = inner.strip_suffix(SUMMARY_CLOSE).unwrap_or(inner);
        if !inner.contains(SUMMARY_OPEN) && !inner.trim().is_empty() {
            text = inner.trim();
        }
    }
    text.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_the_analysis_and_unwraps_the_summary() {
        let a =
            "<analysis>\nLet me think.\n</analysis>\n\n<summary>\n1. Primary Request\n</summary>";
        assert_eq!(summary_text(a), "1. Primary Request");
        assert_eq!(summary_text("  plain summary \n"), "plain summary");
        assert_eq!(
            summary_text("<analysis>only thinking</analysis>"),
            "<analysis>only thinking</analysis>"
        );
        assert_eq!(summary_text("<analysis>unclosed <summary>S</summary>"), "S");
        let prose = "We discussed the <analysis> tag and <summary> tag.";
        assert_eq!(summary_text(prose), prose);
        assert_eq!(
            summary_text("<summary>a</summary> <summary>b</summary>"),
            "<summary>a</summary> <summary>b</summary>"
        );
    }

    #[test]
    fn answers_past_the_limit_are_refused() {
        assert!(check_length(MAX_ANSWER_UNITS, "the answer").is_ok());
        let error = check_length(MAX_ANSWER_UNITS + 1, "the answer").err();
        assert_eq!(error.map(|e| e.code), Some(ErrorCode::SummarizerFailed));
    }
}
