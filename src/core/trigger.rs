//! When to compact: every piece of threshold arithmetic of the package lives here.
//!
//! A [`Trigger`] is evaluated against a [`TriggerInput`] (the conversation's token count, user
//! turns and messages, and the [`Budget`]) and gives a [`Decision`]. Token thresholds are always
//! reported in one normalized form: the smallest token count that fires (`tokens >= threshold`),
//! whether the rule was written with `>=` or `>`. For integer token counts, `tokens > x` (x real)
//! is the same as `tokens >= floor(x) + 1`, and `tokens >= x` the same as `tokens >= ceil(x)`.
//!
//! The seed and peer rules are reproduced exactly as `(Trigger, Budget)` presets ([`preset_pi`],
//! [`preset_seed001`], ...) that fire at exactly the token count of the rule as the source states
//! it (the plain-function oracles live with the tests, in `tests/common/oracles.rs`).

use crate::core::error::{Error, Result};
use crate::core::message::{Message, Role};

/// The room of a model's context, in tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Budget {
    /// Input plus output tokens the model accepts (`contextWindow`).
    pub context_window: usize,
    /// Tokens kept free for the model's reply (`reserveTokens`).
    pub reserve_tokens: usize,
    /// Extra tokens kept free for estimation error (`safetyMargin`).
    pub safety_margin: usize,
    /// Tokens of what is sent besides the messages: system prompt, tool definitions
    /// (`systemTokens`). System messages inside the conversation are counted with the messages.
    pub system_tokens: usize,
}

impl Budget {
    /// A budget of `context_window` tokens with nothing reserved.
    pub fn new(context_window: usize) -> Budget {
        Budget {
            context_window,
            ..Budget::default()
        }
    }

    /// `context_window − reserve_tokens − safety_margin − system_tokens`, saturating at 0: the
    /// tokens the messages may use.
    pub fn available(&self) -> usize {
        self.context_window
            .saturating_sub(self.reserve_tokens)
            .saturating_sub(self.safety_margin)
            .saturating_sub(self.system_tokens)
    }

    /// The same budget with `safetyMargin: "auto"`: the margin is `margin` (the expected error of
    /// the count, in tokens), at most half of what the window leaves after the reserve and the
    /// system tokens, so that the budget stays valid whatever the error.
    pub fn with_auto_margin(self, margin: usize) -> Budget {
        let room = self
            .context_window
            .saturating_sub(self.reserve_tokens)
            .saturating_sub(self.system_tokens);
        Budget {
            safety_margin: margin.min(room / 2),
            ..self
        }
    }

    /// Checks that the budget leaves room for messages. Errors are `INVALID_OPTIONS` naming the
    /// key: `contextWindow` (zero), `reserveTokens` (not below the window), `safetyMargin` and
    /// `systemTokens` (when they use up what is left).
    pub fn validate(&self) -> Result<()> {
        if self.context_window == 0 {
            return Err(Error::invalid_option(
                "contextWindow",
                "contextWindow must be a positive number of tokens",
            ));
        }
        if self.reserve_tokens >= self.context_window {
            return Err(Error::invalid_option(
                "reserveTokens",
                format!(
                    "reserveTokens ({}) must be smaller than contextWindow ({})",
                    self.reserve_tokens, self.context_window
                ),
            ));
        }
        let after_reserve = self.context_window - self.reserve_tokens;
        if self.safety_margin >= after_reserve {
            return Err(Error::invalid_option(
                "safetyMargin",
                format!(
                    "safetyMargin ({}) leaves no room: contextWindow − reserveTokens is {after_reserve}",
                    self.safety_margin
                ),
            ));
        }
        if self.available() == 0 {
            return Err(Error::invalid_option(
                "systemTokens",
                format!(
                    "the system prompt and tools ({} tokens) leave no room for messages in {} tokens",
                    self.system_tokens,
                    after_reserve - self.safety_margin
                ),
            ));
        }
        Ok(())
    }
}

/// A condition for compacting.
#[derive(Clone, Debug, PartialEq)]
pub enum Trigger {
    /// Fires when `tokens >= n` (a strict `tokens > n` is `Tokens(n + 1)`).
    Tokens(usize),
    /// Fires when `tokens >= floor(f × available)` (seed 001's rule: the threshold is floored,
    /// then reached). `f` in (0, 1].
    Fraction(f64),
    /// Fires when `system + tokens > f × (available + system)`, i.e. `tokens >= floor(f ×
    /// (available + system)) + 1 − system`, with `system` the budget's `system_tokens` (seed 003's,
    /// pi's and OpenCode's strict rules; with `f` = 1, `tokens > available`). `f` in (0, 1].
    FractionAbove(f64),
    /// Fires when the user turns (messages with [`Message::is_user_turn_start`]) exceed `n`.
    Turns(usize),
    /// Fires when the non-system messages exceed `n`.
    Messages(usize),
    /// Fires when any condition fires (must not be empty).
    AnyOf(Vec<Trigger>),
    /// Fires when every condition fires (must not be empty).
    AllOf(Vec<Trigger>),
    /// Never fires by itself (a forced input still does).
    Never,
}

/// What a trigger is evaluated against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TriggerInput {
    /// Tokens of the conversation (estimated or calibrated).
    pub tokens: usize,
    /// User turns.
    pub turns: usize,
    /// Non-system messages.
    pub messages: usize,
    /// The budget fractions refer to.
    pub budget: Budget,
    /// Set after a provider rejected the request for its length: always fires.
    pub forced: bool,
}

impl TriggerInput {
    /// The input for `messages` counting `tokens` tokens: turns and non-system messages are
    /// counted from the messages.
    pub fn new(messages: &[Message], tokens: usize, budget: Budget) -> TriggerInput {
        TriggerInput {
            tokens,
            turns: count_turns(messages),
            messages: count_non_system(messages),
            budget,
            forced: false,
        }
    }
}

/// User turns: messages with [`Message::is_user_turn_start`].
pub fn count_turns(messages: &[Message]) -> usize {
    messages.iter().filter(|m| m.is_user_turn_start()).count()
}

/// Messages whose role is not `System`.
pub fn count_non_system(messages: &[Message]) -> usize {
    messages.iter().filter(|m| m.role != Role::System).count()
}

/// The outcome of evaluating a trigger.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// True when compaction should run.
    pub should_compact: bool,
    /// The token threshold in force, normalized: compaction fires (as far as tokens go) at
    /// `tokens >= threshold`. `None` when the trigger has no token condition.
    pub threshold: Option<usize>,
    /// Why, in words (`"forced"` for a forced input).
    pub reason: String,
}

/// `floor(f × available)`, computed in `f64` as JavaScript and the seeds do.
fn floor_fraction(f: f64, available: usize) -> usize {
    // Float-to-int casts saturate (NaN is 0); validated fractions keep this in 0..=available.
    (f * available as f64).floor() as usize
}

impl Trigger {
    /// Checks the trigger. Errors are `INVALID_OPTIONS` naming the key: `trigger.fraction`
    /// (outside (0, 1] or not a number), `trigger.tokens` (zero), `trigger.anyOf` /
    /// `trigger.allOf` (empty); nested triggers as `trigger.anyOf[1].fraction`.
    pub fn validate(&self) -> Result<()> {
        self.validate_at("trigger")
    }

    fn validate_at(&self, path: &str) -> Result<()> {
        match self {
            Trigger::Fraction(f) | Trigger::FractionAbove(f) => {
                if !(*f > 0.0 && *f <= 1.0) {
                    return Err(Error::invalid_option(
                        format!("{path}.fraction"),
                        format!("a trigger fraction must be in (0, 1], got {f}"),
                    ));
                }
                Ok(())
            }
            Trigger::Tokens(0) => Err(Error::invalid_option(
                format!("{path}.tokens"),
                "a trigger token count must be at least 1 (use `never` to turn compaction off)",
            )),
            Trigger::AnyOf(list) | Trigger::AllOf(list) => {
                let key = if matches!(self, Trigger::AnyOf(_)) {
                    "anyOf"
                } else {
                    "allOf"
                };
                if list.is_empty() {
                    return Err(Error::invalid_option(
                        format!("{path}.{key}"),
                        format!("`{key}` needs at least one condition"),
                    ));
                }
                list.iter()
                    .enumerate()
                    .try_for_each(|(i, t)| t.validate_at(&format!("{path}.{key}[{i}]")))
            }
            Trigger::Tokens(_) | Trigger::Turns(_) | Trigger::Messages(_) | Trigger::Never => {
                Ok(())
            }
        }
    }

    /// The smallest token count at which the token part of the trigger is met (normalized,
    /// see [`Decision::threshold`]): for `AnyOf` the least of its members', for `AllOf` the
    /// greatest. `None` without a token condition.
    pub fn threshold(&self, budget: &Budget) -> Option<usize> {
        match self {
            Trigger::Tokens(n) => Some(*n),
            Trigger::Fraction(f) => Some(floor_fraction(*f, budget.available())),
            // The system prompt counts as part of what the fraction is of (seed 003: `system +
            // blocks > 0.9 × max`); with `f` = 1 this is `tokens > available`.
            Trigger::FractionAbove(f) => Some(
                floor_fraction(*f, budget.available().saturating_add(budget.system_tokens))
                    .saturating_add(1)
                    .saturating_sub(budget.system_tokens),
            ),
            Trigger::AnyOf(list) => list.iter().filter_map(|t| t.threshold(budget)).min(),
            Trigger::AllOf(list) => list.iter().filter_map(|t| t.threshold(budget)).max(),
            Trigger::Turns(_) | Trigger::Messages(_) | Trigger::Never => None,
        }
    }

    /// True when the trigger fires for `input`, ignoring `input.forced`.
    pub fn fires(&self, input: &TriggerInput) -> bool {
        self.explain(input).0
    }

    /// Evaluates the trigger. A forced input always fires with reason `"forced"`.
    pub fn evaluate(&self, input: &TriggerInput) -> Decision {
        let threshold = self.threshold(&input.budget);
        if input.forced {
            return Decision {
                should_compact: true,
                threshold,
                reason: "forced".to_string(),
            };
        }
        let (should_compact, reason) = self.explain(input);
        Decision {
            should_compact,
            threshold,
            reason,
        }
    }

    fn explain(&self, input: &TriggerInput) -> (bool, String) {
        let tokens = input.tokens;
        let available = input.budget.available();
        match self {
            Trigger::Tokens(n) => {
                let fired = tokens >= *n;
                let verb = if fired { "reach" } else { "are below" };
                (
                    fired,
                    format!("{tokens} tokens {verb} the threshold of {n}"),
                )
            }
            Trigger::Fraction(f) | Trigger::FractionAbove(f) => {
                let t = self.threshold(&input.budget).unwrap_or(usize::MAX);
                let fired = tokens >= t;
                let verb = if fired { "reach" } else { "are below" };
                let strict = if matches!(self, Trigger::FractionAbove(_)) {
                    "more than "
                } else {
                    ""
                };
                (
                    fired,
                    format!(
                        "{tokens} tokens {verb} the threshold of {t} ({strict}{}% of {available} available)",
                        (f * 1000.0).round() / 10.0
                    ),
                )
            }
            Trigger::Turns(n) => {
                let fired = input.turns > *n;
                let verb = if fired { "exceed" } else { "do not exceed" };
                (fired, format!("{} user turns {verb} {n}", input.turns))
            }
            Trigger::Messages(n) => {
                let fired = input.messages > *n;
                let verb = if fired { "exceed" } else { "do not exceed" };
                (fired, format!("{} messages {verb} {n}", input.messages))
            }
            Trigger::AnyOf(list) => {
                let results: Vec<(bool, String)> = list.iter().map(|t| t.explain(input)).collect();
                match results.iter().find(|(fired, _)| *fired) {
                    Some((_, reason)) => (true, reason.clone()),
                    None => (false, join(&results, "; ")),
                }
            }
            Trigger::AllOf(list) => {
                let results: Vec<(bool, String)> = list.iter().map(|t| t.explain(input)).collect();
                match results.iter().find(|(fired, _)| !*fired) {
                    Some((_, reason)) => (false, reason.clone()),
                    None => (!results.is_empty(), join(&results, " and ")),
                }
            }
            Trigger::Never => (false, "automatic compaction is off".to_string()),
        }
    }
}

fn join(results: &[(bool, String)], sep: &str) -> String {
    results
        .iter()
        .map(|(_, r)| r.as_str())
        .collect::<Vec<_>>()
        .join(sep)
}

/// OpenCode's cap on the output reserve (its `OUTPUT_TOKEN_MAX`).
pub const OPENCODE_OUTPUT_CAP: usize = 32_000;

/// Claude Code's buffer below its effective window (`AUTOCOMPACT_BUFFER_TOKENS`).
pub const CLAUDE_CODE_BUFFER: usize = 13_000;

/// Claude Code's cap on the room it keeps for the summary's answer (`MAX_OUTPUT_TOKENS_FOR_SUMMARY`):
/// the effective window is the window less `min(model's max output, 20,000)`.
pub const CLAUDE_CODE_SUMMARY_OUTPUT: usize = 20_000;

/// The room Claude Code keeps for the summary's answer with a model of `max_output` tokens.
pub fn claude_code_summary_output(max_output: usize) -> usize {
    max_output.min(CLAUDE_CODE_SUMMARY_OUTPUT)
}

/// Seed 001 as a trigger: `AllOf[Fraction(percent), Messages(keep_last)]` over a budget whose
/// reserve, safety and system tokens are the seed's. The seed counts messages with the system
/// message at index 0 (`length > keepLast + 1`), which is `non-system messages > keep_last`.
pub fn preset_seed001(
    window: usize,
    system_reserve: usize,
    output_reserve: usize,
    safety_buffer: usize,
    percent: f64,
    keep_last: usize,
) -> (Trigger, Budget) {
    let budget = Budget {
        context_window: window,
        reserve_tokens: output_reserve,
        safety_margin: safety_buffer,
        system_tokens: system_reserve,
    };
    let trigger = Trigger::AllOf(vec![
        Trigger::Fraction(percent),
        Trigger::Messages(keep_last),
    ]);
    (trigger, budget)
}

/// Seed 003 as a trigger: `FractionAbove(0.9)` of the whole window (system messages are part of
/// the counted conversation).
pub fn preset_seed003(max_tokens: usize) -> (Trigger, Budget) {
    (Trigger::FractionAbove(0.9), Budget::new(max_tokens))
}

/// Seed 004 as a trigger: `AnyOf[Tokens(ceil(0.7 × window)), Fraction(1.0)]` over a budget
/// reserving the output and the safety margin (the smaller threshold wins).
pub fn preset_seed004(
    window: usize,
    output_reserve: usize,
    safety_margin: usize,
) -> (Trigger, Budget) {
    let seventy = (0.7 * window as f64).ceil() as usize;
    let budget = Budget {
        context_window: window,
        reserve_tokens: output_reserve,
        safety_margin,
        system_tokens: 0,
    };
    (
        Trigger::AnyOf(vec![
            Trigger::Tokens(seventy.max(1)),
            Trigger::Fraction(1.0),
        ]),
        budget,
    )
}

/// pi as a trigger: `FractionAbove(1.0)` over a budget reserving `reserve` tokens.
pub fn preset_pi(window: usize, reserve: usize) -> (Trigger, Budget) {
    let budget = Budget {
        reserve_tokens: reserve,
        ..Budget::new(window)
    };
    (Trigger::FractionAbove(1.0), budget)
}

/// Codex as a trigger: `Fraction(0.9)` of the whole window.
pub fn preset_codex(window: usize) -> (Trigger, Budget) {
    (Trigger::Fraction(0.9), Budget::new(window))
}

/// OpenCode as a trigger: `FractionAbove(1.0)` over a budget reserving `min(32,000, max_output)`.
pub fn preset_opencode(window: usize, max_output: usize) -> (Trigger, Budget) {
    let budget = Budget {
        reserve_tokens: OPENCODE_OUTPUT_CAP.min(max_output),
        ..Budget::new(window)
    };
    (Trigger::FractionAbove(1.0), budget)
}

/// Claude Code as a trigger: `Fraction(1.0)` over a budget reserving the summary's answer
/// (`min(max_output, 20,000)`) plus the 13,000-token buffer: `window − 33,000` for most models.
pub fn preset_claude_code(window: usize, max_output: usize) -> (Trigger, Budget) {
    let budget = Budget {
        reserve_tokens: claude_code_summary_output(max_output) + CLAUDE_CODE_BUFFER,
        ..Budget::new(window)
    };
    (Trigger::Fraction(1.0), budget)
}
