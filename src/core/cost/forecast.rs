//! The expected cost of compacting a history now, in each request mode (what `plan()` reports).
//!
//! Assumptions, in the absence of the caller's own requests: the model last saw every message
//! before its latest answer (an assistant message), with the system prompt and tools
//! (`systemTokens`) first; for Anthropic, that request carried a cache marker on its last message,
//! as agents that cache do. The continuing request adds the messages since and the instruction;
//! the transcript requests carry the summarizer's system prompt, the piece's template, the earlier
//! summary and the transcript, and one more template and summary per extra chunk.

use crate::core::error::Result;
use crate::core::message::{Message, Role};
use crate::core::plan::{Disposition, Plan};
use crate::core::settings::Settings;
use crate::core::summary::continuation::instruction;
use crate::core::summary::serialize;

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
    let mut indices = plan.indices(Disposition::Summarize);
    indices.extend(plan.indices(Disposition::TurnPrefix));
    let transcript = serialize(messages, &indices, &settings.transcript);
    let template = if has_summary {
        &settings.templates.update
    } else {
        &settings.templates.history
    };
    let overhead = count(&settings.templates.system) + count(template);
    let chunks = transcript
        .len()
        .div_ceil(settings.chunk_chars.max(1))
        .max(1);
    let earlier = plan
        .previous_summary
        .and_then(|i| tokens.get(i))
        .copied()
        .unwrap_or(0);
    let transcript_tokens =
        count(&transcript) + overhead * chunks + earlier + (chunks - 1) * summary_tokens;
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
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
}
