//! The resolved configuration of a compaction: when (trigger and budget), what is kept (plan
//! options), how the summary is injected, how tokens are counted and how the summarizer's input is
//! shaped. Presets fill it ([`crate::core::preset`]); explicit options override single fields.

use crate::core::cost::CostSettings;
use crate::core::cut::{Direction, TurnBoundary};
use crate::core::error::{Error, Result};
use crate::core::message::Role;
use crate::core::plan::{PlanOptions, PruneSettings, Strategy};
use crate::core::summary::{SummaryMode, Templates};
use crate::core::trigger::{Budget, Trigger};

/// The default [`SummaryStyle::suffix`]: the round, on a line of its own after the summary.
pub const ROUND_MARKER: &str = "\n\n(compaction round {round})";

/// The shadow prompt of seed 002's recursive strategy: the user turn that the summary answers.
pub const SHADOW_PROMPT: &str = "Summarize the conversation so far, building on any prior summary.";

/// How the summary enters the compacted context.
#[derive(Clone, Debug, PartialEq)]
pub struct SummaryStyle {
    /// The role of the summary message.
    pub role: Role,
    /// Text put before the summary in that message; `{round}` is replaced by the round.
    pub prefix: String,
    /// Text put after the summary; `{round}` is replaced by the round. By default a short round
    /// marker, so that a later compaction (even by a fresh `Compactor`) continues the numbering.
    pub suffix: String,
    /// From round 2 on, this line follows the summary (before the suffix); `{previous_rounds}` is
    /// the number of earlier rounds (seed 001's "incorporates context from N−1 rounds").
    pub later_rounds_note: Option<String>,
    /// When set, a user message with this text precedes the summary, which is then an assistant
    /// message (OpenCode's "What did we do so far?", seed 002's shadow prompt).
    pub question: Option<String>,
    /// When set, a user message with this text follows the summary after an automatic compaction
    /// (OpenCode's "continue").
    pub continue_message: Option<String>,
    /// What joins the history summary and the summary of a split turn's prefix (ours: a
    /// `## Turn Context (split turn)` heading; pi's: a `---` line, then `**Turn Context (split
    /// turn):**`).
    pub turn_context: String,
}

/// How the summarizer's transcript is built.
#[derive(Clone, Debug, PartialEq)]
pub struct TranscriptOptions {
    /// Tool outputs longer than this many characters are cut in the transcript.
    pub tool_output_chars: usize,
    /// Include reasoning parts.
    pub include_reasoning: bool,
    /// When set, only tools whose name is listed or starts with a listed prefix (entries ending in
    /// `*`) appear in the transcript (seed 004).
    pub tool_allow: Option<Vec<String>>,
    /// How entries are written.
    pub style: TranscriptStyle,
    /// Trim long tool outputs, tool-call inputs and repeated outputs to what the summarizer's
    /// prompt needs ([`crate::core::summary::trim`]); seed 001's layout ignores it.
    pub trim: bool,
}

/// The layout of a transcript.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TranscriptStyle {
    /// Ours: numbered from 1, `[tool call]` / `[tool result]` lines, blank lines between entries
    /// (see [`crate::core::summary::transcript`]).
    #[default]
    Standard,
    /// Seed 001's `formatMessagesForSummary`: numbered from 0, `[Tool: name(args)]` and
    /// `[Result: …...]` (500 characters) lines, each message cut at 2,000 characters with
    /// `[...truncated...]`, entries separated by `---` lines.
    Seed001,
}

/// How text is counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Estimation {
    /// The content-aware heuristic.
    Heuristic,
    /// `ceil(characters / n)` (seeds 001 and 004).
    CharsPerToken(u32),
}

/// Everything a compaction needs to know besides the messages and the summarizer.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// The window and what is reserved in it.
    pub budget: Budget,
    /// The budget's own reserves may use up a small window (seed 001, whose formula goes negative
    /// for an 8,192-token model): the token threshold is then 0, the trigger's message count
    /// decides, and a compacted context must fit `window − reserveTokens`.
    pub empty_budget_allowed: bool,
    /// A session's compaction never keeps the messages its previous compaction kept, only those
    /// logged after that compaction (seed 000: "don't cross the first compaction boundary"; pi's
    /// cut points start after the previous compaction entry). They are summarized instead.
    pub keep_after_compaction: bool,
    /// `safetyMargin: "auto"`: the margin is the expected error of each count (in proportion to
    /// what is estimated rather than reported), instead of `budget.safety_margin`.
    pub auto_margin: bool,
    /// When to compact.
    pub trigger: Trigger,
    /// When to prune tool outputs without compacting (Anthropic API's "clear tool uses" at
    /// 100,000 tokens); `None` prunes only as a convergence step or when asked.
    pub prune_trigger: Option<Trigger>,
    /// What is kept, summarized or pruned.
    pub plan: PlanOptions,
    /// How the summary is injected.
    pub summary: SummaryStyle,
    /// How tokens are counted when no exact tokenizer is chosen.
    pub estimation: Estimation,
    /// The summarizer's transcript.
    pub transcript: TranscriptOptions,
    /// Transcripts longer than this many characters are summarized in chunks, each building on the
    /// previous summary (unless `chunk_by_window`).
    pub chunk_chars: usize,
    /// `chunkChars: "window"`: no character rule; a transcript is chunked only when the request
    /// would not fit the summarizer's context window (the budget's window, from `contextWindow` or
    /// `model`) with room for the prompt, the summary it builds on and the answer.
    pub chunk_by_window: bool,
    /// A summary above this many tokens is rolled up (summarized again).
    pub rollup_tokens: usize,
    /// When set, the messages sent to the summarizer are trimmed to this many tokens (LangChain).
    pub summarizer_input_tokens: Option<usize>,
    /// Retries of a failed summarizer call.
    pub retries: u32,
    /// The first retry's delay in milliseconds; it doubles with each retry.
    pub retry_delay_ms: u64,
    /// The summarizer's prompts.
    pub templates: Templates,
    /// A warning reported with every compaction that builds on an earlier one (Codex's).
    pub repeat_warning: Option<String>,
    /// The summary request offered first: a transcript prompt, or the conversation continued
    /// with the instruction (Claude Code, Codex, OpenCode).
    pub summary_mode: SummaryMode,
    /// Whose cache rules and prices cost estimates assume.
    pub cost: CostSettings,
}

impl Settings {
    /// Sensible defaults for a window of `context_window` tokens: pi's rules (reserve 16,384, keep
    /// about 20,000 recent tokens, split turns allowed) with convergence pruning of superseded reads.
    pub fn new(context_window: usize) -> Settings {
        let reserve = 16_384.min(context_window / 4);
        let keep = 20_000.min(context_window / 5);
        Settings {
            budget: Budget { reserve_tokens: reserve, ..Budget::new(context_window) },
            empty_budget_allowed: false,
            keep_after_compaction: false,
            auto_margin: false,
            trigger: Trigger::FractionAbove(1.0),
            prune_trigger: None,
            plan: PlanOptions {
                strategy: Strategy::RecentTokens { keep },
                boundary: TurnBoundary::Split,
                direction: Direction::Forward,
                summarize: true,
                summary_tokens: reserve * 4 / 5,
                prefix_summary_tokens: reserve * 2 / 5,
                limit: None,
                keep_small_prefix: true,
                floor: 0,
                prune: Some(PruneSettings { supersede: true, style: crate::core::prune::Style::None }),
            },
            summary: SummaryStyle {
                role: Role::User,
                prefix: "The conversation history before this point was compacted into the following summary:\n\n".into(),
                suffix: ROUND_MARKER.into(),
                later_rounds_note: None,
                question: None,
                continue_message: None,
                turn_context: crate::core::summary::prompt::default_turn_context(),
            },
            estimation: Estimation::Heuristic,
            transcript: TranscriptOptions { tool_output_chars: 2_000, include_reasoning: false, tool_allow: None, style: TranscriptStyle::Standard, trim: true },
            chunk_chars: 120_000,
            chunk_by_window: false,
            rollup_tokens: reserve * 4 / 5,
            summarizer_input_tokens: None,
            retries: 2,
            retry_delay_ms: 1_000,
            templates: Templates::default(),
            repeat_warning: None,
            summary_mode: SummaryMode::Transcript,
            cost: CostSettings::default(),
        }
    }

    /// Checks the numbers fit together; the error names the option.
    pub fn validate(&self) -> Result<()> {
        let empty = self.empty_budget_allowed
            && self.budget.context_window > 0
            && self.budget.reserve_tokens < self.budget.context_window;
        if !empty {
            self.budget.validate()?;
        }
        self.trigger.validate()?;
        if let Some(t) = &self.prune_trigger {
            t.validate()?;
        }
        let window = self.budget.context_window;
        if self.plan.summary_tokens == 0 || self.plan.summary_tokens >= window {
            return Err(Error::invalid_option(
                "summaryTokens",
                format!(
                    "summaryTokens must be between 1 and the context window ({window}), got {}",
                    self.plan.summary_tokens
                ),
            ));
        }
        if let Strategy::Recursive { keep, overlap } = self.plan.strategy {
            if overlap >= keep {
                return Err(Error::invalid_option(
                    "strategy.overlap",
                    format!("overlap ({overlap}) must be smaller than keep ({keep})"),
                ));
            }
        }
        if self.chunk_chars < 1_000 {
            return Err(Error::invalid_option(
                "chunkChars",
                "chunkChars must be at least 1000",
            ));
        }
        Ok(())
    }

    /// The most tokens a compacted context may hold so that the token trigger does not fire again
    /// on the next turn: one below the trigger's threshold, or the available budget when the
    /// trigger has no token threshold. With [`Settings::empty_budget_allowed`] and nothing
    /// available: `window − reserveTokens`.
    pub fn token_limit(&self) -> usize {
        if self.empty_budget_allowed && self.budget.available() == 0 {
            return self
                .budget
                .context_window
                .saturating_sub(self.budget.reserve_tokens);
        }
        match self.trigger.threshold(&self.budget) {
            Some(threshold) => threshold.saturating_sub(1),
            None => self.budget.available(),
        }
    }
}
