//! The expected cost of compacting a history now, in each request mode (what `plan()` reports).
//!
//! Assumptions, in the absence of the caller's own requests: the model last saw every message
//! before its latest answer (an assistant message), with the system prompt and tools
//! (`systemTokens`) first; for Anthropic, that request carried a cache marker on its last message,
//! as agents that cache do. The continuing request adds the messages since and the instruction;
//! the transcript requests are the summary job's own pieces ([`pieces`]: the same chunks, so the
//! forecast counts a chunk exactly when the job sends one), each carrying the summarizer's system
//! prompt, the piece's template, the summary it builds on and its transcript.

use crate::core::error::Result;
use crate::core::message::{Message, Role};
use crate::core::plan::Plan;
use crate::core::settings::Settings;
use crate::core::summary::continuation::instruction;
use crate::core::summary::pieces::pieces;

use super::compaction::{estimate, CompactionCost, CostInput};
use super::price::Provider;

/// The cost of compacting `messages` (with `tokens` each) by `plan` in round `round`; `count`
/// estimates a text's tokens.
pub fn forecast(
    settings: &Settings,
    messages: &[Message],
    tokens: &[usize],
    plan: &Plan,
    round: u32,
    count: &dyn Fn(&str) -> usize,
) -> Result<CompactionCost> {
    let previous_len = messages
        .iter()
        .rposition(|m| m.role == Role::Assistant)
        .unwrap_or(messages.len());
    let marks: Vec<usize> = match (settings.cost.provider, previous_len.checked_sub(1)) {
        (Provider::Anthropic, Some(last)) => vec![last],
        _ => Vec::new(),
    };
    let summary_tokens = settings.plan.summary_tokens;
    let has_summary = plan.previous_summary.is_some();
    let instruction_text = instruction(
        &settings.templates,
        has_summary,
        None,
        summary_tokens,
        round,
    );
    let transcript_tokens = transcript_tokens(settings, messages, plan, count);
    let output = if plan.turn_prefix.is_some() {
        summary_tokens + settings.plan.prefix_summary_tokens
    } else {
        summary_tokens
    };
    estimate(&CostInput {
        provider: settings.cost.provider,
        prices: settings.cost.prices,
        min_tokens: settings.cost.min_tokens,
        ttl: settings.cost.ttl,
        system_tokens: settings.budget.system_tokens,
        message_tokens: tokens,
        previous_len,
        previous_marks: &marks,
        instruction_tokens: count(&instruction_text),
        transcript_tokens,
        output_tokens: output,
    })
}

/// The input tokens of the transcript requests the summary job would send for `plan`: the pieces
/// of [`pieces`] (the job's own), each request counted as the summarizer's system prompt, its
/// template, the summary it builds on (the earlier summary, or the previous chunk's answer at its
/// full budget) and its transcript. A plan with nothing to summarize sends nothing.
fn transcript_tokens(
    settings: &Settings,
    messages: &[Message],
    plan: &Plan,
    count: &dyn Fn(&str) -> usize,
) -> usize {
    let templates = &settings.templates;
    let Ok(p) = pieces(messages, plan, settings, templates, None, None, count) else {
        return 0;
    };
    let system = count(&templates.system);
    let earlier = p.previous_summary.as_deref().map_or(0, count);
    let several = p.history_chunks.len() > 1;
    let history = p.history_chunks.iter().enumerate().map(|(k, chunk)| {
        let template = match (several, earlier > 0) {
            (true, _) => &templates.chunk,
            (false, true) => &templates.update,
            (false, false) => &templates.history,
        };
        let carried = if k == 0 {
            earlier
        } else {
            settings.plan.summary_tokens
        };
        system + count(template) + carried + count(&chunk.transcript)
    });
    let turn_prefix = count(&templates.turn_prefix);
    let prefix = p.prefix_chunks.iter().enumerate().map(|(k, chunk)| {
        let carried = if k == 0 {
            0
        } else {
            settings.plan.prefix_summary_tokens
        };
        system + turn_prefix + carried + count(&chunk.transcript)
    });
    history.chain(prefix).sum()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::core::plan::{plan, PlanInput};
    use crate::core::preset::Preset;
    use crate::core::summary::SummaryMode;

    fn history(n: usize) -> Vec<Message> {
        (0..n)
            .map(|i| {
                let role = if i % 2 == 0 {
                    Role::User
                } else {
                    Role::Assistant
                };
                Message::text(role, format!("message {i} {}", "word ".repeat(2_000)))
            })
            .collect()
    }

    #[test]
    fn continuing_a_cached_conversation_costs_less_than_its_transcript() {
        let messages = history(40);
        let count = |t: &str| t.len() / 4;
        let tokens: Vec<usize> = messages.iter().map(|m| count(&m.plain_text())).collect();
        let settings = Preset::ClaudeCode.settings(200_000, 32_000);
        let p = plan(
            &PlanInput {
                messages: &messages,
                tokens: &tokens,
                part_cost: &|_| 0,
            },
            &settings.plan,
        )
        .unwrap();
        let cost = forecast(&settings, &messages, &tokens, &p, 1, &count).unwrap();
        let c = cost.of(SummaryMode::Continue);
        let t = cost.of(SummaryMode::Transcript);
        // The model last saw messages 0..39 (before its last answer, message 39).
        let seen: usize = tokens.iter().take(39).sum();
        assert_eq!(c.usage.read, seen);
        assert_eq!(c.usage.written(), 0);
        assert!(c.usage.fresh > tokens.last().copied().unwrap());
        assert_eq!(t.usage.read, 0);
        assert!(t.usage.fresh >= seen / 2, "{t:?}");
        assert!(
            c.input_equivalents < t.input_equivalents / 2.0,
            "{c:?} {t:?}"
        );
        assert_eq!(c.output_budget, settings.plan.summary_tokens);
    }

    #[test]
    fn the_transcript_side_counts_the_requests_the_job_sends() {
        // 40 messages of about 10,000 characters: over 120,000 characters, within the window.
        let messages = history(40);
        let count = |t: &str| t.len() / 4;
        let tokens: Vec<usize> = messages.iter().map(|m| count(&m.plain_text())).collect();
        let settings = Preset::ClaudeCode.settings(200_000, 32_000);
        assert!(settings.chunk_by_window);
        let p = plan(
            &PlanInput {
                messages: &messages,
                tokens: &tokens,
                part_cost: &|_| 0,
            },
            &settings.plan,
        )
        .unwrap();
        let job = crate::core::summary::SummaryJob::new(
            &messages,
            &p,
            &settings,
            settings.templates.clone(),
            None,
            None,
            1,
            &count,
        )
        .unwrap();
        assert_eq!(job.progress(), (0, 1), "one request, no chunk");
        let pieces = pieces(
            &messages,
            &p,
            &settings,
            &settings.templates,
            None,
            None,
            &count,
        )
        .unwrap();
        let transcript = &pieces.history_chunks[0].transcript;
        assert!(transcript.len() > 120_000);
        let t = forecast(&settings, &messages, &tokens, &p, 1, &count)
            .unwrap()
            .of(SummaryMode::Transcript)
            .usage
            .fresh;
        let expected = count(&settings.templates.system)
            + count(&settings.templates.history)
            + count(transcript);
        assert_eq!(t, expected);
    }
}
