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

use super::job::{PieceRequest, Purpose};
pub use super::mode::SummaryMode;
use super::prompt::{render, Templates, NONE};
use crate::core::settings::Settings;

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

/// The mode of one summarizer request. Only a piece that summarizes the whole history in one
/// request (`whole_history`) can continue the conversation: a chunk, a split turn's prefix or a
/// rollup covers part of it. A continuing request also has to fit the model's window: the system
/// prompt and tools (`system`), the conversation, the instruction and the answer; when it would
/// not, that request falls back to the transcript, which is what lets a compaction succeed once
/// the conversation outgrew the window.
pub fn request_mode(
    preferred: SummaryMode,
    whole_history: bool,
    window: usize,
    system: usize,
    conversation: usize,
    instruction: usize,
    answer: usize,
) -> SummaryMode {
    let needed = system
        .saturating_add(conversation)
        .saturating_add(instruction)
        .saturating_add(answer);
    match preferred {
        SummaryMode::Continue if whole_history && needed <= window => SummaryMode::Continue,
        _ => SummaryMode::Transcript,
    }
}

/// The mode of `piece`'s request under `settings` ([`request_mode`]), with the instruction to
/// send after the conversation when it continues. `conversation`: the tokens of the caller's
/// conversation, `None` when it cannot be sent (the transcript then); `count` estimates a text's
/// tokens.
pub fn piece_mode(
    settings: &Settings,
    piece: &PieceRequest,
    conversation: Option<usize>,
    count: &dyn Fn(&str) -> usize,
) -> (SummaryMode, Option<String>) {
    let Some(tokens) = conversation else {
        return (SummaryMode::Transcript, None);
    };
    let text = instruction(
        &settings.templates,
        piece.previous_summary.is_some(),
        piece.instructions.as_deref(),
        piece.max_tokens,
        piece.round,
    );
    let mode = request_mode(
        settings.summary_mode,
        piece.purpose == Purpose::History,
        settings.budget.context_window,
        settings.budget.system_tokens,
        tokens,
        count(&text),
        piece.max_tokens,
    );
    match mode {
        SummaryMode::Continue => (mode, Some(text)),
        SummaryMode::Transcript => (mode, None),
    }
}

/// Where Anthropic cache markers go in a continuing request: indices of the conversation's
/// messages. The caller's own markers (`marked`), when its messages carry any, stay as they are
/// (the prefix stays byte-identical); otherwise one marker goes on `previous_tail`, the last
/// message of the model's previous request (the message before its latest answer), where an agent
/// that caches marked it. Anthropic reads a prefix only up to a marker of the request itself, so
/// the whole conversation the model saw is read from the cache, and the answer, the messages since
/// and the instruction after the last cached block are fresh input: nothing is written. At most
/// `max − reserved` markers (`reserved` sit on the system prompt or tools): the latest are kept.
pub fn cache_marks(
    marked: &[usize],
    previous_tail: Option<usize>,
    reserved: usize,
    max: usize,
) -> Vec<usize> {
    let mut out: Vec<usize> = marked.to_vec();
    out.sort_unstable();
    out.dedup();
    if out.is_empty() {
        out.extend(previous_tail);
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
    fn a_request_continues_only_for_the_whole_history_within_the_window() {
        let (c, t) = (SummaryMode::Continue, SummaryMode::Transcript);
        assert_eq!(request_mode(c, true, 1_000, 100, 600, 100, 200), c);
        // One token over the window: the transcript.
        assert_eq!(request_mode(c, true, 1_000, 100, 601, 100, 200), t);
        assert_eq!(request_mode(c, false, 1_000, 0, 10, 10, 10), t);
        assert_eq!(request_mode(t, true, 1_000, 0, 10, 10, 10), t);
        assert_eq!(
            request_mode(c, true, usize::MAX - 1, usize::MAX, 1, 1, 1),
            t
        );
    }

    #[test]
    fn a_piece_continues_with_its_instruction_only_when_it_fits() {
        let mut settings = Settings::new(10_000);
        settings.summary_mode = SummaryMode::Continue;
        let piece = PieceRequest {
            id: super::super::job::PieceId(0),
            purpose: Purpose::History,
            system: String::new(),
            prompt: String::new(),
            transcript: String::new(),
            message_indices: Vec::new(),
            previous_summary: None,
            instructions: Some("keep the SQL".into()),
            max_tokens: 1_000,
            round: 1,
        };
        let count = |t: &str| t.len() / 4;
        let (mode, text) = piece_mode(&settings, &piece, Some(2_000), &count);
        assert_eq!(mode, SummaryMode::Continue);
        assert!(text.is_some_and(|t| t.contains("keep the SQL")));
        // The conversation leaves no room for the answer, or cannot be sent: the transcript.
        assert_eq!(
            piece_mode(&settings, &piece, Some(9_500), &count),
            (SummaryMode::Transcript, None)
        );
        assert_eq!(
            piece_mode(&settings, &piece, None, &count),
            (SummaryMode::Transcript, None)
        );
        let chunk = PieceRequest {
            purpose: Purpose::Chunk,
            ..piece
        };
        assert_eq!(
            piece_mode(&settings, &chunk, Some(10), &count).0,
            SummaryMode::Transcript
        );
    }

    #[test]
    fn marks_keep_the_callers_or_mark_the_previous_requests_tail() {
        assert_eq!(cache_marks(&[3, 7], Some(8), 0, 4), vec![3, 7]);
        assert_eq!(cache_marks(&[], Some(8), 1, 4), vec![8]);
        assert_eq!(cache_marks(&[], None, 0, 4), Vec::<usize>::new());
        // Five, one more on the system prompt: the earliest message markers give way.
        assert_eq!(cache_marks(&[1, 2, 4, 6, 9], None, 1, 4), vec![4, 6, 9]);
    }
}
