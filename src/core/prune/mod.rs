//! Tool-output pruning without a model call: old tool results (and optionally call inputs) are
//! replaced by a short placeholder.
//!
//! Every pruner returns [`PruneAction`]s and changes nothing itself; [`apply`] performs them. The
//! shared guarantees:
//! - only a tool result's output or a tool call's input is replaced: no part or message is added,
//!   removed or moved, and ids stay, so tool-call pairing is exactly what it was;
//! - pinned messages and summary messages are never touched;
//! - an action is only proposed when it frees tokens (`tokens_freed > 0`, measured with the
//!   caller's `cost` as the part's cost before minus after), so a part already replaced by the
//!   same placeholder is never pruned again;
//! - `tokens_freed` of the actions add up to what [`apply`] saves, under the same `cost`.
//!
//! Styles: [`opencode`] (OpenCode's prune), [`anthropic`] (the Anthropic API's "clear tool uses"),
//! [`ttl`] (seed 003: results older than a cache lifetime), [`supersede`] (file reads made stale
//! by a later read or edit of the same file), and [`order`] to run supersession before a style.

pub mod anthropic;
pub mod opencode;
pub mod order;
pub mod supersede;
pub mod ttl;

use rustc_hash::FxHashSet;

use serde_json::Value;

use super::message::{Message, Part};
use super::validate::{pairing, ResultStatus};

pub use anthropic::{
    clear_tool_uses, ClearToolInputs, ClearToolUsesOptions, ClearedToolUses, CLEARED_PLACEHOLDER,
};
pub use opencode::{prune_opencode, OpenCodeOptions, OPENCODE_PLACEHOLDER};
pub use order::{order, order_in_place, Style};
pub use supersede::{classify, prune_superseded, FileAccess};
pub use ttl::{prune_ttl, TtlOptions, TTL_REPLACEMENT};

/// What parts cost in tokens, supplied by the caller (an estimator or a tokenizer). Any
/// `Fn(&Part) -> usize` is one; a caller that already knows the cost of the history's parts
/// (a cache) answers [`PartCost::at`] from the position instead of measuring again.
pub trait PartCost {
    /// The cost of `part`, which is part `at.1` of message `at.0` of the history being pruned.
    fn at(&self, at: (usize, usize), part: &Part) -> usize;
    /// The cost of a part that is not in the history (a replacement).
    fn of(&self, part: &Part) -> usize;
}

impl<F: Fn(&Part) -> usize> PartCost for F {
    fn at(&self, _: (usize, usize), part: &Part) -> usize {
        self(part)
    }
    fn of(&self, part: &Part) -> usize {
        self(part)
    }
}

/// The cost of parts, as the pruners take it.
pub type Cost<'a> = &'a dyn PartCost;

/// What to do to one part.
#[derive(Clone, Debug, PartialEq)]
pub enum PruneKind {
    /// Replace a tool result's output with one text part holding `placeholder` (its id, name and
    /// error flag stay).
    ReplaceOutput { placeholder: String },
    /// Replace a tool call's input with `placeholder` (usually `{}`; Anthropic requires an object).
    ClearInput { placeholder: Value },
}

/// One proposed change: part `part` of message `message`, and the tokens it frees.
#[derive(Clone, Debug, PartialEq)]
pub struct PruneAction {
    /// Index of the message.
    pub message: usize,
    /// Index of the part (a `ToolResult` for `ReplaceOutput`, a `ToolCall` for `ClearInput`).
    pub part: usize,
    /// The replacement.
    pub kind: PruneKind,
    /// The part's cost before minus after, by the pruner's `cost`; always > 0.
    pub tokens_freed: usize,
}

/// Sum of `tokens_freed` over `actions`.
pub fn total_freed(actions: &[PruneAction]) -> usize {
    actions.iter().map(|a| a.tokens_freed).sum()
}

/// New messages with `actions` performed. Each message keeps its `original`, so exporters keep
/// every other field of the caller's object (the changed block is laid over the original one).
/// Actions that point at no part, at a part of the wrong kind, or into a pinned or summary
/// message are ignored.
pub fn apply(messages: &[Message], actions: &[PruneAction]) -> Vec<Message> {
    let mut out = messages.to_vec();
    for action in actions {
        let Some(message) = out.get_mut(action.message) else {
            continue;
        };
        if is_protected(message) {
            continue;
        }
        let Some(part) = message.parts.get_mut(action.part) else {
            continue;
        };
        if let Some(new) = replaced(part, &action.kind) {
            *part = new;
        }
    }
    out
}

/// Message `index` (`message`) with those of `actions` that point into it performed, as
/// [`apply`] would; only the parts that stay are copied.
pub fn apply_one(message: &Message, index: usize, actions: &[PruneAction]) -> Message {
    let mut parts: Vec<Option<Part>> = vec![None; message.parts.len()];
    if !is_protected(message) {
        for action in actions.iter().filter(|a| a.message == index) {
            let Some(part) = message.parts.get(action.part) else {
                continue;
            };
            let Some(slot) = parts.get_mut(action.part) else {
                continue;
            };
            if let Some(new) = replaced(slot.as_ref().unwrap_or(part), &action.kind) {
                *slot = Some(new);
            }
        }
    }
    Message {
        role: message.role,
        parts: parts
            .into_iter()
            .zip(&message.parts)
            .map(|(new, old)| new.unwrap_or_else(|| old.clone()))
            .collect(),
        summary: message.summary,
        pinned: message.pinned,
        timestamp: message.timestamp,
        original: message.original.clone(),
    }
}

/// The part after `kind` is applied, or `None` when `kind` does not fit the part.
pub(crate) fn replaced(part: &Part, kind: &PruneKind) -> Option<Part> {
    match (part, kind) {
        (
            Part::ToolResult {
                id, name, is_error, ..
            },
            PruneKind::ReplaceOutput { placeholder },
        ) => Some(Part::ToolResult {
            id: id.clone(),
            name: name.clone(),
            output: vec![Part::text(placeholder.clone())],
            is_error: *is_error,
        }),
        (Part::ToolCall { id, name, .. }, PruneKind::ClearInput { placeholder }) => {
            Some(Part::ToolCall {
                id: id.clone(),
                name: name.clone(),
                input: placeholder.clone(),
            })
        }
        _ => None,
    }
}

/// An action for part `(message, part)` of `messages` when it fits and frees tokens.
pub(crate) fn action(
    messages: &[Message],
    (message, part): (usize, usize),
    kind: PruneKind,
    cost: Cost<'_>,
) -> Option<PruneAction> {
    let m = messages.get(message)?;
    if is_protected(m) {
        return None;
    }
    let before = m.parts.get(part)?;
    let after = replaced(before, &kind)?;
    let tokens_freed = cost
        .at((message, part), before)
        .saturating_sub(cost.of(&after));
    (tokens_freed > 0).then_some(PruneAction {
        message,
        part,
        kind,
        tokens_freed,
    })
}

/// Pinned and summary messages are never pruned.
pub(crate) fn is_protected(message: &Message) -> bool {
    message.pinned || message.summary
}

/// True when the part is a tool result whose output is exactly one text equal to `placeholder`.
pub(crate) fn holds_placeholder(part: &Part, placeholder: &str) -> bool {
    match part {
        Part::ToolResult { output, .. } => {
            matches!(output.as_slice(), [Part::Text { text }] if text == placeholder)
        }
        _ => false,
    }
}

/// One tool result with what is known of its call.
#[derive(Clone, Debug)]
pub(crate) struct ToolUse<'a> {
    /// (message, part) of the result.
    pub result: (usize, usize),
    /// (message, part) of the call that it answers, if any.
    pub call: Option<(usize, usize)>,
    /// The tool name, from the result or else from its call.
    pub name: Option<&'a str>,
    /// The result is an error.
    pub is_error: bool,
}

/// Every tool result of `messages` in history order, with its call.
pub(crate) fn tool_uses(messages: &[Message]) -> Vec<ToolUse<'_>> {
    let pairs = pairing(messages);
    pairs
        .results
        .iter()
        .filter_map(|r| {
            let part = messages.get(r.message)?.parts.get(r.part)?;
            let Part::ToolResult { name, is_error, .. } = part else {
                return None;
            };
            let call = match r.status {
                ResultStatus::Answers(ci) => pairs.calls.get(ci).map(|c| (c.message, c.part)),
                _ => None,
            };
            let call_name = call
                .and_then(|(m, p)| messages.get(m)?.parts.get(p))
                .and_then(|p| match p {
                    Part::ToolCall { name, .. } => Some(name.as_str()),
                    _ => None,
                });
            Some(ToolUse {
                result: (r.message, r.part),
                call,
                name: name.as_deref().or(call_name),
                is_error: *is_error,
            })
        })
        .collect()
}

/// Parts already claimed by an earlier pruner (see [`order`]).
pub(crate) type Claimed = FxHashSet<(usize, usize)>;

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::core::message::Role;
    use serde_json::json;

    #[test]
    fn apply_replaces_output_and_input_only() {
        let mut tool = Message::new(
            Role::Tool,
            vec![Part::ToolResult {
                id: "a".into(),
                name: Some("read".into()),
                output: vec![Part::text("long output")],
                is_error: true,
            }],
        );
        tool.original = Some((&json!({"role": "tool", "extra": 1})).into());
        let call = Message::new(
            Role::Assistant,
            vec![Part::ToolCall {
                id: "a".into(),
                name: "read".into(),
                input: json!({"path": "x"}),
            }],
        );
        let h = vec![call, tool];
        let actions = vec![
            PruneAction {
                message: 1,
                part: 0,
                kind: PruneKind::ReplaceOutput {
                    placeholder: "[gone]".into(),
                },
                tokens_freed: 1,
            },
            PruneAction {
                message: 0,
                part: 0,
                kind: PruneKind::ClearInput {
                    placeholder: json!({}),
                },
                tokens_freed: 1,
            },
            // wrong kind and out of range: ignored
            PruneAction {
                message: 0,
                part: 0,
                kind: PruneKind::ReplaceOutput {
                    placeholder: "x".into(),
                },
                tokens_freed: 1,
            },
            PruneAction {
                message: 9,
                part: 0,
                kind: PruneKind::ReplaceOutput {
                    placeholder: "x".into(),
                },
                tokens_freed: 1,
            },
        ];
        let out = apply(&h, &actions);
        assert_eq!(
            out[1].parts[0],
            Part::ToolResult {
                id: "a".into(),
                name: Some("read".into()),
                output: vec![Part::text("[gone]")],
                is_error: true,
            }
        );
        assert_eq!(out[1].original, h[1].original);
        assert!(
            matches!(&out[0].parts[0], Part::ToolCall { input, id, .. } if *input == json!({}) && id == "a")
        );
        assert!(holds_placeholder(&out[1].parts[0], "[gone]"));
    }

    #[test]
    fn apply_skips_pinned_and_summary() {
        let mut m = Message::new(
            Role::Tool,
            vec![Part::ToolResult {
                id: "a".into(),
                name: None,
                output: vec![Part::text("keep me")],
                is_error: false,
            }],
        );
        m.pinned = true;
        let a = PruneAction {
            message: 0,
            part: 0,
            kind: PruneKind::ReplaceOutput {
                placeholder: "x".into(),
            },
            tokens_freed: 1,
        };
        let h = vec![m];
        assert_eq!(apply(&h, std::slice::from_ref(&a)), h);
        let cost = |p: &Part| p.text_len();
        assert!(action(&h, (0, 0), a.kind, &cost).is_none());
    }
}
