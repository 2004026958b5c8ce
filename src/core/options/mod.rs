//! The options of a `Compactor`, parsed from JSON (the JS object minus its functions) into
//! [`Settings`] and the few knobs that only the binding uses. A preset (if any) is applied first;
//! every explicit option then overrides it. Every error is `INVALID_OPTIONS` with the key's path.

pub mod reader;
pub mod trim;

use crate::core::cut::TurnBoundary;
use crate::core::error::{Error, Result};
use crate::core::estimate::ImageRule;
use crate::core::message::Role;
use crate::core::models::model_info;
use crate::core::plan::{PruneSettings, Strategy};
use crate::core::preset::Preset;
use crate::core::prune::{
    ClearToolInputs, ClearToolUsesOptions, OpenCodeOptions, Style, TtlOptions,
};
use crate::core::settings::Settings;
use crate::core::tokens::EncodingName;
use crate::core::trigger::Trigger;
use crate::formats::Format;
use reader::Reader;
use serde_json::Value;

/// How tokens are counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tokenizer {
    /// The preset's estimate (the content-aware heuristic unless the preset counts characters).
    Heuristic,
    /// An exact encoding.
    Exact(EncodingName),
}

/// Replacements for the default prompt templates (`None` keeps the default).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Prompts {
    pub system: Option<String>,
    pub history: Option<String>,
    pub update: Option<String>,
    pub turn_prefix: Option<String>,
    pub chunk: Option<String>,
    pub rollup: Option<String>,
}

/// Everything the options say.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    pub settings: Settings,
    pub tokenizer: Tokenizer,
    /// `None` detects the format of each call's messages.
    pub format: Option<Format>,
    pub image_rule: ImageRule,
    /// Per summarizer call.
    pub timeout_ms: u64,
    /// First retry delay; doubles each retry.
    pub retry_delay_ms: u64,
    /// Automatic compaction stops after this many consecutive failures (manual still works).
    pub max_consecutive_failures: u32,
    pub prompts: Prompts,
}

/// The keys that hold functions; the binding reads them itself.
pub const FUNCTION_KEYS: [&str; 4] = [
    "summarize",
    "onBeforeCompaction",
    "onAfterCompaction",
    "onProgress",
];

/// Parses the options object (without its function-valued keys).
pub fn parse(value: &Value) -> Result<Options> {
    let r = Reader::new(value, "")?;
    for key in FUNCTION_KEYS {
        if r.value(key).is_some() {
            return Err(Error::invalid_option(
                key,
                format!("{key} must be a function"),
            ));
        }
    }
    let model = r.string("model")?.map(|m| (m, model_info(m)));
    let window = match (r.count("contextWindow", 1_000)?, &model) {
        (Some(w), _) => w,
        (None, Some((_, Some(info)))) => info.context_window,
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
    let mut settings = match r.choice("preset", &PRESET_NAMES)? {
        Some(name) => Preset::parse(name)?.settings(window, max_output),
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
    let format = match r.choice("format", &["auto", "ai-sdk", "openai", "anthropic", "pi"])? {
        Some(name) => Format::parse(name)?,
        None => None,
    };
    let image_rule =
        match r.value("imageRule") {
            None => ImageRule::default(),
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
    if let Some(n) = r.count("retries", 0)? {
        settings.retries = u32::try_from(n).unwrap_or(u32::MAX);
    }
    let options = Options {
        tokenizer,
        format,
        image_rule,
        timeout_ms: r.count("timeoutMs", 1)?.map_or(120_000, |n| n as u64),
        retry_delay_ms: r.count("retryDelayMs", 0)?.map_or(1_000, |n| n as u64),
        max_consecutive_failures: r
            .count("maxConsecutiveFailures", 1)?
            .map_or(3, |n| u32::try_from(n).unwrap_or(u32::MAX)),
        prompts: prompts(&r)?,
        settings,
    };
    r.finish()?;
    options.settings.validate()?;
    Ok(options)
}

const PRESET_NAMES: [&str; 9] = [
    "pi",
    "codex",
    "opencode",
    "claude-code",
    "langchain",
    "anthropic-api",
    "seed-001",
    "seed-003",
    "seed-004",
];

fn budget(r: &Reader<'_>, s: &mut Settings) -> Result<()> {
    if let Some(n) = r.count("reserveTokens", 0)? {
        s.budget.reserve_tokens = n;
    }
    if let Some(n) = r.count("safetyMargin", 0)? {
        s.budget.safety_margin = n;
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
        s.plan.strategy = strategy(v)?;
    }
    match r.choice("turnBoundary", &["split", "snap"])? {
        Some("split") => s.plan.boundary = TurnBoundary::Split,
        Some(_) => s.plan.boundary = TurnBoundary::Snap,
        None => {}
    }
    if let Some(n) = r.count("summaryTokens", 1)? {
        s.plan.summary_tokens = n;
    }
    if let Some(n) = r.count("prefixSummaryTokens", 1)? {
        s.plan.prefix_summary_tokens = n;
    }
    if let Some(v) = r.value("prune") {
        s.plan.prune = prune(v)?;
    }
    if let Some(v) = r.value("transcript") {
        let t = Reader::new(v, "transcript")?;
        if let Some(n) = t.count("toolOutputChars", 0)? {
            s.transcript.tool_output_chars = n;
        }
        if let Some(b) = t.boolean("includeReasoning")? {
            s.transcript.include_reasoning = b;
        }
        if let Some(list) = t.strings("toolAllow")? {
            s.transcript.tool_allow = Some(list);
        }
        t.finish()?;
    }
    if let Some(n) = r.count("chunkChars", 1)? {
        s.chunk_chars = n;
    }
    if let Some(n) = r.count("rollupTokens", 1)? {
        s.rollup_tokens = n;
    }
    if let Some(n) = r.count("summarizerInputTokens", 1)? {
        s.summarizer_input_tokens = Some(n);
    }
    Ok(())
}

/// A strategy: `{ type: "recent-tokens", keep }`, `{ type: "sliding-window", keep, direction? }`,
/// `{ type: "turn-window", keep }`, `{ type: "token-budget", maxTokens }`,
/// `{ type: "recursive", keep, overlap? }`, `{ type: "codex", maxTokens }`.
fn strategy(value: &Value) -> Result<Strategy> {
    let r = Reader::new(value, "strategy")?;
    let kind = r
        .choice(
            "type",
            &[
                "recent-tokens",
                "sliding-window",
                "turn-window",
                "token-budget",
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
    r.finish()?;
    Ok(s)
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
    if r.has("summaryQuestion") || r.obj_has_null("summaryQuestion") {
        s.summary.question = r.string("summaryQuestion")?.map(str::to_string);
    }
    if r.has("continueMessage") || r.obj_has_null("continueMessage") {
        s.summary.continue_message = r.string("continueMessage")?.map(str::to_string);
    }
    Ok(())
}

fn prompts(r: &Reader<'_>) -> Result<Prompts> {
    let Some(v) = r.value("prompts") else {
        return Ok(Prompts::default());
    };
    let p = Reader::new(v, "prompts")?;
    let out = Prompts {
        system: p.string("system")?.map(str::to_string),
        history: p.string("history")?.map(str::to_string),
        update: p.string("update")?.map(str::to_string),
        turn_prefix: p.string("turnPrefix")?.map(str::to_string),
        chunk: p.string("chunk")?.map(str::to_string),
        rollup: p.string("rollup")?.map(str::to_string),
    };
    p.finish()?;
    Ok(out)
}
