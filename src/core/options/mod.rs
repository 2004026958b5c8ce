//! The options of a `Compactor`, parsed from JSON (the JS object minus its functions) into
//! [`Settings`] and the few knobs that only the binding uses. A preset (if any) is applied first;
//! every explicit option then overrides it. Every error is `INVALID_OPTIONS` with the key's path.

pub mod callbacks;
pub mod cost;
pub mod reader;
pub mod trim;

use crate::core::cut::{Direction, TurnBoundary};
use crate::core::driver::FailurePolicy;
use crate::core::error::{Error, Result};
use crate::core::estimate::{Counter, Estimator, ImageRule, Profile};
use crate::core::format::Format;
use crate::core::message::Role;
use crate::core::models::model_info;
use crate::core::plan::{PruneSettings, Strategy};
use crate::core::preset::Preset;
use crate::core::prune::{
    ClearToolInputs, ClearToolUsesOptions, OpenCodeOptions, Style, TtlOptions,
};
use crate::core::settings::{Estimation, Settings, SHADOW_PROMPT};
use crate::core::tokens::{Encoding, EncodingName};
use crate::core::trigger::Trigger;
use reader::Reader;
use serde_json::Value;
use std::rc::Rc;

/// How tokens are counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tokenizer {
    /// The preset's estimate (the content-aware heuristic unless the preset counts characters).
    Heuristic,
    /// An exact encoding.
    Exact(EncodingName),
}

impl Tokenizer {
    /// `estimateTokens`' `tokenizer` argument: absent or `"heuristic"`, else an encoding name
    /// ([`EncodingName::parse_arg`]: `INVALID_INPUT` at `tokenizer`; `Some(None)`: not a string).
    pub fn parse_arg(given: Option<Option<&str>>) -> Result<Tokenizer> {
        match given {
            None | Some(Some("heuristic")) => Ok(Tokenizer::Heuristic),
            Some(name) => EncodingName::parse_arg(name, "tokenizer").map(Tokenizer::Exact),
        }
    }

    /// The encoding an exact tokenizer counts with, `None` for the heuristic.
    pub fn encoding(self) -> Option<EncodingName> {
        match self {
            Tokenizer::Exact(name) => Some(name),
            Tokenizer::Heuristic => None,
        }
    }
}

/// Everything the options say.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    pub settings: Settings,
    pub tokenizer: Tokenizer,
    /// `None` detects the format of each call's messages.
    pub format: Option<Format>,
    pub image_rule: ImageRule,
    /// Whose count the estimate aims at: the `model`'s provider ([`Profile::BASE`] without one).
    pub profile: Profile,
    /// Whether usage numbers also calibrate the estimate (`selfCalibration`, default true).
    pub self_calibration: bool,
    /// Per summarizer call.
    pub timeout_ms: u64,
    /// Automatic compaction stops after this many consecutive failures (manual still works).
    pub max_consecutive_failures: u32,
    /// `summarize: "extractive"`: the built-in summary without a model.
    pub extractive: bool,
    /// What `maybeCompact` does when the summarizer fails.
    pub on_failure: FailurePolicy,
}

impl Options {
    /// Checks at construction that compaction can run: a plan that summarizes needs a summarizer
    /// (`has_callback`: the `summarize` function was given) or `summarize: "extractive"`.
    pub fn check_summarizer(&self, has_callback: bool) -> Result<()> {
        if self.settings.plan.summarize && !has_callback && !self.extractive {
            return Err(Error::invalid_option(
                "summarize",
                "summarize is required: pass your model call (an async function from a request to \
                 the summary text), \"extractive\" for the built-in summary without a model, or a \
                 strategy that drops old messages instead ({ type: \"sliding-window\" | \
                 \"turn-window\" | \"token-budget\" })",
            ));
        }
        Ok(())
    }

    /// The estimator the options ask for: `exact` is the loaded encoding of an exact tokenizer
    /// (the binding loads it); otherwise the preset's estimate (the heuristic, or characters per
    /// token). The model's image rule and profile factors apply either way.
    pub fn estimator(&self, exact: Option<Rc<Encoding>>) -> Estimator {
        let counter = match (exact, self.settings.estimation) {
            (Some(encoding), _) => Counter::Exact(encoding),
            (None, Estimation::Heuristic) => Counter::Heuristic,
            (None, Estimation::CharsPerToken(n)) => Counter::CharsPerToken(n),
        };
        Estimator::new(counter)
            .with_image_rule(self.image_rule)
            .with_factors(self.profile.factors)
    }
}

/// The keys that hold functions; the binding reads them itself (`summarize` may also be the
/// string `"extractive"`, which stays in the JSON).
pub const FUNCTION_KEYS: [&str; 5] = [
    "summarize",
    "onBeforeCompaction",
    "onAfterCompaction",
    "onProgress",
    "onError",
];

/// The slot in [`FUNCTION_KEYS`] of an options key the binding reads as a callback; `None` for
/// the JSON part, where `summarize` given as a string (`"extractive"`) also goes.
pub fn callback_slot(key: &str, is_string: bool) -> Option<usize> {
    let builtin = key == "summarize" && is_string;
    FUNCTION_KEYS
        .iter()
        .position(|k| *k == key)
        .filter(|_| !builtin)
}

/// A callback key given something other than a function: `INVALID_OPTIONS` at `key`.
pub fn not_a_function(key: &str) -> Error {
    Error::invalid_option(key, format!("{key} must be a function"))
}

/// Every key of a `Compactor`'s options object the core reads, the function-valued ones
/// included: the one list behind the unknown-option check (`js/types/options.d.ts` declares the
/// same keys, plus the store keys `js/stored-compactor.mjs` takes out first).
pub const OPTION_KEYS: [&str; 40] = [
    "summarize",
    "onBeforeCompaction",
    "onAfterCompaction",
    "onProgress",
    "onError",
    "preset",
    "model",
    "contextWindow",
    "maxOutputTokens",
    "reserveTokens",
    "safetyMargin",
    "selfCalibration",
    "systemTokens",
    "trigger",
    "keepRecentTokens",
    "strategy",
    "turnBoundary",
    "summaryTokens",
    "prefixSummaryTokens",
    "prune",
    "transcript",
    "chunkChars",
    "rollupTokens",
    "summarizerInputTokens",
    "summaryRole",
    "summaryPrefix",
    "summarySuffix",
    "summaryQuestion",
    "continueMessage",
    "summaryMode",
    "cost",
    "tokenizer",
    "format",
    "imageRule",
    "timeoutMs",
    "retries",
    "retryDelayMs",
    "maxConsecutiveFailures",
    "onFailure",
    "prompts",
];

/// Every key of the `transcript` option (`TranscriptOptions` in `js/types/options.d.ts`).
pub const TRANSCRIPT_KEYS: [&str; 4] = ["toolOutputChars", "includeReasoning", "toolAllow", "trim"];

/// Parses the options object (without its function-valued keys).
pub fn parse(value: &Value) -> Result<Options> {
    parse_with(value, &[])
}

/// [`parse`] for an object that also accepts `extra` keys, taken out of it before (a Session's
/// own keys): an unknown key's error lists them too.
pub fn parse_with(value: &Value, extra: &[&'static str]) -> Result<Options> {
    let r = Reader::listed(value, "", &[&OPTION_KEYS, extra])?;
    let extractive = match r.value("summarize") {
        Some(Value::String(s)) if s == "extractive" => true,
        Some(_) => {
            return Err(Error::invalid_option(
                "summarize",
                "summarize must be a function or \"extractive\"",
            ))
        }
        None => false,
    };
    for key in FUNCTION_KEYS.into_iter().filter(|k| *k != "summarize") {
        if r.value(key).is_some() {
            return Err(not_a_function(key));
        }
    }
    let preset = match r.string("preset")? {
        Some(name) => Some(Preset::parse(name)?),
        None => None,
    };
    let fallback = preset.and_then(Preset::default_context_window);
    let model = r.string("model")?.map(|m| (m, model_info(m)));
    let window = match (r.count("contextWindow", 1_000)?, &model) {
        (Some(w), _) => w,
        (None, Some((_, Some(info)))) => info.context_window,
        (None, _) if fallback.is_some() => fallback.unwrap_or_default(),
        (None, Some((name, None))) => {
            return Err(Error::invalid_option(
                "contextWindow",
                format!(
                    "contextWindow is required: the model \"{name}\" is not in the model table"
                ),
            ))
        }
        (None, None) => {
            return Err(Error::invalid_option(
                "contextWindow",
                "contextWindow is required (or a known `model`)",
            ))
        }
    };
    let max_output = match (r.count("maxOutputTokens", 1)?, &model) {
        (Some(n), _) => n,
        (None, Some((_, Some(info)))) => info.max_output,
        _ => (window / 8).clamp(1, 32_000),
    };
    let mut settings = match preset {
        Some(p) => p.settings(window, max_output),
        None => Settings::new(window),
    };
    budget(&r, &mut settings)?;
    if let Some(v) = r.value("trigger") {
        settings.trigger = trigger(v, "trigger")?;
    }
    plan(&r, &mut settings)?;
    summary(&r, &mut settings)?;
    let tokenizer = match r.choice("tokenizer", &["heuristic", "o200k_base", "cl100k_base"])? {
        Some("heuristic") => Tokenizer::Heuristic,
        Some(name) => Tokenizer::Exact(EncodingName::parse(name, "tokenizer")?),
        None => match model.and_then(|(_, info)| info).and_then(|i| i.encoding) {
            Some(encoding) => Tokenizer::Exact(encoding),
            None => Tokenizer::Heuristic,
        },
    };
    let format = match r.choice("format", Format::OPTION_NAMES)? {
        Some(name) => Format::parse(name)?,
        None => None,
    };
    let image_rule =
        match r.value("imageRule") {
            // A known model's provider prices its images; otherwise Anthropic's rule.
            None => model
                .and_then(|(_, info)| info)
                .map_or(ImageRule::default(), |i| i.image_rule()),
            Some(Value::String(s)) if s == "anthropic" => ImageRule::Anthropic,
            Some(Value::String(s)) if s == "openai" => ImageRule::OpenAi,
            Some(Value::String(s)) if s == "gemini" => ImageRule::Gemini,
            Some(v) => match v.as_u64() {
                Some(n) => ImageRule::Fixed(usize::try_from(n).unwrap_or(usize::MAX)),
                None => return Err(Error::invalid_option(
                    "imageRule",
                    "imageRule must be \"anthropic\", \"openai\", \"gemini\" or a number of tokens",
                )),
            },
        };
    if let Some(n) = at_most(&r, "retries", 0, MAX_RETRIES)? {
        settings.retries = u32::try_from(n).unwrap_or(u32::MAX);
    }
    if let Some(n) = at_most(&r, "retryDelayMs", 0, MAX_TIMER_MS)? {
        settings.retry_delay_ms = n as u64;
    }
    prompts(&r, &mut settings)?;
    let provider = model.and_then(|(_, info)| info).map(|i| i.provider);
    cost::parse(&r, &mut settings, provider)?;
    let on_failure = match r.choice("onFailure", &FailurePolicy::NAMES)? {
        Some(name) => FailurePolicy::parse(name, "onFailure")?,
        None => FailurePolicy::Auto,
    };
    let profile = model
        .and_then(|(_, info)| info)
        .map_or(Profile::BASE, |i| i.profile());
    let self_calibration = match r.value("selfCalibration") {
        None | Some(Value::Bool(true)) => true,
        Some(Value::Bool(false)) => false,
        Some(_) => {
            return Err(Error::invalid_option(
                "selfCalibration",
                "selfCalibration must be true or false",
            ))
        }
    };
    let options = Options {
        profile,
        self_calibration,
        tokenizer,
        format,
        image_rule,
        timeout_ms: at_most(&r, "timeoutMs", 1, MAX_TIMER_MS)?.map_or(120_000, |n| n as u64),
        max_consecutive_failures: r
            .count("maxConsecutiveFailures", 1)?
            .map_or(3, |n| u32::try_from(n).unwrap_or(u32::MAX)),
        extractive,
        on_failure,
        settings,
    };
    r.finish()?;
    options.settings.validate()?;
    Ok(options)
}

/// The longest delay a JavaScript timer takes (`2^31 − 1` ms, about 24.8 days): a longer
/// `timeoutMs` would fire at once.
const MAX_TIMER_MS: usize = 2_147_483_647;
/// Retries of one summary request at most.
const MAX_RETRIES: usize = 100;

/// A whole number from `min` to `max` at `key`.
fn at_most(r: &Reader<'_>, key: &'static str, min: u64, max: usize) -> Result<Option<usize>> {
    match r.count(key, min)? {
        Some(n) if n > max => Err(Error::invalid_option(
            r.key_path(key),
            format!("{key} must be at most {max}, got {n}"),
        )),
        n => Ok(n),
    }
}

fn budget(r: &Reader<'_>, s: &mut Settings) -> Result<()> {
    if let Some(n) = r.count("reserveTokens", 0)? {
        // Seed 000: the summary budget is 0.8 × the reserve (a split turn's prefix 0.4 ×). Where
        // the defaults tie them to the reserve, they follow it; `summaryTokens` still wins.
        let old = s.budget.reserve_tokens;
        if s.plan.summary_tokens == old * 4 / 5 && n >= 5 {
            if s.rollup_tokens == s.plan.summary_tokens {
                s.rollup_tokens = n * 4 / 5;
            }
            s.plan.summary_tokens = n * 4 / 5;
        }
        if s.plan.prefix_summary_tokens == old * 2 / 5 && n >= 5 {
            s.plan.prefix_summary_tokens = n * 2 / 5;
        }
        s.budget.reserve_tokens = n;
    }
    match r.value("safetyMargin").and_then(Value::as_str) {
        Some("auto") => {
            s.auto_margin = true;
            s.budget.safety_margin = 0;
        }
        Some(_) => {
            return Err(Error::invalid_option(
                "safetyMargin",
                "safetyMargin must be a whole number of tokens or \"auto\"",
            ))
        }
        None => {
            if let Some(n) = r.count("safetyMargin", 0)? {
                s.budget.safety_margin = n;
            }
        }
    }
    if let Some(n) = r.count("systemTokens", 0)? {
        s.budget.system_tokens = n;
    }
    Ok(())
}

/// A trigger: `{ fraction }`, `{ fractionAbove }`, `{ tokens }`, `{ turns }`, `{ messages }`,
/// `{ anyOf: [...] }`, `{ allOf: [...] }` or `"never"`.
pub fn trigger(value: &Value, path: &str) -> Result<Trigger> {
    if value.as_str() == Some("never") {
        return Ok(Trigger::Never);
    }
    let r = Reader::new(value, path)?;
    let mut found = Vec::new();
    if let Some(f) = r.fraction("fraction")? {
        found.push(Trigger::Fraction(f));
    }
    if let Some(f) = r.fraction("fractionAbove")? {
        found.push(Trigger::FractionAbove(f));
    }
    if let Some(n) = r.count("tokens", 1)? {
        found.push(Trigger::Tokens(n));
    }
    if let Some(n) = r.count("turns", 0)? {
        found.push(Trigger::Turns(n));
    }
    if let Some(n) = r.count("messages", 0)? {
        found.push(Trigger::Messages(n));
    }
    for key in ["anyOf", "allOf"] {
        let Some(list) = r.value(if key == "anyOf" { "anyOf" } else { "allOf" }) else {
            continue;
        };
        let key_path = r.key_path(key);
        let items = list.as_array().filter(|l| !l.is_empty()).ok_or_else(|| {
            Error::invalid_option(
                &key_path,
                format!("{key} must be a non-empty array of triggers"),
            )
        })?;
        let inner = items
            .iter()
            .enumerate()
            .map(|(i, t)| trigger(t, &format!("{key_path}[{i}]")))
            .collect::<Result<Vec<_>>>()?;
        found.push(if key == "anyOf" {
            Trigger::AnyOf(inner)
        } else {
            Trigger::AllOf(inner)
        });
    }
    r.finish()?;
    match found.len() {
        1 => found.pop().ok_or_else(|| Error::invalid_option(path, "empty trigger")),
        0 => Err(Error::invalid_option(path, "a trigger needs one of fraction, fractionAbove, tokens, turns, messages, anyOf, allOf (or \"never\")")),
        _ => Err(Error::invalid_option(path, "a trigger has exactly one condition: combine several with anyOf or allOf")),
    }
}

fn plan(r: &Reader<'_>, s: &mut Settings) -> Result<()> {
    if let Some(keep) = r.count("keepRecentTokens", 0)? {
        s.plan.strategy = Strategy::RecentTokens { keep };
    }
    if let Some(v) = r.value("strategy") {
        let (strategy, summarize) = strategy(v)?;
        if matches!(strategy, Strategy::Recursive { .. }) {
            // Seed 002: the summary is a synthetic turn, a shadow prompt and the answer; a prior
            // summary is fed back as "=== PRIOR SUMMARY ===" context.
            s.summary.role = Role::Assistant;
            s.summary.question = Some(SHADOW_PROMPT.into());
            if s.templates.update == crate::core::summary::prompt::DEFAULT_UPDATE {
                s.templates.update = crate::core::summary::prompt::RECURSIVE_UPDATE.into();
            }
        }
        if matches!(
            strategy,
            Strategy::LastMessages { .. }
                | Strategy::LastTurns { .. }
                | Strategy::TokenBudget { .. }
                | Strategy::Recursive { .. }
        ) {
            // Seed 002: every strategy snaps the kept window forward to a user message.
            s.plan.boundary = TurnBoundary::Snap;
            s.plan.direction = Direction::Forward;
        }
        s.plan.strategy = strategy;
        s.plan.summarize = summarize;
    }
    match r.choice("turnBoundary", &["split", "snap"])? {
        Some("split") => {
            s.plan.boundary = TurnBoundary::Split;
            // Asked to split, a message window keeps at least its messages: a cut on a tool
            // result moves back to the call (LangChain's summarizationMiddleware, seed 001).
            if matches!(
                s.plan.strategy,
                Strategy::LastMessages { .. } | Strategy::Recursive { .. }
            ) {
                s.plan.direction = Direction::Backward;
            }
        }
        Some(_) => s.plan.boundary = TurnBoundary::Snap,
        None => {}
    }
    if let Some(n) = r.count("summaryTokens", 1)? {
        // A rollup threshold tied to the summary budget follows it (seed 004's own does not).
        if s.rollup_tokens == s.plan.summary_tokens {
            s.rollup_tokens = n;
        }
        s.plan.summary_tokens = n;
    }
    if let Some(n) = r.count("prefixSummaryTokens", 1)? {
        s.plan.prefix_summary_tokens = n;
    }
    if let Some(v) = r.value("prune") {
        s.plan.prune = prune(v)?;
    }
    if let Some(v) = r.value("transcript") {
        let t = Reader::listed(v, "transcript", &[&TRANSCRIPT_KEYS])?;
        if let Some(n) = t.count("toolOutputChars", 0)? {
            s.transcript.tool_output_chars = n;
        }
        if let Some(b) = t.boolean("includeReasoning")? {
            s.transcript.include_reasoning = b;
        }
        if let Some(list) = t.strings("toolAllow")? {
            s.transcript.tool_allow = Some(list);
        }
        if let Some(b) = t.boolean("trim")? {
            s.transcript.trim = b;
        }
        t.finish()?;
    }
    // A number of characters, or "window": chunk only past the summarizer's window.
    if let Some(text) = r.value("chunkChars").and_then(serde_json::Value::as_str) {
        if text != "window" {
            return Err(Error::invalid_option(
                "chunkChars",
                format!("chunkChars must be a whole number or \"window\", got \"{text}\""),
            ));
        }
        s.chunk_by_window = true;
    } else if let Some(n) = r.count("chunkChars", 1)? {
        s.chunk_chars = n;
        s.chunk_by_window = false;
    }
    if let Some(n) = r.count("rollupTokens", 1)? {
        s.rollup_tokens = n;
    }
    if let Some(n) = r.count("summarizerInputTokens", 1)? {
        s.summarizer_input_tokens = Some(n);
    }
    Ok(())
}

/// A strategy: `{ type: "recent-tokens", keep }`, `{ type: "sliding-window", keep }`,
/// `{ type: "turn-window", keep }`, `{ type: "token-budget", maxTokens }`,
/// `{ type: "token-window", maxTokens }` (LangChain's `keep: { tokens }`),
/// `{ type: "recursive", keep, overlap? }`, `{ type: "codex", maxTokens }`, each with an optional
/// `summarize` flag. Seed 002's sliding window, turn window and token budget make no model call:
/// they drop (archive) what they do not keep unless `summarize: true`; the others summarize.
fn strategy(value: &Value) -> Result<(Strategy, bool)> {
    let r = Reader::new(value, "strategy")?;
    let kind = r
        .choice(
            "type",
            &[
                "recent-tokens",
                "sliding-window",
                "turn-window",
                "token-budget",
                "token-window",
                "recursive",
                "codex",
            ],
        )?
        .ok_or_else(|| Error::invalid_option("strategy.type", "strategy.type is required"))?;
    let need = |key: &'static str| -> Result<usize> {
        r.count(key, 0)?.ok_or_else(|| {
            Error::invalid_option(r.key_path(key), format!("strategy \"{kind}\" needs {key}"))
        })
    };
    let s = match kind {
        "recent-tokens" => Strategy::RecentTokens {
            keep: need("keep")?,
        },
        "sliding-window" => Strategy::LastMessages {
            keep: need("keep")?,
        },
        "turn-window" => Strategy::LastTurns {
            keep: need("keep")?,
        },
        "token-budget" => Strategy::TokenBudget {
            max: need("maxTokens")?,
        },
        "token-window" => Strategy::TokenWindow {
            max: need("maxTokens")?,
        },
        "recursive" => {
            let keep = need("keep")?;
            let overlap = r
                .count("overlap", 0)?
                .unwrap_or(2.min(keep.saturating_sub(1)));
            Strategy::Recursive { keep, overlap }
        }
        _ => Strategy::RecentUserMessages {
            max_tokens: need("maxTokens")?,
        },
    };
    let drops = matches!(kind, "sliding-window" | "turn-window" | "token-budget");
    let summarize = r.boolean("summarize")?.unwrap_or(!drops);
    r.finish()?;
    Ok((s, summarize))
}

/// `false` (never), `"supersede"`, or `{ style: "supersede" | "opencode" | "anthropic" | "ttl",
/// supersede?, ... }`. The TTL style's present is the time of each call.
fn prune(value: &Value) -> Result<Option<PruneSettings>> {
    match value {
        Value::Bool(false) => return Ok(None),
        Value::String(s) if s == "supersede" => {
            return Ok(Some(PruneSettings {
                supersede: true,
                style: Style::None,
            }))
        }
        _ => {}
    }
    let r = Reader::new(value, "prune")?;
    let kind = r
        .choice("style", &["supersede", "opencode", "anthropic", "ttl"])?
        .unwrap_or("supersede");
    let supersede = r.boolean("supersede")?.unwrap_or(true);
    let style = match kind {
        "opencode" => {
            let mut o = OpenCodeOptions::default();
            if let Some(n) = r.count("protectTurns", 0)? {
                o.protect_turns = n;
            }
            if let Some(n) = r.count("protectTokens", 0)? {
                o.protect_tokens = n;
            }
            if let Some(n) = r.count("minimum", 0)? {
                o.minimum = n;
            }
            if let Some(list) = r.strings("protectedTools")? {
                o.protected_tools = list;
            }
            if let Some(p) = r.string("placeholder")? {
                o.placeholder = p.into();
            }
            Style::OpenCode(o)
        }
        "anthropic" => {
            let mut o = ClearToolUsesOptions::default();
            if let Some(n) = r.count("keep", 0)? {
                o.keep = n;
            }
            if let Some(n) = r.count("clearAtLeast", 0)? {
                o.clear_at_least = n;
            }
            if let Some(list) = r.strings("excludeTools")? {
                o.exclude_tools = list;
            }
            if let Some(b) = r.boolean("clearToolInputs")? {
                o.clear_tool_inputs = if b {
                    ClearToolInputs::All
                } else {
                    ClearToolInputs::None
                };
            }
            if let Some(p) = r.string("placeholder")? {
                o.placeholder = p.into();
            }
            Style::Anthropic(o)
        }
        "ttl" => {
            let mut o = TtlOptions::new(0);
            if let Some(n) = r.count("ttlMs", 1)? {
                o.ttl_ms = i64::try_from(n).unwrap_or(i64::MAX);
            }
            if let Some(n) = r.count("keepRecent", 0)? {
                o.keep_recent = n;
            }
            if let Some(p) = r.string("replacement")? {
                o.replacement = p.into();
            }
            Style::Ttl(o)
        }
        _ => Style::None,
    };
    r.finish()?;
    Ok(Some(PruneSettings { supersede, style }))
}

fn summary(r: &Reader<'_>, s: &mut Settings) -> Result<()> {
    match r.choice("summaryRole", &["user", "assistant", "system"])? {
        Some("user") => s.summary.role = Role::User,
        Some("assistant") => s.summary.role = Role::Assistant,
        Some(_) => s.summary.role = Role::System,
        None => {}
    }
    if let Some(p) = r.string("summaryPrefix")? {
        s.summary.prefix = p.into();
    }
    if let Some(p) = r.string("summarySuffix")? {
        s.summary.suffix = p.into();
    }
    if r.has("summaryQuestion") || r.obj_has_null("summaryQuestion") {
        s.summary.question = r.string("summaryQuestion")?.map(str::to_string);
    }
    if r.has("continueMessage") || r.obj_has_null("continueMessage") {
        s.summary.continue_message = r.string("continueMessage")?.map(str::to_string);
    }
    Ok(())
}

/// `prompts: { system?, history?, update?, turnPrefix?, chunk?, rollup? }` replace the preset's
/// (or the default) templates one by one.
fn prompts(r: &Reader<'_>, s: &mut Settings) -> Result<()> {
    let Some(v) = r.value("prompts") else {
        return Ok(());
    };
    let p = Reader::new(v, "prompts")?;
    let t = &mut s.templates;
    for (key, slot) in [
        ("system", &mut t.system),
        ("history", &mut t.history),
        ("update", &mut t.update),
        ("turnPrefix", &mut t.turn_prefix),
        ("chunk", &mut t.chunk),
        ("rollup", &mut t.rollup),
    ] {
        if let Some(text) = p.string(key)? {
            *slot = text.to_string();
        }
    }
    p.finish()
}
