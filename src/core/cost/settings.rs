//! The cost options of a compaction: whose cache rules and prices apply, and the TTL of the cache
//! markers the caller places.

use crate::core::models;

use super::price::{Prices, Provider};
use super::request::Ttl;

/// What cost estimates assume.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CostSettings {
    /// Whose cache rules apply.
    pub provider: Provider,
    /// The price table (the provider's defaults unless overridden).
    pub prices: Prices,
    /// Overrides the provider's shortest cacheable prefix.
    pub min_tokens: Option<usize>,
    /// The TTL of the caller's cache markers (Anthropic).
    pub ttl: Ttl,
}

impl CostSettings {
    /// `provider`'s rules and default prices, 5-minute markers.
    pub fn of(provider: Provider) -> CostSettings {
        CostSettings {
            provider,
            prices: Prices::of(provider),
            min_tokens: None,
            ttl: Ttl::FiveMinutes,
        }
    }
}

impl Default for CostSettings {
    /// Anthropic's: the provider whose cache a compaction request can miss the most.
    fn default() -> Self {
        CostSettings::of(Provider::Anthropic)
    }
}

impl From<models::Provider> for Provider {
    fn from(p: models::Provider) -> Provider {
        match p {
            models::Provider::Anthropic => Provider::Anthropic,
            models::Provider::OpenAi => Provider::OpenAi,
            models::Provider::Google => Provider::Gemini,
        }
    }
}
