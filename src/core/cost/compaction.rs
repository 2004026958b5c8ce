//! The cost of one compaction in each request mode, from the conversation the model last saw.
//!
//! The previous request is the caller's system prompt and tools (one block) and the first
//! `previous_len` messages, with cache markers on `previous_marks` (Anthropic; none: the caller
//! does not cache). The continuing request is the same prefix, every message rendered since, and
//! the summary instruction; when the caller caches, its Anthropic marker is [`cache_marks`]' (on
//! the previous request's last message, the caller's stored messages carrying none). The
//! transcript request shares no prefix with the conversation (its own system prompt first), so the
//! provider reads nothing from the cache.

use crate::core::error::Result;
use crate::core::summary::continuation::cache_marks;
use crate::core::summary::SummaryMode;

use super::price::{Prices, Provider};
use super::request::{key_of, Block, Request, Ttl};
use super::rules::{bill, ANTHROPIC_MAX_BREAKPOINTS};
use super::usage::CacheUsage;

/// What a cost estimate needs to know.
#[derive(Clone, Debug)]
pub struct CostInput<'a> {
    /// Whose cache rules and prices apply.
    pub provider: Provider,
    /// The price table.
    pub prices: Prices,
    /// Overrides the provider's shortest cacheable prefix.
    pub min_tokens: Option<usize>,
    /// The TTL of the markers the caller places (Anthropic).
    pub ttl: Ttl,
    /// The caller's system prompt and tools, in tokens (0 when unknown).
    pub system_tokens: usize,
    /// Tokens of each message of the conversation as it would be sent now.
    pub message_tokens: &'a [usize],
    /// How many leading messages the model's last request held.
    pub previous_len: usize,
    /// Messages that carried a cache marker in that request.
    pub previous_marks: &'a [usize],
    /// The continuing request's final instruction, in tokens.
    pub instruction_tokens: usize,
    /// The transcript requests' system prompts and prompts, in tokens.
    pub transcript_tokens: usize,
    /// The summarizer's output budget (the request's `maxTokens`).
    pub output_tokens: usize,
}

/// One request mode's cost.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModeCost {
    /// The mode.
    pub mode: SummaryMode,
    /// Fresh, read and written input tokens.
    pub usage: CacheUsage,
    /// The input in fresh-token equivalents.
    pub input_equivalents: f64,
    /// The output budget, in tokens.
    pub output_budget: usize,
    /// USD, with the whole output budget spent.
    pub dollars: f64,
}

/// A compaction's cost in both modes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CompactionCost {
    /// The provider the numbers are for.
    pub provider: Provider,
    /// The conversation continued with the instruction.
    pub continued: ModeCost,
    /// The transcript prompt.
    pub transcript: ModeCost,
}

impl CompactionCost {
    /// The cost of `mode`.
    pub fn of(&self, mode: SummaryMode) -> &ModeCost {
        match mode {
            SummaryMode::Continue => &self.continued,
            SummaryMode::Transcript => &self.transcript,
        }
    }
}

const SYSTEM_KEY: u64 = 0x5157_0000;
const INSTRUCTION_KEY: u64 = 0x1257_0000;

fn message_block(index: usize, tokens: usize) -> Block {
    Block::new(tokens, key_of(&index.to_le_bytes()))
}

/// The previous request and the continuing one, as the provider sees them.
pub fn requests(input: &CostInput<'_>) -> (Request, Request) {
    let marked = |i: usize, marks: &[usize], b: Block| {
        if input.provider == Provider::Anthropic && marks.contains(&i) {
            b.cached(input.ttl)
        } else {
            b
        }
    };
    let system = Block::new(input.system_tokens, SYSTEM_KEY);
    let previous_len = input.previous_len.min(input.message_tokens.len());
    let mut previous = vec![system];
    previous.extend(
        input
            .message_tokens
            .iter()
            .take(previous_len)
            .enumerate()
            .map(|(i, &t)| marked(i, input.previous_marks, message_block(i, t))),
    );
    let marks = if input.previous_marks.is_empty() {
        Vec::new()
    } else {
        cache_marks(
            &[],
            previous_len.checked_sub(1),
            0,
            ANTHROPIC_MAX_BREAKPOINTS,
        )
    };
    let mut next = vec![system];
    next.extend(
        input
            .message_tokens
            .iter()
            .enumerate()
            .map(|(i, &t)| marked(i, &marks, message_block(i, t))),
    );
    next.push(Block::new(input.instruction_tokens, INSTRUCTION_KEY));
    (Request::new(previous), Request::new(next))
}

/// The cost of compacting now in each mode. Errors: `INVALID_INPUT` when the caller's markers
/// exceed Anthropic's limit.
pub fn estimate(input: &CostInput<'_>) -> Result<CompactionCost> {
    let (previous, next) = requests(input);
    let priced = |mode: SummaryMode, usage: CacheUsage| ModeCost {
        mode,
        usage,
        input_equivalents: input.prices.input_equivalents(&usage),
        output_budget: input.output_tokens,
        dollars: input.prices.dollars(&usage, input.output_tokens),
    };
    let continued = bill(input.provider, input.min_tokens, Some(&previous), &next)?;
    let transcript = Request::new(vec![Block::new(
        input.transcript_tokens,
        key_of(b"transcript"),
    )]);
    let transcript = bill(
        input.provider,
        input.min_tokens,
        Some(&previous),
        &transcript,
    )?;
    Ok(CompactionCost {
        provider: input.provider,
        continued: priced(SummaryMode::Continue, continued),
        transcript: priced(SummaryMode::Transcript, transcript),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn input<'a>(provider: Provider, tokens: &'a [usize], marks: &'a [usize]) -> CostInput<'a> {
        CostInput {
            provider,
            prices: Prices::of(provider),
            min_tokens: None,
            ttl: Ttl::OneHour,
            system_tokens: 20_000,
            message_tokens: tokens,
            previous_len: tokens.len() - 2,
            previous_marks: marks,
            instruction_tokens: 800,
            transcript_tokens: 50_000,
            output_tokens: 8_000,
        }
    }

    #[test]
    fn continuing_reads_the_cached_conversation_and_costs_less_than_a_transcript() {
        // 150k tokens the model saw (marked at its end), 3k since, an 800-token instruction.
        let tokens = [40_000, 60_000, 50_000, 2_000, 1_000];
        let cost = estimate(&input(Provider::Anthropic, &tokens, &[2])).unwrap();
        let c = cost.continued.usage;
        // Read up to the previous request's tail; the answer since and the instruction are fresh.
        assert_eq!(
            c,
            CacheUsage {
                fresh: 3_800,
                read: 170_000,
                write_5m: 0,
                write_1h: 0
            }
        );
        assert!((cost.continued.input_equivalents - (3_800.0 + 17_000.0)).abs() < 1e-6);
        assert_eq!(
            cost.transcript.usage,
            CacheUsage {
                fresh: 50_000,
                ..CacheUsage::default()
            }
        );
        assert!(cost.continued.input_equivalents < cost.transcript.input_equivalents);
        assert_eq!(cost.of(SummaryMode::Transcript).output_budget, 8_000);

        // OpenAI: the shared 173k prefix (less the 128-token step) is read, nothing written.
        let cost = estimate(&input(Provider::OpenAi, &tokens, &[])).unwrap();
        let shared = 20_000 + 150_000;
        let read = 1_024 + (shared - 1_024) / 128 * 128;
        assert_eq!(cost.continued.usage.read, read);
        assert_eq!(cost.continued.usage.total(), 173_800);

        // No cache: the continuing request sends the whole conversation fresh.
        let cost = estimate(&input(Provider::None, &tokens, &[2])).unwrap();
        assert_eq!(cost.continued.usage.fresh, 173_800);
        assert!(cost.continued.input_equivalents > cost.transcript.input_equivalents);
    }

    #[test]
    fn an_unmarked_anthropic_conversation_gets_no_marker_and_reads_nothing() {
        let tokens = [40_000, 60_000, 5_000];
        let cost = estimate(&input(Provider::Anthropic, &tokens, &[])).unwrap();
        assert_eq!(
            cost.continued.usage,
            CacheUsage {
                fresh: 125_800,
                ..CacheUsage::default()
            }
        );
    }
}
