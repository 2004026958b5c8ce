//! The options `summaryMode` and `cost`: which summary request is offered first, and whose cache
//! rules and prices cost estimates assume.
//!
//! `cost: { provider?, prices?: { input?, output?, cacheRead?, cacheWrite5m?, cacheWrite1h? },
//! minCacheTokens?, cacheTtl? }`. Without `provider`, a known `model`'s provider, else the
//! preset's; `prices` override single entries of that provider's table.

use crate::core::cost::{CostSettings, Prices, Provider, Ttl};
use crate::core::error::{Error, Result};
use crate::core::models;
use crate::core::settings::Settings;
use crate::core::summary::SummaryMode;

use super::reader::Reader;

/// Reads `summaryMode` and `cost` into `s`; `model` is the provider of the `model` option.
pub fn parse(r: &Reader<'_>, s: &mut Settings, model: Option<models::Provider>) -> Result<()> {
    if let Some(name) = r.choice("summaryMode", &["transcript", "continue"])? {
        s.summary_mode = SummaryMode::parse(name).unwrap_or(SummaryMode::Transcript);
        // A continuing request is the whole conversation: its summary job is one request while
        // that fits the summarizer's window (as the continuing presets'), not chunks by characters
        // (unless `chunkChars` says so).
        if s.summary_mode == SummaryMode::Continue && r.value("chunkChars").is_none() {
            s.chunk_by_window = true;
        }
    }
    if let Some(p) = model {
        let ttl = s.cost.ttl;
        s.cost = CostSettings {
            ttl,
            ..CostSettings::of(p.into())
        };
    }
    let Some(v) = r.value("cost") else {
        return Ok(());
    };
    let c = Reader::new(v, "cost")?;
    if let Some(name) = c.choice("provider", &["anthropic", "openai", "gemini", "none"])? {
        let provider = Provider::parse(name).unwrap_or(Provider::Anthropic);
        s.cost = CostSettings {
            ttl: s.cost.ttl,
            ..CostSettings::of(provider)
        };
    }
    if let Some(v) = c.value("prices") {
        let p = Reader::new(v, "cost.prices")?;
        let table: &mut Prices = &mut s.cost.prices;
        for (key, field) in [
            ("input", &mut table.input),
            ("output", &mut table.output),
            ("cacheRead", &mut table.cache_read),
            ("cacheWrite5m", &mut table.cache_write_5m),
            ("cacheWrite1h", &mut table.cache_write_1h),
        ] {
            if let Some(n) = non_negative(&p, key)? {
                *field = n;
            }
        }
        p.finish()?;
    }
    if let Some(n) = c.count("minCacheTokens", 1)? {
        s.cost.min_tokens = Some(n);
    }
    if let Some(name) = c.choice("cacheTtl", &["5m", "1h"])? {
        s.cost.ttl = Ttl::parse(name).unwrap_or(Ttl::FiveMinutes);
    }
    c.finish()
}

fn non_negative(r: &Reader<'_>, key: &'static str) -> Result<Option<f64>> {
    let Some(v) = r.value(key) else {
        return Ok(None);
    };
    match v.as_f64() {
        Some(n) if n.is_finite() && n >= 0.0 => Ok(Some(n)),
        _ => Err(Error::invalid_option(
            r.key_path(key),
            format!("{key} must be a number of at least 0, got {v}"),
        )),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use crate::core::cost::{Provider, Ttl};
    use crate::core::options::parse;
    use crate::core::summary::SummaryMode;
    use serde_json::json;

    #[test]
    fn a_continuing_summary_is_one_request_while_it_fits() {
        let o = parse(&json!({"contextWindow": 200_000, "summaryMode": "continue"})).unwrap();
        assert!(o.settings.chunk_by_window);
        let o = parse(
            &json!({"contextWindow": 200_000, "summaryMode": "continue", "chunkChars": 50_000}),
        )
        .unwrap();
        assert!(!o.settings.chunk_by_window);
        let o = parse(&json!({"contextWindow": 200_000})).unwrap();
        assert!(!o.settings.chunk_by_window);
    }

    #[test]
    fn presets_choose_the_mode_and_options_override() {
        let o = parse(
            &json!({"contextWindow": 200_000, "preset": "claude-code", "summarize": "extractive"}),
        )
        .unwrap();
        assert_eq!(o.settings.summary_mode, SummaryMode::Continue);
        assert_eq!(o.settings.cost.provider, Provider::Anthropic);
        assert_eq!(o.settings.cost.ttl, Ttl::OneHour);
        let o = parse(
            &json!({"contextWindow": 200_000, "preset": "codex", "summaryMode": "transcript"}),
        )
        .unwrap();
        assert_eq!(o.settings.summary_mode, SummaryMode::Transcript);
        assert_eq!(o.settings.cost.provider, Provider::OpenAi);
        let o = parse(&json!({"contextWindow": 200_000, "preset": "pi"})).unwrap();
        assert_eq!(o.settings.summary_mode, SummaryMode::Transcript);
        let o = parse(&json!({"model": "gemini-2.5-pro"})).unwrap();
        assert_eq!(o.settings.cost.provider, Provider::Gemini);
        let o = parse(&json!({"contextWindow": 100_000, "cost": {"provider": "openai", "prices": {"input": 2, "cacheRead": 0.5}, "minCacheTokens": 2048, "cacheTtl": "1h"}})).unwrap();
        assert_eq!(o.settings.cost.provider, Provider::OpenAi);
        assert_eq!(o.settings.cost.prices.input, 2.0);
        assert_eq!(o.settings.cost.prices.cache_read, 0.5);
        assert_eq!(o.settings.cost.prices.output, 10.0);
        assert_eq!(o.settings.cost.min_tokens, Some(2048));
        assert_eq!(o.settings.cost.ttl, Ttl::OneHour);
        for (bad, path) in [
            (json!({"summaryMode": "chat"}), "summaryMode"),
            (json!({"cost": {"provider": "azure"}}), "cost.provider"),
            (
                json!({"cost": {"prices": {"input": -1}}}),
                "cost.prices.input",
            ),
            (
                json!({"cost": {"prices": {"inputs": 1}}}),
                "cost.prices.inputs",
            ),
            (json!({"cost": {"ttl": "1h"}}), "cost.ttl"),
        ] {
            let mut options = json!({"contextWindow": 100_000});
            if let (Some(o), Some(b)) = (options.as_object_mut(), bad.as_object()) {
                o.extend(b.clone());
            }
            let err = parse(&options).unwrap_err();
            assert_eq!(err.path.as_deref(), Some(path), "{options}");
        }
    }
}
