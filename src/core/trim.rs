//! LangChain's `trimMessages`, made safe for tool calls: keep the first or the last messages that
//! fit in `maxTokens`, never keeping a tool result without its call or a call without its results.
//!
//! Semantics (LangChain.js `trimMessages`, with the pairing rule added):
//! - **`"last"`** (default): first `endOn` drops trailing messages until the last one matches;
//!   then, with `includeSystem`, `messages[0]` is held apart when it is a system message and its
//!   tokens are taken from the budget first (alone over budget: the result is empty); then the
//!   longest tail that fits is kept; then, with `allowPartial`, the last parts of the message just
//!   before that tail that still fit; finally `startOn` drops leading kept messages until one
//!   matches. The held-apart system message always stays (LangChain.js lets `startOn` drop it when
//!   nothing matches, which sends a request without its system prompt; we keep it).
//! - **`"first"`**: the longest head that fits, then, with `allowPartial`, the first parts of the
//!   next message that still fit; finally `endOn` drops trailing kept messages until one matches.
//!   `startOn` and `includeSystem` are rejected with `"first"`, as LangChain does.
//!
//! Tool pairs (a position is *pair-safe* when no call before it has a result at or after it,
//! [`pair_safe_positions`]):
//! - Every boundary between kept and dropped messages is pair-safe. `"last"` moves its start
//!   *forward* to the next pair-safe position (dropping the whole pair); `"first"` moves its end
//!   *back* to the previous pair-safe position. `endOn` and `startOn` likewise stop only at
//!   pair-safe positions that match. Whole pairs are dropped, never split. With `allowPartial`,
//!   `startOn` may also start on the free parts of a message whose tool parts are tied to dropped
//!   messages (the text of an Anthropic carrier whose calls were dropped), so that for `"last"` a
//!   larger budget never keeps fewer tokens.
//! - A partial message keeps only parts that can stand without the dropped messages: a tool call
//!   or result whose id also appears in another message is never kept in a partial message, and a
//!   call and its result inside the same message are kept together or not at all. Tool messages
//!   (role `tool`) are never split. Text, reasoning, images and files split freely.
//! - With `includeSystem`, `messages[0]` is held apart only when it carries no tool data (no
//!   supported format puts tool calls in a system message); otherwise it is an ordinary message.
//!
//! Matching `startOn` / `endOn`: a `user` message that carries a tool result counts as `tool` (an
//! Anthropic `tool_result` block is a LangChain `ToolMessage`); every other message counts as its
//! role (an AI SDK assistant message with provider-executed results is `assistant`). A partial
//! message is matched by the parts it keeps (for both `startOn` and `endOn` when it is both the
//! first and the last kept message).
//!
//! Pricing: a whole message costs `tokens[i]`; a partial one costs `tokens[i]` minus the
//! `part_cost` of its dropped parts (its per-message overhead stays). The kept total never exceeds
//! `max_tokens`. `max_tokens == 0` keeps nothing. LangChain never splits the very last candidate
//! message (an off-by-one in `_firstMaxTokens`); we do. Its `textSplitter` (splitting one text
//! block) is out of scope: parts are the smallest unit.

use crate::core::cut::pairs::pair_safe_positions;
use crate::core::error::{Error, Result};
use crate::core::message::{Message, Part, Role};

/// Which end of the history [`trim`] keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TrimStrategy {
    /// Keep the first messages (LangChain `"first"`).
    First,
    /// Keep the last messages (LangChain `"last"`, the default).
    #[default]
    Last,
}

impl TrimStrategy {
    /// Parses `"first"` or `"last"`; anything else is an invalid `strategy` option.
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "first" => Ok(TrimStrategy::First),
            "last" => Ok(TrimStrategy::Last),
            other => Err(Error::invalid_option(
                "strategy",
                format!("unknown strategy \"{other}\"; expected \"first\" or \"last\""),
            )),
        }
    }
}

/// The options of [`trim`], LangChain's names in snake case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrimOptions {
    /// The most tokens the kept messages may cost. `0` keeps nothing.
    pub max_tokens: usize,
    /// Which end to keep.
    pub strategy: TrimStrategy,
    /// `"last"` only: the kept messages (after any held-apart system message) start on one of
    /// these roles. Empty: no constraint.
    pub start_on: Vec<Role>,
    /// The kept messages end on one of these roles. Empty: no constraint.
    pub end_on: Vec<Role>,
    /// `"last"` only: keep `messages[0]` when it is a system message, counted against the budget.
    pub include_system: bool,
    /// Keep some parts of the one message at the boundary when the whole does not fit.
    pub allow_partial: bool,
}

impl TrimOptions {
    /// Options with LangChain's defaults: strategy `"last"`, no `startOn`/`endOn`, no system, no
    /// partial messages.
    pub fn new(max_tokens: usize) -> Self {
        TrimOptions {
            max_tokens,
            strategy: TrimStrategy::Last,
            start_on: Vec::new(),
            end_on: Vec::new(),
            include_system: false,
            allow_partial: false,
        }
    }

    /// Parses a role name of `startOn` / `endOn` (given as `key` for the error): ours (`"system"`,
    /// `"user"`, `"assistant"`, `"tool"`) or LangChain's (`"human"`, `"ai"`, `"developer"`).
    pub fn parse_role(name: &str, key: &str) -> Result<Role> {
        match name {
            "system" | "developer" => Ok(Role::System),
            "user" | "human" => Ok(Role::User),
            "assistant" | "ai" => Ok(Role::Assistant),
            "tool" => Ok(Role::Tool),
            other => Err(Error::invalid_option(
                key,
                format!(
                    "unknown message type \"{other}\"; expected one of \"system\", \"user\" \
                     (\"human\"), \"assistant\" (\"ai\"), \"tool\""
                ),
            )),
        }
    }

    /// Rejects combinations LangChain rejects: `startOn` or `includeSystem` with `"first"`.
    pub fn check(&self) -> Result<()> {
        if self.strategy == TrimStrategy::First {
            if !self.start_on.is_empty() {
                return Err(Error::invalid_option(
                    "startOn",
                    "startOn applies only with strategy \"last\"",
                ));
            }
            if self.include_system {
                return Err(Error::invalid_option(
                    "includeSystem",
                    "includeSystem applies only with strategy \"last\"",
                ));
            }
        }
        Ok(())
    }
}

/// One kept message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrimmedMessage {
    /// Index in the input.
    pub index: usize,
    /// `Some` when only these part indices (ascending, at least one, not all) are kept.
    pub parts: Option<Vec<usize>>,
}

/// What [`trim`] keeps, in input order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trimmed {
    /// Kept messages, indices strictly ascending.
    pub kept: Vec<TrimmedMessage>,
}

impl Trimmed {
    /// The kept messages themselves; a partial message keeps its `original` so exporters can lay
    /// the changed content over the caller's object.
    pub fn apply(&self, messages: &[Message]) -> Vec<Message> {
        self.kept
            .iter()
            .filter_map(|k| {
                let message = messages.get(k.index)?;
                let mut out = message.clone();
                if let Some(parts) = &k.parts {
                    out.parts = parts
                        .iter()
                        .filter_map(|&p| message.parts.get(p).cloned())
                        .collect();
                }
                Some(out)
            })
            .collect()
    }
}

/// Trims `messages` (with `tokens[i]` the cost of message `i`, `part_cost` the cost of one part)
/// to at most `options.max_tokens`, by the rules of the module documentation. Never separates a
/// tool call from its results. Errors: invalid options, or `tokens` of the wrong length.
pub fn trim(
    messages: &[Message],
    tokens: &[usize],
    part_cost: &dyn Fn(&Part) -> usize,
    options: &TrimOptions,
) -> Result<Trimmed> {
    options.check()?;
    if tokens.len() != messages.len() {
        return Err(Error::invalid_input(
            "tokens",
            format!(
                "{} token counts for {} messages",
                tokens.len(),
                messages.len()
            ),
        ));
    }
    if options.max_tokens == 0 || messages.is_empty() {
        return Ok(Trimmed::default());
    }
    let ctx = Ctx::new(messages, tokens, part_cost);
    let mut trimmed = match options.strategy {
        TrimStrategy::First => first(&ctx, options),
        TrimStrategy::Last => last(&ctx, options),
    };
    // A tool result whose call is nowhere in the input is never passed on alone.
    let orphans = crate::core::cut::pairs::orphan_result_carriers(messages);
    trimmed
        .kept
        .retain(|k| !orphans.get(k.index).copied().unwrap_or(false));
    Ok(trimmed)
}

/// `"first"`: head, partial next message, then `endOn`.
fn first(ctx: &Ctx<'_>, options: &TrimOptions) -> Trimmed {
    let budget = options.max_tokens;
    let greedy = (0..=ctx.len())
        .rev()
        .find(|&e| ctx.sum(0, e) <= budget)
        .unwrap_or(0);
    let mut end = (0..=greedy).rev().find(|&c| ctx.is_safe(c)).unwrap_or(0);
    let mut partial = None;
    if options.allow_partial && end < ctx.len() {
        partial = ctx.partial(end, budget.saturating_sub(ctx.sum(0, end)), false);
    }
    if !options.end_on.is_empty() {
        if partial
            .as_deref()
            .is_some_and(|p| !ctx.matches(&options.end_on, end, Some(p)))
        {
            partial = None;
        }
        if partial.is_none() {
            end = (1..=end)
                .rev()
                .find(|&c| ctx.is_safe(c) && ctx.matches(&options.end_on, c - 1, None))
                .unwrap_or(0);
        }
    }
    let mut kept: Vec<TrimmedMessage> = (0..end).map(whole).collect();
    if let Some(parts) = partial {
        kept.push(TrimmedMessage {
            index: end,
            parts: Some(parts),
        });
    }
    Trimmed { kept }
}

/// `"last"`: `endOn`, held-apart system message, tail, partial previous message, then `startOn`.
fn last(ctx: &Ctx<'_>, options: &TrimOptions) -> Trimmed {
    let end = if options.end_on.is_empty() {
        ctx.len()
    } else {
        (1..=ctx.len())
            .rev()
            .find(|&c| ctx.is_safe(c) && ctx.matches(&options.end_on, c - 1, None))
            .unwrap_or(0)
    };
    if end == 0 {
        return Trimmed::default();
    }
    let system = options.include_system
        && ctx
            .messages
            .first()
            .is_some_and(|m| m.role == Role::System && !m.parts.iter().any(Part::is_tool_data));
    let (floor, budget) = if system {
        let cost = ctx.tokens.first().copied().unwrap_or(0);
        if cost > options.max_tokens {
            return Trimmed::default();
        }
        (1, options.max_tokens - cost)
    } else {
        (0, options.max_tokens)
    };
    let greedy = (floor..=end)
        .find(|&s| ctx.sum(s, end) <= budget)
        .unwrap_or(end);
    let mut start = (greedy..=end).find(|&c| ctx.is_safe(c)).unwrap_or(end);
    // A partial message that ends the kept messages must still match `endOn` by its kept parts.
    let ends_well = |index: usize, parts: &[usize]| {
        index + 1 < end
            || options.end_on.is_empty()
            || ctx.matches(&options.end_on, index, Some(parts))
    };
    let mut partial = None;
    if options.allow_partial && start > floor {
        partial = ctx
            .partial(start - 1, budget.saturating_sub(ctx.sum(start, end)), true)
            .filter(|p| ends_well(start - 1, p));
    }
    if !options.start_on.is_empty()
        && !partial
            .as_deref()
            .is_some_and(|p| ctx.matches(&options.start_on, start - 1, Some(p)))
    {
        partial = None;
        let from = start;
        start = end;
        for c in from..end {
            if ctx.is_safe(c) && ctx.matches(&options.start_on, c, None) {
                start = c;
                break;
            }
            // With allowPartial a message tied to dropped messages by its own tool parts may
            // start the tail without them (an Anthropic carrier's text) when the rest is safe.
            if options.allow_partial && ctx.is_safe(c + 1) {
                let room = budget.saturating_sub(ctx.sum(c + 1, end));
                if let Some(p) = ctx
                    .partial(c, room, true)
                    .filter(|p| ctx.matches(&options.start_on, c, Some(p)) && ends_well(c, p))
                {
                    partial = Some(p);
                    start = c + 1;
                    break;
                }
            }
        }
    }
    let mut kept = Vec::new();
    if system {
        kept.push(whole(0));
    }
    if let Some(parts) = partial {
        kept.push(TrimmedMessage {
            index: start - 1,
            parts: Some(parts),
        });
    }
    kept.extend((start..end).map(whole));
    Trimmed { kept }
}

fn whole(index: usize) -> TrimmedMessage {
    TrimmedMessage { index, parts: None }
}

/// What the rules need of the history, computed once.
struct Ctx<'a> {
    messages: &'a [Message],
    tokens: &'a [usize],
    part_cost: &'a dyn Fn(&Part) -> usize,
    /// `safe[c]` for `c in 0..=len`.
    safe: Vec<bool>,
    /// `prefix[i]` = tokens of messages `..i` (saturating).
    prefix: Vec<usize>,
}

impl<'a> Ctx<'a> {
    fn new(
        messages: &'a [Message],
        tokens: &'a [usize],
        part_cost: &'a dyn Fn(&Part) -> usize,
    ) -> Self {
        let mut prefix = Vec::with_capacity(tokens.len() + 1);
        let mut total = 0usize;
        prefix.push(0);
        for &t in tokens {
            total = total.saturating_add(t);
            prefix.push(total);
        }
        Ctx {
            messages,
            tokens,
            part_cost,
            safe: pair_safe_positions(messages),
            prefix,
        }
    }

    fn len(&self) -> usize {
        self.messages.len()
    }

    /// Tokens of messages `from..to`.
    fn sum(&self, from: usize, to: usize) -> usize {
        let at = |i: usize| self.prefix.get(i).copied().unwrap_or(usize::MAX);
        at(to).saturating_sub(at(from))
    }

    fn is_safe(&self, c: usize) -> bool {
        self.safe.get(c).copied().unwrap_or(false)
    }

    /// True when message `index` (only `parts` of it, when given) counts as one of `roles`.
    fn matches(&self, roles: &[Role], index: usize, parts: Option<&[usize]>) -> bool {
        let Some(message) = self.messages.get(index) else {
            return false;
        };
        let carries_result = match parts {
            Some(parts) => parts
                .iter()
                .any(|&p| message.parts.get(p).is_some_and(Part::is_tool_result)),
            None => message.is_tool_result_carrier(),
        };
        let kind = if message.role == Role::User && carries_result {
            Role::Tool
        } else {
            message.role
        };
        roles.contains(&kind)
    }

    /// The parts of message `index` to keep within `budget`: the first (or, with `keep_last`, the
    /// last) of its parts that may stand alone, as many as fit, never splitting a call from a
    /// result in the same message. `None` when no part, or only every part, would be kept.
    fn partial(&self, index: usize, budget: usize, keep_last: bool) -> Option<Vec<usize>> {
        let message = self.messages.get(index)?;
        if message.role == Role::Tool {
            return None;
        }
        let total = *self.tokens.get(index)?;
        let groups = part_groups(self.messages, index);
        let mut order: Vec<usize> = (0..message.parts.len())
            .filter(|&p| groups.get(p).is_some_and(Option::is_some))
            .collect();
        if keep_last {
            order.reverse();
        }
        let all_parts: usize = message.parts.iter().map(|p| (self.part_cost)(p)).sum();
        let mut kept_cost = 0usize;
        let mut best = None;
        for (k, &p) in order.iter().enumerate() {
            let part = message.parts.get(p)?;
            kept_cost = kept_cost.saturating_add((self.part_cost)(part));
            let cost = total.saturating_sub(all_parts.saturating_sub(kept_cost));
            if cost > budget {
                break;
            }
            let chosen = order.get(..=k)?;
            if groups_complete(&groups, chosen) {
                best = Some(k + 1);
            }
        }
        let count = best?;
        if count >= message.parts.len() {
            return None;
        }
        let mut parts = order.get(..count)?.to_vec();
        parts.sort_unstable();
        Some(parts)
    }
}

/// For each part of `messages[index]`: `None` when it is tool data whose id also appears in
/// another message (it cannot be kept without that message), otherwise its group: parts with the
/// same tool id share one and must be kept together; every other part is its own group.
fn part_groups(messages: &[Message], index: usize) -> Vec<Option<usize>> {
    let Some(message) = messages.get(index) else {
        return Vec::new();
    };
    let elsewhere = |id: &str| {
        messages.iter().enumerate().any(|(i, m)| {
            i != index && (m.tool_call_ids().contains(&id) || m.tool_result_ids().contains(&id))
        })
    };
    let mut ids: Vec<&str> = Vec::new();
    message
        .parts
        .iter()
        .enumerate()
        .map(|(pi, part)| {
            let id = match part {
                Part::ToolCall { id, .. } | Part::ToolResult { id, .. } => id.as_str(),
                _ => return Some(message.parts.len() + pi),
            };
            if elsewhere(id) {
                return None;
            }
            Some(ids.iter().position(|x| *x == id).unwrap_or_else(|| {
                ids.push(id);
                ids.len() - 1
            }))
        })
        .collect()
}

/// True when every group with a member in `chosen` has all its members in `chosen`.
fn groups_complete(groups: &[Option<usize>], chosen: &[usize]) -> bool {
    chosen.iter().all(|&p| {
        let group = groups.get(p).copied().flatten();
        groups
            .iter()
            .enumerate()
            .all(|(q, g)| *g != group || chosen.contains(&q))
    })
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn part_groups_pin_tool_parts_tied_to_other_messages() {
        let call = |id: &str| Part::ToolCall {
            id: id.into(),
            name: "t".into(),
            input: json!({}),
        };
        let result = |id: &str| Part::ToolResult {
            id: id.into(),
            name: None,
            output: Vec::new(),
            is_error: false,
        };
        let m = vec![
            Message::new(
                Role::Assistant,
                vec![Part::text("a"), call("in"), result("in"), call("out")],
            ),
            Message::new(Role::Tool, vec![result("out")]),
        ];
        let groups = part_groups(&m, 0);
        assert_eq!(groups, vec![Some(4), Some(0), Some(0), None]);
        assert!(!groups_complete(&groups, &[0, 1]));
        assert!(groups_complete(&groups, &[0, 1, 2]));
    }
}
