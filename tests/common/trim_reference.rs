//! The whole-array `trim` of before messages were read on demand (`src/core/trim.rs` at commit
//! 0a116f8, unchanged but for its paths and name, and the orphan rule, which since issue 23 takes
//! a result whose call comes after it for an orphan): the oracle `tests/trim_lazy.rs` holds the
//! on-demand trim to. It precomputes the pair-safe positions, the prefix sums and the orphans of
//! the whole history and searches them the way the rules read.
#![allow(dead_code, clippy::indexing_slicing)]

use context_compaction::core::cut::pairs::pair_safe_positions;
use context_compaction::core::error::{Error, Result};
use context_compaction::core::message::{Message, Part, Role};
use context_compaction::core::trim::{TrimOptions, TrimStrategy, Trimmed, TrimmedMessage};

/// The whole-array `trim` as it was before messages were read on demand.
pub fn reference_trim(
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
    // A tool result whose call is not kept before it is never passed on (issue 23: a result before
    // its call counted as paired): its message keeps its other parts, or is dropped when it has
    // none.
    let mut calls: std::collections::HashSet<&str> = std::collections::HashSet::new();
    trimmed.kept.retain_mut(|k| {
        let message = &messages[k.index];
        let all: Vec<usize> = (0..message.parts.len()).collect();
        let mut kept = Vec::new();
        for p in k.parts.clone().unwrap_or(all) {
            match &message.parts[p] {
                Part::ToolCall { id, .. } => {
                    calls.insert(id.as_str());
                    kept.push(p);
                }
                Part::ToolResult { id, .. } if !calls.contains(id.as_str()) => {}
                _ => kept.push(p),
            }
        }
        if kept.is_empty() {
            return false;
        }
        k.parts = (kept.len() < message.parts.len()).then_some(kept);
        true
    });
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
