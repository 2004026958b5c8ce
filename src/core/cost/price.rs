//! The price table: per provider, the dollar price of a million input and output tokens and the
//! multipliers of cached input. Input-token equivalents (fresh + read × read factor + written ×
//! write factor) compare requests independently of the model's dollar price.
//!
//! Defaults (USD per million tokens, see `docs/cost.md` for the sources): Anthropic Claude Sonnet
//! 4.5: input 3, output 15, cache read 0.1×, 5-minute write 1.25×, 1-hour write 2×; OpenAI GPT-5:
//! input 1.25, output 10, cached input 0.1×, no write charge; Gemini 2.5 Pro (prompts up to 200k
//! tokens): input 1.25, output 10, implicit cache hits 0.1×, no write charge.

use super::usage::CacheUsage;

/// Whose cache rules and prices apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Provider {
    /// Explicit `cache_control` breakpoints.
    Anthropic,
    /// Automatic prefix caching.
    OpenAi,
    /// Implicit caching.
    Gemini,
    /// No prompt cache: every input token is fresh.
    None,
}

impl Provider {
    /// `"anthropic"`, `"openai"`, `"gemini"`, `"none"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::Anthropic => "anthropic",
            Provider::OpenAi => "openai",
            Provider::Gemini => "gemini",
            Provider::None => "none",
        }
    }

    /// Parses a name of [`Provider::as_str`].
    pub fn parse(name: &str) -> Option<Provider> {
        [
            Provider::Anthropic,
            Provider::OpenAi,
            Provider::Gemini,
            Provider::None,
        ]
        .into_iter()
        .find(|p| p.as_str() == name)
    }
}

/// Prices of one model; every field may be overridden by the caller.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prices {
    /// USD per million fresh input tokens.
    pub input: f64,
    /// USD per million output tokens.
    pub output: f64,
    /// A cache read's price as a multiple of `input`.
    pub cache_read: f64,
    /// A 5-minute cache write's price as a multiple of `input` (Anthropic).
    pub cache_write_5m: f64,
    /// A 1-hour cache write's price as a multiple of `input` (Anthropic).
    pub cache_write_1h: f64,
}

impl Prices {
    /// The default prices of `provider` (see the module documentation).
    pub fn of(provider: Provider) -> Prices {
        match provider {
            Provider::Anthropic => Prices {
                input: 3.0,
                output: 15.0,
                cache_read: 0.1,
                cache_write_5m: 1.25,
                cache_write_1h: 2.0,
            },
            Provider::OpenAi | Provider::Gemini => Prices {
                input: 1.25,
                output: 10.0,
                cache_read: 0.1,
                cache_write_5m: 1.0,
                cache_write_1h: 1.0,
            },
            Provider::None => Prices {
                input: 3.0,
                output: 15.0,
                cache_read: 1.0,
                cache_write_5m: 1.0,
                cache_write_1h: 1.0,
            },
        }
    }

    /// What `usage` costs in fresh input tokens.
    pub fn input_equivalents(&self, usage: &CacheUsage) -> f64 {
        usage.fresh as f64
            + usage.read as f64 * self.cache_read
            + usage.write_5m as f64 * self.cache_write_5m
            + usage.write_1h as f64 * self.cache_write_1h
    }

    /// USD for `usage` and `output` output tokens.
    pub fn dollars(&self, usage: &CacheUsage, output: usize) -> f64 {
        (self.input_equivalents(usage) * self.input + output as f64 * self.output) / 1_000_000.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_codes_recorded_compaction_is_about_21_7k_equivalents() {
        // The session: 3 fresh, 2,487 written (1-hour), 166,758 read.
        let usage = CacheUsage {
            fresh: 3,
            read: 166_758,
            write_5m: 0,
            write_1h: 2_487,
        };
        let eq = Prices::of(Provider::Anthropic).input_equivalents(&usage);
        assert!((eq - 21_652.8).abs() < 0.01, "{eq}");
        let dollars = Prices::of(Provider::Anthropic).dollars(&usage, 1_000);
        assert!((dollars - (21_652.8 * 3.0 + 15_000.0) / 1e6).abs() < 1e-9);
        assert_eq!(Provider::parse("openai"), Some(Provider::OpenAi));
        assert_eq!(Provider::parse("azure"), None);
        let none = Prices::of(Provider::None);
        assert_eq!(
            none.input_equivalents(&CacheUsage {
                fresh: 5,
                read: 5,
                ..CacheUsage::default()
            }),
            10.0
        );
    }
}
