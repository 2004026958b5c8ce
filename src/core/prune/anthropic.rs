//! The Anthropic API's "clear tool uses" context edit (`clear_tool_uses_20250919`), client side.
//!
//! Every tool use but the last `keep` (a tool use is a tool result with its call; all results
//! count toward `keep`, excluded tools included) is cleared oldest first: its result's output is
//! replaced by `placeholder`, and, when `clear_tool_inputs` selects its tool, its call's input by
//! `input_placeholder` (default `{}`, as Anthropic requires an object). Tools in `exclude_tools`
//! are never cleared. All of it happens only when it frees at least `clear_at_least` tokens
//! (default 0: any amount); otherwise nothing is cleared. When to run (Anthropic's `trigger`,
//! 100,000 input tokens by default) is the caller's decision, made by the trigger settings.

use serde_json::Value;

use super::{action, tool_uses, Claimed, Cost, PruneAction, PruneKind};
use crate::core::message::Message;

/// The text put instead of a cleared tool result (Anthropic does not publish its own wording).
pub const CLEARED_PLACEHOLDER: &str = "[Tool result cleared to save context]";

/// Which calls get their input cleared along with their result.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum ClearToolInputs {
    /// Results only (Anthropic's default).
    #[default]
    None,
    /// Every cleared tool use.
    All,
    /// Cleared tool uses of these tools.
    Only(Vec<String>),
}

impl ClearToolInputs {
    fn applies_to(&self, name: Option<&str>) -> bool {
        match self {
            ClearToolInputs::None => false,
            ClearToolInputs::All => true,
            ClearToolInputs::Only(names) => name.is_some_and(|n| names.iter().any(|x| x == n)),
        }
    }
}

/// The settings of "clear tool uses".
#[derive(Clone, Debug, PartialEq)]
pub struct ClearToolUsesOptions {
    /// The newest tool uses kept (default 3).
    pub keep: usize,
    /// Clear only when at least this many tokens are freed (default 0).
    pub clear_at_least: usize,
    /// Tools never cleared.
    pub exclude_tools: Vec<String>,
    /// Whether call inputs are cleared too (default: no).
    pub clear_tool_inputs: ClearToolInputs,
    /// Text of a cleared result (default [`CLEARED_PLACEHOLDER`]).
    pub placeholder: String,
    /// Input of a cleared call (default `{}`).
    pub input_placeholder: Value,
}

impl Default for ClearToolUsesOptions {
    fn default() -> Self {
        ClearToolUsesOptions {
            keep: 3,
            clear_at_least: 0,
            exclude_tools: Vec::new(),
            clear_tool_inputs: ClearToolInputs::None,
            placeholder: CLEARED_PLACEHOLDER.to_string(),
            input_placeholder: Value::Object(serde_json::Map::new()),
        }
    }
}

/// What "clear tool uses" did, as the Anthropic API reports it.
#[derive(Clone, Debug, PartialEq)]
pub struct ClearedToolUses {
    /// The actions, oldest first (a result, then its call's input when cleared).
    pub actions: Vec<PruneAction>,
    /// Tool uses whose result was cleared.
    pub cleared_tool_uses: usize,
    /// Tokens freed, results and inputs together.
    pub cleared_input_tokens: usize,
}

/// Clears old tool uses by the rules of the module documentation.
pub fn clear_tool_uses(
    messages: &[Message],
    options: &ClearToolUsesOptions,
    cost: Cost<'_>,
) -> ClearedToolUses {
    let actions = plan(messages, options, cost, &Claimed::default());
    let cleared_tool_uses = actions
        .iter()
        .filter(|a| matches!(a.kind, PruneKind::ReplaceOutput { .. }))
        .count();
    let cleared_input_tokens = actions.iter().map(|a| a.tokens_freed).sum();
    ClearedToolUses {
        actions,
        cleared_tool_uses,
        cleared_input_tokens,
    }
}

/// As [`clear_tool_uses`]; results in `claimed` still count as tool uses but are not cleared.
pub(crate) fn plan(
    messages: &[Message],
    options: &ClearToolUsesOptions,
    cost: Cost<'_>,
    claimed: &Claimed,
) -> Vec<PruneAction> {
    let uses = tool_uses(messages);
    let older = uses.len().saturating_sub(options.keep);
    let mut actions = Vec::new();
    for used in uses.iter().take(older) {
        if claimed.contains(&used.result)
            || used
                .name
                .is_some_and(|n| options.exclude_tools.iter().any(|x| x == n))
        {
            continue;
        }
        let kind = PruneKind::ReplaceOutput {
            placeholder: options.placeholder.clone(),
        };
        let Some(cleared) = action(messages, used.result, kind, cost) else {
            continue;
        };
        actions.push(cleared);
        if !options.clear_tool_inputs.applies_to(used.name) {
            continue;
        }
        if let Some(call) = used.call {
            let kind = PruneKind::ClearInput {
                placeholder: options.input_placeholder.clone(),
            };
            if let Some(a) = action(messages, call, kind, cost) {
                actions.push(a);
            }
        }
    }
    let freed: usize = actions.iter().map(|a| a.tokens_freed).sum();
    if freed < options.clear_at_least {
        return Vec::new();
    }
    actions
}
