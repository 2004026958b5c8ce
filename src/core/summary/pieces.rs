//! The pieces of one compaction's summary: which messages the history and a split turn's prefix
//! hold, the earlier summary they build on, and the chunks each is sent in. One function builds
//! them for the summary job ([`super::job::SummaryJob`]) and for the cost forecast
//! ([`crate::core::cost::forecast`]), so the forecast counts the requests the job sends.
//!
//! The history is the messages planned `Summarize`, without the earlier summary (which travels as
//! `previous_summary`) and without messages before it, which it already covers, plus the plan's
//! overlap messages; the prefix is the split turn's `TurnPrefix` messages (the history itself when
//! nothing older precedes it). Each is cut into chunks at message boundaries by the settings'
//! rule: past `chunk_chars` characters, or with `chunk_by_window` only when the request would not
//! fit the summarizer's window ([`WindowCapacity`]); and past `summarizer_input_tokens` when set.

use std::collections::HashSet;

use crate::core::error::{Error, ErrorCode, Result};
use crate::core::message::Message;
use crate::core::plan::{Disposition, Plan};
use crate::core::settings::Settings;

use super::chunk::{Chunk, Chunker, WindowCapacity};
use super::prompt::Templates;
use super::recognize::Recognizer;
use super::transcript::{entries, separator};

/// What the summarizer is sent for one compaction, before prompts are rendered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pieces {
    /// The earlier summary the history builds on.
    pub previous_summary: Option<String>,
    /// Indices of the history's messages (overlap messages not included).
    pub history: Vec<usize>,
    /// Indices of the split turn's prefix.
    pub prefix: Vec<usize>,
    /// The text of the conversation's first user turn (`Unknown task` when there is none).
    pub original_task: String,
    /// The history's chunks, in order (none when there is no new history).
    pub history_chunks: Vec<Chunk>,
    /// The prefix's chunks, in order.
    pub prefix_chunks: Vec<Chunk>,
}

/// The pieces of `plan` over `messages` (see the module documentation). `previous_summary` is the
/// earlier summary to build on; when `None` and the plan names an earlier summary message, that
/// message's text (without `settings.summary.prefix`) is used. `instructions` and the original
/// task count toward a request's size when chunking by the window.
///
/// Errors: `INVALID_INPUT` when the plan does not match the messages or summarizes nothing (no
/// history, no turn prefix and no earlier summary).
pub fn pieces(
    messages: &[Message],
    plan: &Plan,
    settings: &Settings,
    templates: &Templates,
    previous_summary: Option<String>,
    instructions: Option<&str>,
    estimate: &dyn Fn(&str) -> usize,
) -> Result<Pieces> {
    if plan.dispositions.len() != messages.len() {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            format!(
                "the plan has {} dispositions for {} messages",
                plan.dispositions.len(),
                messages.len()
            ),
        ));
    }
    let earlier = plan.previous_summary.filter(|&i| {
        plan.dispositions.get(i) == Some(&Disposition::Summarize)
            && messages.get(i).is_some_and(|m| m.summary)
    });
    let previous_summary = previous_summary
        .or_else(|| {
            let text = messages.get(earlier?)?.plain_text();
            Some(Recognizer::with(&settings.summary).body(&text))
        })
        .filter(|s| !s.trim().is_empty());
    let covered_up_to = earlier.filter(|_| previous_summary.is_some());
    let overlap: HashSet<usize> = plan.overlap.iter().copied().collect();
    let mut history: Vec<usize> = plan
        .indices(Disposition::Summarize)
        .into_iter()
        .filter(|&i| covered_up_to.is_none_or(|s| i > s))
        .collect();
    let mut prefix = plan.indices(Disposition::TurnPrefix);
    if history.is_empty() && previous_summary.is_none() {
        // Nothing older than the prefix: the prefix is the history.
        history = std::mem::take(&mut prefix);
    }
    if history.is_empty() && prefix.is_empty() && previous_summary.is_none() {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            "nothing to summarize: the plan summarizes no message and there is no earlier summary",
        ));
    }
    let original_task = messages
        .iter()
        .find(|m| m.is_user_turn_start())
        .map(|m| m.plain_text())
        .filter(|t| !t.trim().is_empty())
        .unwrap_or_else(|| "Unknown task".to_string());
    let mut history_with_overlap = history.clone();
    if !history.is_empty() {
        history_with_overlap.extend(plan.overlap.iter().filter(|i| !history.contains(i)));
    }
    let history_entries = entries(messages, &history_with_overlap, &settings.transcript, 1);
    let sep = separator(&settings.transcript);
    let (char_limit, token_limit) = if settings.chunk_by_window {
        let capacity = WindowCapacity::of(
            settings,
            templates,
            [instructions, Some(original_task.as_str())],
            previous_summary.as_deref(),
            estimate,
        );
        let limit = capacity.token_limit_for(&history_entries, sep, estimate);
        let limit = settings
            .summarizer_input_tokens
            .map_or(limit, |t| t.min(limit));
        (usize::MAX, Some(limit))
    } else {
        (
            settings.chunk_chars.max(1),
            settings.summarizer_input_tokens,
        )
    };
    let chunker = Chunker {
        estimate,
        char_limit,
        token_limit,
        overlap: &overlap,
        separator: sep,
    };
    let history_chunks = chunker.chunks(history_entries);
    let prefix_chunks = if prefix.is_empty() {
        Vec::new()
    } else {
        chunker.chunks(entries(messages, &prefix, &settings.transcript, 1))
    };
    Ok(Pieces {
        previous_summary,
        history,
        prefix,
        original_task,
        history_chunks,
        prefix_chunks,
    })
}
