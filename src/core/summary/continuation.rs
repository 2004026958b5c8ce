//! The two shapes of a summary request, and the "continue the conversation" shape's parts.
//!
//! - [`SummaryMode::Transcript`]: the summarized messages serialized into a prompt under the
//!   summarizer's own system prompt (any model can answer it).
//! - [`SummaryMode::Continue`]: the conversation exactly as the model last saw it (the caller's
//!   messages, after the same rendering), then the summary instruction as the final user message.
//!   The caller sends it with its own system prompt and tools, so the prefix is byte-identical to
//!   its previous request and the provider reads it from the prompt cache. Claude Code, Codex and
//!   OpenCode compact this way.
//!
//! The instruction is the piece's own template (history, or update when the conversation starts
//! with an earlier summary) with the transcript and the earlier summary pointing at the
//! conversation above, after a lead that tells the model to stop the task and answer with text.

use super::prompt::{render, Templates, NONE};

/// Which request a compaction hands the summarizer by default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SummaryMode {
    /// A transcript prompt under the summarizer's system prompt.
    Transcript,
    /// The conversation continued with the summary instruction.
    Continue,
}

impl SummaryMode {
    /// `"transcript"` or `"continue"`.
    pub fn as_str(self) -> &'static str {
        match self {
            SummaryMode::Transcript => "transcript",
            SummaryMode::Continue => "continue",
        }
    }

    /// Parses a name of [`SummaryMode::as_str`].
    pub fn parse(name: &str) -> Option<SummaryMode> {
        match name {
            "transcript" => Some(SummaryMode::Transcript),
            "continue" => Some(SummaryMode::Continue),
            _ => None,
        }
    }
}

/// The lead of the continuing instruction; `{round}` is the compaction round.
pub const CONTINUE_LEAD: &str = "Stop working on the task for a moment: the conversation above \
is about to be replaced by a summary (compaction round {round}), and you write it now. Answer with \
the summary as plain text; call no tools.";

/// What the transcript placeholder says in a continuing instruction.
pub const CONVERSATION_ABOVE: &str = "(the conversation above, up to this message)";

/// What the earlier-summary placeholder says when the conversation starts with one.
pub const SUMMARY_ABOVE: &str = "(the earlier summary at the start of the conversation above)";

/// The final user message of a continuing request. `has_previous_summary`: the conversation
/// starts with an earlier compaction's summary (the update template is used).
pub fn instruction(
    templates: &Templates,
    has_previous_summary: bool,
    instructions: Option<&str>,
    max_tokens: usize,
    round: u32,
) -> String {
    let template = if has_previous_summary {
        &templates.update
    } else {
        &templates.history
    };
    let round = round.to_string();
    let max = max_tokens.to_string();
    let previous = if has_previous_summary {
        SUMMARY_ABOVE
    } else {
        NONE
    };
    let vars = [
        ("transcript", CONVERSATION_ABOVE),
        ("previous_summary", previous),
        ("instructions", instructions.unwrap_or(NONE)),
        ("max_tokens", max.as_str()),
        ("round", round.as_str()),
        ("part", "1"),
        ("parts", "1"),
    ];
    format!(
        "{}\n\n{}",
        render(CONTINUE_LEAD, &vars),
        render(template, &vars)
    )
}

/// Where Anthropic cache markers go in a continuing request of `len` conversation messages whose
/// messages `marked` already carry one, when `reserved` markers sit on the system prompt or tools:
/// the markers kept as they are, plus one on the last conversation message (so the instruction
/// lands right after the last cached block), dropping the earliest message markers when the
/// request would carry more than `max` in all. Ascending message indices. A conversation without
/// markers gets none: it uses no cache, and a marker would only bill its tokens as a write.
pub fn cache_marks(marked: &[usize], len: usize, reserved: usize, max: usize) -> Vec<usize> {
    let mut out: Vec<usize> = marked.iter().copied().filter(|&i| i < len).collect();
    if out.is_empty() {
        return out;
    }
    out.sort_unstable();
    out.dedup();
    if let Some(last) = len.checked_sub(1) {
        if !out.contains(&last) {
            out.push(last);
        }
    }
    let room = max.saturating_sub(reserved);
    let excess = out.len().saturating_sub(room);
    out.drain(..excess);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_instruction_points_at_the_conversation_above() {
        let t = Templates::default();
        let text = instruction(&t, false, Some("keep the SQL"), 4_000, 2);
        assert!(text.starts_with("Stop working on the task"));
        assert!(text.contains("compaction round 2"));
        assert!(text.contains(CONVERSATION_ABOVE));
        assert!(text.contains("keep the SQL"));
        assert!(text.contains("at most 4000 tokens"));
        assert!(!text.contains("{transcript}"));
        let update = instruction(&t, true, None, 100, 3);
        assert!(update.contains(SUMMARY_ABOVE));
        assert_eq!(SummaryMode::parse("continue"), Some(SummaryMode::Continue));
        assert_eq!(
            SummaryMode::parse(SummaryMode::Transcript.as_str()),
            Some(SummaryMode::Transcript)
        );
        assert_eq!(SummaryMode::parse("chat"), None);
    }

    #[test]
    fn marks_keep_the_callers_and_end_on_the_last_message() {
        assert_eq!(cache_marks(&[3], 10, 0, 4), vec![3, 9]);
        assert_eq!(cache_marks(&[9], 10, 1, 4), vec![9]);
        // Four already, one on the system prompt: the earliest message markers give way.
        assert_eq!(cache_marks(&[1, 4, 6], 10, 1, 4), vec![4, 6, 9]);
        assert_eq!(cache_marks(&[], 0, 0, 4), Vec::<usize>::new());
        assert_eq!(cache_marks(&[12], 10, 0, 4), Vec::<usize>::new());
    }
}
