//! The options of `trimMessages` (LangChain's names), parsed with key paths.

use super::reader::Reader;
use super::Tokenizer;
use crate::core::error::Result;
use crate::core::format::Format;
use crate::core::tokens::EncodingName;
use crate::core::trim::{TrimOptions, TrimStrategy};
use serde_json::Value;

/// Every key of `trimMessages`' options (`TrimOptions` in `js/types/`).
pub const TRIM_KEYS: [&str; 8] = [
    "maxTokens",
    "strategy",
    "startOn",
    "endOn",
    "includeSystem",
    "allowPartial",
    "tokenizer",
    "format",
];

/// `trimMessages` options: the trim itself, the tokenizer and the message format.
pub fn parse_trim(value: &Value) -> Result<(TrimOptions, Tokenizer, Option<Format>)> {
    let r = Reader::listed(value, "", &[&TRIM_KEYS])?;
    let max = r.count("maxTokens", 0)?.ok_or_else(|| {
        crate::core::error::Error::invalid_option("maxTokens", "maxTokens is required")
    })?;
    let mut o = TrimOptions::new(max);
    if let Some(s) = r.choice("strategy", &["first", "last"])? {
        o.strategy = if s == "first" {
            TrimStrategy::First
        } else {
            TrimStrategy::Last
        };
    }
    for (key, slot) in [("startOn", &mut o.start_on), ("endOn", &mut o.end_on)] {
        let names = match r.value(if key == "startOn" { "startOn" } else { "endOn" }) {
            None => Vec::new(),
            Some(Value::String(s)) => vec![s.clone()],
            Some(_) => r
                .strings(if key == "startOn" { "startOn" } else { "endOn" })?
                .unwrap_or_default(),
        };
        *slot = names
            .iter()
            .map(|n| TrimOptions::parse_role(n, key))
            .collect::<Result<Vec<_>>>()?;
    }
    o.include_system = r.boolean("includeSystem")?.unwrap_or(false);
    o.allow_partial = r.boolean("allowPartial")?.unwrap_or(false);
    let tokenizer = match r.choice("tokenizer", &["heuristic", "o200k_base", "cl100k_base"])? {
        Some("heuristic") | None => Tokenizer::Heuristic,
        Some(name) => Tokenizer::Exact(EncodingName::parse(name, "tokenizer")?),
    };
    let format = match r.choice("format", Format::OPTION_NAMES)? {
        Some(name) => Format::parse(name)?,
        None => None,
    };
    r.finish()?;
    Ok((o, tokenizer, format))
}
