//! Seed 003's cache-lifetime pruning: a tool result older than `ttl_ms` relative to `now` is
//! hidden behind a replacement text.
//!
//! The age of a result is `now - timestamp` of the message that carries it; a message without a
//! timestamp is never pruned. The last `keep_recent` tool results (counted over all results) are
//! never pruned. Pruning after the provider's prompt cache has expired costs no cache
//! invalidation, which is why this style exists (a prefix that is no longer cached is rewritten
//! for free).

use super::{action, tool_uses, Claimed, Cost, PruneAction, PruneKind};
use crate::core::message::Message;

/// The default text put instead of an expired tool result.
pub const TTL_REPLACEMENT: &str =
    "[Old tool result hidden after the cache lifetime expired; run the tool again if needed]";

/// The settings of cache-lifetime pruning.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TtlOptions {
    /// Results older than this many milliseconds are pruned (default 300,000: five minutes,
    /// Anthropic's default prompt-cache lifetime).
    pub ttl_ms: i64,
    /// The present, in milliseconds since the Unix epoch.
    pub now: i64,
    /// The newest tool results never pruned (default 3).
    pub keep_recent: usize,
    /// The text put instead of a pruned output (default [`TTL_REPLACEMENT`]).
    pub replacement: String,
}

impl TtlOptions {
    /// The defaults, at time `now` (milliseconds since the Unix epoch).
    pub fn new(now: i64) -> Self {
        TtlOptions {
            ttl_ms: 300_000,
            now,
            keep_recent: 3,
            replacement: TTL_REPLACEMENT.to_string(),
        }
    }
}

/// Prunes the expired tool results by the rules of the module documentation, oldest first.
pub fn prune_ttl(messages: &[Message], options: &TtlOptions, cost: Cost<'_>) -> Vec<PruneAction> {
    plan(messages, options, cost, &Claimed::default())
}

/// As [`prune_ttl`], leaving parts in `claimed` alone.
pub(crate) fn plan(
    messages: &[Message],
    options: &TtlOptions,
    cost: Cost<'_>,
    claimed: &Claimed,
) -> Vec<PruneAction> {
    let uses = tool_uses(messages);
    let older = uses.len().saturating_sub(options.keep_recent);
    uses.iter()
        .take(older)
        .filter(|u| !claimed.contains(&u.result))
        .filter(|u| {
            messages
                .get(u.result.0)
                .and_then(|m| m.timestamp)
                .is_some_and(|t| options.now.saturating_sub(t) > options.ttl_ms)
        })
        .filter_map(|u| {
            let kind = PruneKind::ReplaceOutput {
                placeholder: options.replacement.clone(),
            };
            action(messages, u.result, kind, cost)
        })
        .collect()
}
