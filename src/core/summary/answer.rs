//! A summarizer's answer made into summary text.
//!
//! Claude Code asks its summarizer to think first in an `<analysis>` block and then to write the
//! summary in a `<summary>` block, and keeps only the summary. Every answer goes through the same
//! rule here: when it holds an `<analysis>…</analysis>` block that the summary follows, the block
//! is dropped; a `<summary>…</summary>` wrapper around what is left is removed. Text without the
//! tags is returned trimmed and otherwise unchanged, so that a summary that merely mentions the
//! tags inside its prose is kept whole.

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
}
