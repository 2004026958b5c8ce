//! The defaults of well-known agents and of the systems in the seed documents, as [`Settings`].
//! Explicit options override single fields afterwards. Facts are from `design/peers.md` and the
//! seeds; where a peer leaves a value open, the choice is documented on its line.

use crate::core::cost::{CostSettings, Provider, Ttl};
use crate::core::cut::{Direction, TurnBoundary};
use crate::core::error::{Error, Result};
use crate::core::message::Role;
use crate::core::plan::{PruneSettings, Strategy};
use crate::core::prune::{ClearToolUsesOptions, OpenCodeOptions, Style};
use crate::core::settings::{Estimation, Settings, SummaryStyle, TranscriptStyle, ROUND_MARKER};
use crate::core::summary::{preset_prompts, SummaryMode, Templates};
use crate::core::trigger::{self, Budget, Trigger};

/// A known agent or seed system.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Preset {
    Pi,
    Seed000,
    Codex,
    OpenCode,
    ClaudeCode,
    LangChain,
    AnthropicApi,
    Seed001,
    Seed003,
    Seed004,
}

impl Preset {
    /// Every preset.
    pub const ALL: [Preset; 10] = [
        Preset::Pi,
        Preset::Seed000,
        Preset::Codex,
        Preset::OpenCode,
        Preset::ClaudeCode,
        Preset::LangChain,
        Preset::AnthropicApi,
        Preset::Seed001,
        Preset::Seed003,
        Preset::Seed004,
    ];

    /// The name users write (`"pi"`, `"claude-code"`, `"seed-001"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Preset::Pi => "pi",
            Preset::Seed000 => "seed-000",
            Preset::Codex => "codex",
            Preset::OpenCode => "opencode",
            Preset::ClaudeCode => "claude-code",
            Preset::LangChain => "langchain",
            Preset::AnthropicApi => "anthropic-api",
            Preset::Seed001 => "seed-001",
            Preset::Seed003 => "seed-003",
            Preset::Seed004 => "seed-004",
        }
    }

    /// The descriptive name of a preset that follows a design document (`"seed-001"` is also
    /// `"compaction-layer"`); both names are accepted.
    pub fn alias(self) -> Option<&'static str> {
        match self {
            Preset::Seed000 => Some("pi-plan"),
            Preset::Seed001 => Some("compaction-layer"),
            Preset::Seed003 => Some("block-pipeline"),
            Preset::Seed004 => Some("workstream"),
            _ => None,
        }
    }

    /// Parses a name or an alias; an unknown one is `INVALID_OPTIONS` at `preset`.
    pub fn parse(name: &str) -> Result<Preset> {
        Preset::ALL
            .into_iter()
            .find(|p| p.as_str() == name || p.alias() == Some(name))
            .ok_or_else(|| {
                let known: Vec<&str> = Preset::ALL
                    .iter()
                    .flat_map(|p| std::iter::once(p.as_str()).chain(p.alias()))
                    .collect();
                Error::invalid_option(
                    "preset",
                    format!(
                        "unknown preset \"{name}\": expected one of {}",
                        known.join(", ")
                    ),
                )
            })
    }

    /// The context window a preset assumes when neither `contextWindow` nor a known `model` is
    /// given: seed 001 falls back to 128,000 (its `getContextLimit` default), seed 004 works in a
    /// 200,000-token budget (`CONTEXT_SIZE`). Other presets need the window.
    pub fn default_context_window(self) -> Option<usize> {
        match self {
            Preset::Seed001 => Some(128_000),
            Preset::Seed004 => Some(200_000),
            _ => None,
        }
    }

    /// How the preset's summary enters the context (see [`SummaryStyle`]). Presets whose source
    /// records no round end the summary with the round marker, so that rounds continue across
    /// `Compactor`s.
    pub fn summary_style(self) -> SummaryStyle {
        match self {
            Preset::Pi => {
                let mut s = style(Role::User, PI_COMPACTION_PREFIX)
                    .suffix(&format!("{PI_SUMMARY_SUFFIX}{ROUND_MARKER}"));
                s.turn_context = PI_TURN_CONTEXT.into();
                s
            }
            Preset::Seed000 => style(
                Role::User,
                "Another language model worked on this task and produced a summary. Use this to continue the work without duplicating effort:\n\n",
            ),
            Preset::Codex => style(Role::User, CODEX_PREFIX),
            Preset::OpenCode => {
                let mut s = style(Role::Assistant, "");
                s.question = Some("What did we do so far?".into());
                s.continue_message = Some("Continue if you have next steps".into());
                s
            }
            Preset::ClaudeCode => style(
                Role::User,
                "This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\n",
            )
            .suffix(&format!(
                "\n\nPick up where the conversation stopped and go on with the last task you were given, without asking the user anything further.{ROUND_MARKER}"
            )),
            Preset::LangChain => style(Role::User, "Here is a summary of the conversation to date:\n\n"),
            Preset::AnthropicApi => style(Role::Assistant, ""),
            Preset::Seed001 => {
                let mut s = style(Role::Assistant, "## Session Summary (Compaction Round {round})\n\n")
                    .suffix("");
                s.later_rounds_note = Some(
                    "This summary incorporates context from {previous_rounds} previous compaction rounds."
                        .into(),
                );
                s
            }
            Preset::Seed003 => Settings::new(200_000).summary,
            Preset::Seed004 => style(Role::System, "Compacted context summary:\n"),
        }
    }

    /// The preset's prompt templates: its source's where it has them, else the defaults.
    pub fn templates(self) -> Templates {
        match self {
            Preset::Seed000 => preset_prompts::seed_000(),
            Preset::Codex => preset_prompts::codex(),
            Preset::OpenCode => preset_prompts::opencode(),
            Preset::ClaudeCode => preset_prompts::claude_code(),
            Preset::Seed001 => preset_prompts::seed_001(),
            Preset::Seed004 => preset_prompts::seed_004(),
            Preset::Pi | Preset::LangChain | Preset::AnthropicApi | Preset::Seed003 => {
                Templates::default()
            }
        }
    }

    /// The preset's settings for a model with `context_window` tokens and `max_output` output tokens.
    pub fn settings(self, context_window: usize, max_output: usize) -> Settings {
        let mut s = Settings::new(context_window);
        let w = context_window;
        match self {
            Preset::Pi => {
                // tokens > window − 16,384; keep ~20,000 tokens cut at a user or assistant message;
                // split-turn prefix summarized separately; summary maxTokens = 0.8 × reserve.
                let (t, b) = trigger::preset_pi(w, 16_384);
                s.trigger = t;
                s.budget = b;
                s.plan.strategy = Strategy::RecentTokens { keep: 20_000 };
                s.plan.summary_tokens = 16_384 * 4 / 5;
                s.plan.prefix_summary_tokens = 16_384 * 2 / 5;
                // pi splits a turn wherever the cut lands, however small the prefix, and cuts only
                // after the previous compaction entry.
                s.plan.keep_small_prefix = false;
                s.keep_after_compaction = true;
                s.plan.prune = None;
            }
            Preset::Seed000 => {
                // Seed 000's plan: the same numbers as pi (reserve 16,384, keep 20,000, maxTokens
                // 0.8 × reserve) but "never cut mid-turn": the kept tail starts at a user message.
                let (t, b) = trigger::preset_pi(w, 16_384);
                s.trigger = t;
                s.budget = b;
                s.plan.strategy = Strategy::RecentTokens { keep: 20_000 };
                s.plan.boundary = TurnBoundary::Snap;
                s.plan.summary_tokens = 16_384 * 4 / 5;
                s.plan.prune = None;
                // "When doing a second compaction, don't cross the first compaction boundary."
                s.keep_after_compaction = true;
            }
            Preset::Codex => {
                // 90% of the window; recent user messages up to 20,000 tokens; handoff prefix;
                // retries with backoff. The summary budget is ours (Codex sets none).
                let (t, b) = trigger::preset_codex(w);
                s.trigger = t;
                s.budget = b;
                s.plan.strategy = Strategy::RecentUserMessages { max_tokens: 20_000 };
                s.plan.boundary = TurnBoundary::Snap;
                s.plan.summary_tokens = 8_192.min(w / 8);
                s.plan.prune = None;
                s.retries = 3;
                s.repeat_warning = Some(CODEX_WARNING.into());
            }
            Preset::OpenCode => {
                // tokens > window − min(32,000, max output); OpenCode's prune; the summary answers
                // "What did we do so far?"; a continue message after automatic compaction. Kept
                // verbatim: the last 2 turns (its prune protects the same 2 turns).
                let (t, b) = trigger::preset_opencode(w, max_output);
                s.trigger = t;
                s.budget = b;
                s.plan.strategy = Strategy::LastTurns { keep: 2 };
                s.plan.boundary = TurnBoundary::Snap;
                s.plan.prune = Some(PruneSettings {
                    supersede: false,
                    style: Style::OpenCode(OpenCodeOptions::default()),
                });
            }
            Preset::ClaudeCode => {
                // window − min(max output, 20,000) − 13,000 (167,000 at 200k), the answer's budget
                // being that reserved output; everything is summarized; old tool results cleared
                // keeping the last 5 (its skill tool is `Skill`).
                let (t, b) = trigger::preset_claude_code(w, max_output);
                s.trigger = t;
                s.budget = b;
                s.plan.summary_tokens = trigger::claude_code_summary_output(max_output);
                s.plan.strategy = Strategy::TokenBudget { max: 0 };
                s.plan.boundary = TurnBoundary::Snap;
                let clear = ClearToolUsesOptions {
                    keep: 5,
                    exclude_tools: vec!["Skill".into()],
                    ..ClearToolUsesOptions::default()
                };
                s.plan.prune = Some(PruneSettings {
                    supersede: false,
                    style: Style::Anthropic(clear),
                });
            }
            Preset::LangChain => {
                // LangChain asks for a trigger; ours is 80% of the window. Last 20 messages kept
                // with AI/tool pairs together; the summarizer sees at most 4,000 tokens.
                s.trigger = Trigger::Fraction(0.8);
                s.budget = Budget::new(w);
                s.plan.strategy = Strategy::LastMessages { keep: 20 };
                s.plan.direction = Direction::Backward;
                s.plan.prune = None;
                s.summarizer_input_tokens = Some(4_000);
            }
            Preset::AnthropicApi => {
                // Clear tool uses at 100,000 input tokens keeping the last 3; compact at 150,000
                // into a compaction block that replaces the history.
                s.trigger = Trigger::Tokens(150_000.min(w));
                s.budget = Budget::new(w);
                s.prune_trigger = Some(Trigger::Tokens(100_000.min(w)));
                s.plan.strategy = Strategy::TokenBudget { max: 0 };
                s.plan.boundary = TurnBoundary::Snap;
                s.plan.prune = Some(PruneSettings {
                    supersede: false,
                    style: Style::Anthropic(ClearToolUsesOptions::default()),
                });
            }
            Preset::Seed001 => {
                // (window − 2,000 − 4,000 − 5,000) × 0.80 and more than 10 messages; last 10
                // messages, walking back over tool results (a turn's start goes into the one
                // summary); chars/4; summary maxTokens 1,000 (the prompt asks for at most 800);
                // its transcript layout (messages cut at 2,000 characters, results at 500).
                let (t, b) = trigger::preset_seed001(w, 2_000, 4_000, 5_000, 0.80, 10);
                s.trigger = t;
                s.budget = b;
                s.empty_budget_allowed = true;
                s.plan.strategy = Strategy::LastMessages { keep: 10 };
                s.plan.boundary = TurnBoundary::Free;
                s.plan.direction = Direction::Backward;
                s.plan.summary_tokens = 1_000;
                s.plan.prune = None;
                s.estimation = Estimation::CharsPerToken(4);
                s.transcript.tool_output_chars = 2_000;
                s.transcript.style = TranscriptStyle::Seed001;
            }
            Preset::Seed003 => {
                // system + blocks > 0.9 × max; keep-recent tokens by message blocks (the seed leaves
                // the amount open: a tenth of the window); summaries of 800 and 400 tokens.
                let (t, b) = trigger::preset_seed003(w);
                s.trigger = t;
                s.budget = b;
                s.plan.strategy = Strategy::RecentTokens { keep: w / 10 };
                s.plan.summary_tokens = 800;
                s.plan.prefix_summary_tokens = 400;
                // "If the cut does not land on a turn start, it is a split-turn cut."
                s.plan.keep_small_prefix = false;
                s.plan.prune = None;
            }
            Preset::Seed004 => {
                // min(0.7 × window, window − 32,000 − 8,000); the last 6 messages; chars/3; tool
                // allow-list; chunks of 120,000 characters; rollup past 80,000 tokens; the queue's
                // 2 attempts (1 retry) with backoff from 3 s.
                let (t, b) = trigger::preset_seed004(w, 32_000, 8_000);
                s.trigger = t;
                s.budget = b;
                // Prefix (everything before the tail) and tail: one summary, wherever the tail
                // starts.
                s.plan.strategy = Strategy::LastMessages { keep: 6 };
                s.plan.boundary = TurnBoundary::Free;
                s.plan.direction = Direction::Backward;
                s.plan.prune = None;
                s.estimation = Estimation::CharsPerToken(3);
                s.transcript.tool_allow = Some(vec![
                    "userQuestions".into(),
                    "proceedInOnboarding".into(),
                    "linear*".into(),
                ]);
                s.chunk_chars = 120_000;
                s.retries = 1;
                s.retry_delay_ms = 3_000;
            }
        }
        // The agents (and seed 000's and 001's designs) send the whole conversation in one request
        // while it fits the summarizer: they chunk only past its window. Seed 004 chunks at
        // 120,000 characters; the other presets keep the default character rule.
        s.chunk_by_window = matches!(
            self,
            Preset::ClaudeCode
                | Preset::Codex
                | Preset::OpenCode
                | Preset::Seed000
                | Preset::Seed001
        );
        // Only seed 004 sets its own rollup threshold; elsewhere a summary is rolled up when it
        // exceeds its own budget.
        s.rollup_tokens = match self {
            Preset::Seed004 => 80_000,
            _ => s.plan.summary_tokens,
        };
        s.summary = self.summary_style();
        s.templates = self.templates();
        s.summary_mode = self.summary_mode();
        s.cost = self.cost();
        s
    }

    /// The summary request of the preset's agent: Claude Code, Codex and OpenCode append their
    /// compaction prompt to the live conversation; the others send a transcript.
    pub fn summary_mode(self) -> SummaryMode {
        match self {
            Preset::ClaudeCode | Preset::Codex | Preset::OpenCode => SummaryMode::Continue,
            _ => SummaryMode::Transcript,
        }
    }

    /// The provider the preset's agent usually talks to: Anthropic for Claude Code and the
    /// Anthropic API (Claude Code writes 1-hour cache entries), OpenAI for Codex, else the default.
    pub fn cost(self) -> CostSettings {
        match self {
            Preset::ClaudeCode => CostSettings {
                ttl: Ttl::OneHour,
                ..CostSettings::of(Provider::Anthropic)
            },
            Preset::Codex => CostSettings::of(Provider::OpenAi),
            _ => CostSettings::default(),
        }
    }
}

/// The text pi puts before a compaction summary when it shows it to the model.
pub const PI_COMPACTION_PREFIX: &str =
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";
/// What pi writes between the history summary and the summary of a split turn's prefix.
pub const PI_TURN_CONTEXT: &str = "\n\n---\n\n**Turn Context (split turn):**\n\n";

/// The text pi puts after a compaction or branch summary.
pub const PI_SUMMARY_SUFFIX: &str = "\n</summary>";

/// Codex's summary prefix (`templates/compact/summary_prefix.md`, as quoted by seed 000).
const CODEX_PREFIX: &str = "Another language model started to solve this problem and produced a summary of its thinking process. You also have access to the state of the tools that were used by that language model. Use this to build on the work that has already been done and avoid duplicating work. Here is the summary produced by the other language model, use the information in this summary to assist with your own analysis:\n";

/// Codex's warning after a compaction that builds on earlier ones (quoted by seed 000).
pub const CODEX_WARNING: &str =
    "Long conversations and multiple compactions can cause the model to be less accurate";

fn style(role: Role, prefix: &str) -> SummaryStyle {
    SummaryStyle {
        role,
        prefix: prefix.into(),
        suffix: ROUND_MARKER.into(),
        later_rounds_note: None,
        question: None,
        continue_message: None,
        turn_context: crate::core::summary::prompt::default_turn_context(),
    }
}

impl SummaryStyle {
    fn suffix(mut self, suffix: &str) -> SummaryStyle {
        self.suffix = suffix.into();
        self
    }
}
