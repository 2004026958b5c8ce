//! OpenCode's prune (`session/compaction.ts`), with its defaults.
//!
//! Walk the history backward. Messages from the `protect_turns`-th last user turn on are skipped.
//! The walk stops at a summary message (what lies before it is no longer sent) and at a result
//! that already holds the placeholder (everything older was pruned by an earlier run). Every
//! other successful tool result adds its cost to a running total; once the total exceeds
//! `protect_tokens`, the result is prunable (so the newest `protect_tokens` of tool output stay).
//! Results of protected tools are neither counted nor pruned; error results are left alone (as
//! OpenCode prunes only completed tools). The prunable results are committed only when together
//! they free more than `minimum` tokens; otherwise nothing is pruned.

use super::{
    action, holds_placeholder, is_protected, tool_uses, Claimed, Cost, PruneAction, PruneKind,
};
use crate::core::message::Message;

/// OpenCode's placeholder for a pruned tool output.
pub const OPENCODE_PLACEHOLDER: &str = "[Old tool result content cleared]";

/// The settings of OpenCode's prune.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenCodeOptions {
    /// The last user turns left untouched (default 2).
    pub protect_turns: usize,
    /// Tokens of the newest tool output left untouched (default 40,000).
    pub protect_tokens: usize,
    /// Prune only when more than this many tokens are freed (default 20,000).
    pub minimum: usize,
    /// Tool names never pruned (default `["skill"]`).
    pub protected_tools: Vec<String>,
    /// The text put instead of a pruned output (default [`OPENCODE_PLACEHOLDER`]).
    pub placeholder: String,
}

impl Default for OpenCodeOptions {
    fn default() -> Self {
        OpenCodeOptions {
            protect_turns: 2,
            protect_tokens: 40_000,
            minimum: 20_000,
            protected_tools: vec!["skill".to_string()],
            placeholder: OPENCODE_PLACEHOLDER.to_string(),
        }
    }
}

/// OpenCode's prune: the actions, oldest first, or none when they would not free more than
/// `options.minimum` tokens.
pub fn prune_opencode(
    messages: &[Message],
    options: &OpenCodeOptions,
    cost: Cost<'_>,
) -> Vec<PruneAction> {
    plan(messages, options, cost, &Claimed::default())
}

/// As [`prune_opencode`]; parts in `claimed` count toward the protected total but are not pruned.
pub(crate) fn plan(
    messages: &[Message],
    options: &OpenCodeOptions,
    cost: Cost<'_>,
    claimed: &Claimed,
) -> Vec<PruneAction> {
    // Where the walk starts: the start of the protect_turns-th last user turn (exclusive bound).
    let mut boundary = messages.len();
    if options.protect_turns > 0 {
        let mut turns = 0;
        for (i, m) in messages.iter().enumerate().rev() {
            if m.is_user_turn_start() {
                turns += 1;
                if turns >= options.protect_turns {
                    boundary = i;
                    break;
                }
            }
        }
        if turns < options.protect_turns {
            return Vec::new();
        }
    }
    // Where it stops: the last summary before the boundary.
    let floor = messages
        .get(..boundary)
        .and_then(|older| older.iter().rposition(|m| m.summary))
        .map_or(0, |i| i + 1);

    let mut uses = tool_uses(messages);
    uses.retain(|u| (floor..boundary).contains(&u.result.0));
    let mut total = 0usize;
    let mut actions = Vec::new();
    for used in uses.iter().rev() {
        let Some(message) = messages.get(used.result.0) else {
            continue;
        };
        let Some(part) = message.parts.get(used.result.1) else {
            continue;
        };
        if holds_placeholder(part, &options.placeholder) {
            break;
        }
        if used.is_error
            || is_protected(message)
            || used
                .name
                .is_some_and(|n| options.protected_tools.iter().any(|p| p == n))
        {
            continue;
        }
        total = total.saturating_add(cost.at(used.result, part));
        if total <= options.protect_tokens || claimed.contains(&used.result) {
            continue;
        }
        let kind = PruneKind::ReplaceOutput {
            placeholder: options.placeholder.clone(),
        };
        if let Some(a) = action(messages, used.result, kind, cost) {
            actions.push(a);
        }
    }
    let freed: usize = actions.iter().map(|a| a.tokens_freed).sum();
    if freed <= options.minimum {
        return Vec::new();
    }
    actions.reverse();
    actions
}
