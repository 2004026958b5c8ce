//! What a summarizer request costs at a provider that caches prompt prefixes.
//!
//! - [`request`] describes a request as the provider sees it: a sequence of blocks (system prompt,
//!   tools, messages), each with its token count, a key that is equal exactly when the bytes are
//!   equal, and an optional cache marker with its TTL.
//! - [`rules`] holds each provider's cache rules (Anthropic's explicit breakpoints, OpenAI's
//!   automatic prefix caching, Gemini's implicit caching) and applies them to a previous request
//!   and the next one: how many tokens are read from the cache, written to it and sent fresh
//!   ([`usage`]).
//! - [`price`] turns those counts into input-token equivalents and a price from a small table
//!   that callers may override; [`settings`] the options that choose them.
//! - [`compaction`] builds the two requests a compaction may send (the conversation continued
//!   with the summary instruction, or a transcript prompt) and prices each; [`forecast`] does it
//!   for a planned compaction of a history (what `plan()` reports).
//!
//! The facts and their sources are in `docs/cost.md`. Pure arithmetic: nothing here calls a model.

pub mod compaction;
pub mod forecast;
pub mod price;
pub mod request;
pub mod rules;
pub mod settings;
pub mod usage;

pub use compaction::{estimate, CompactionCost, CostInput, ModeCost};
pub use forecast::forecast;
pub use price::{Prices, Provider};
pub use request::{Block, Request, Ttl};
pub use rules::bill;
pub use settings::CostSettings;
pub use usage::CacheUsage;
