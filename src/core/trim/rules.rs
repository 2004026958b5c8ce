//! The trimming rules of the module documentation, over a [`History`] read on demand: every loop
//! walks from the end being kept, so only the messages that may be kept (and the one past them)
//! are read.

use super::history::History;
use super::{TrimOptions, Trimmed, TrimmedMessage};
use crate::core::message::{Part, Role};

/// `"first"`: head, partial next message, then `endOn`.
pub(super) fn first(
    h: &History<'_, '_>,
    part_cost: &dyn Fn(&Part) -> usize,
    options: &TrimOptions,
) -> Trimmed {
    let budget = options.max_tokens;
    // The longest head that fits (sums only grow with the head).
    let mut greedy = 0;
    while greedy < h.len() && h.sum(0, greedy + 1) <= budget {
        greedy += 1;
    }
    let mut end = (0..=greedy).rev().find(|&c| h.is_safe(c)).unwrap_or(0);
    let mut partial = None;
    if options.allow_partial && end < h.len() {
        partial = partial_parts(
            h,
            part_cost,
            end,
            budget.saturating_sub(h.sum(0, end)),
            false,
        );
    }
    if !options.end_on.is_empty() {
        if partial
            .as_deref()
            .is_some_and(|p| !h.matches(&options.end_on, end, Some(p)))
        {
            partial = None;
        }
        if partial.is_none() {
            end = (1..=end)
                .rev()
                .find(|&c| h.is_safe(c) && h.matches(&options.end_on, c - 1, None))
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
pub(super) fn last(
    h: &History<'_, '_>,
    part_cost: &dyn Fn(&Part) -> usize,
    options: &TrimOptions,
) -> Trimmed {
    let end = if options.end_on.is_empty() {
        h.len()
    } else {
        (1..=h.len())
            .rev()
            .find(|&c| h.is_safe(c) && h.matches(&options.end_on, c - 1, None))
            .unwrap_or(0)
    };
    if end == 0 {
        return Trimmed::default();
    }
    let system = options.include_system
        && h.message(0)
            .is_some_and(|m| m.role == Role::System && !m.parts.iter().any(Part::is_tool_data));
    let (floor, budget) = if system {
        let cost = h.tokens(0);
        if cost > options.max_tokens {
            return Trimmed::default();
        }
        (1, options.max_tokens - cost)
    } else {
        (0, options.max_tokens)
    };
    // The longest tail that fits (sums only grow with the tail).
    let mut greedy = end;
    while greedy > floor && h.sum(greedy - 1, end) <= budget {
        greedy -= 1;
    }
    let mut start = (greedy..=end).find(|&c| h.is_safe(c)).unwrap_or(end);
    // A partial message that ends the kept messages must still match `endOn` by its kept parts.
    let ends_well = |index: usize, parts: &[usize]| {
        index + 1 < end
            || options.end_on.is_empty()
            || h.matches(&options.end_on, index, Some(parts))
    };
    let mut partial = None;
    if options.allow_partial && start > floor {
        partial = partial_parts(
            h,
            part_cost,
            start - 1,
            budget.saturating_sub(h.sum(start, end)),
            true,
        )
        .filter(|p| ends_well(start - 1, p));
    }
    if !options.start_on.is_empty()
        && !partial
            .as_deref()
            .is_some_and(|p| h.matches(&options.start_on, start - 1, Some(p)))
    {
        partial = None;
        let from = start;
        start = end;
        for c in from..end {
            if h.is_safe(c) && h.matches(&options.start_on, c, None) {
                start = c;
                break;
            }
            // With allowPartial a message tied to dropped messages by its own tool parts may
            // start the tail without them (an Anthropic carrier's text) when the rest is safe.
            if options.allow_partial && h.is_safe(c + 1) {
                let room = budget.saturating_sub(h.sum(c + 1, end));
                if let Some(p) = partial_parts(h, part_cost, c, room, true)
                    .filter(|p| h.matches(&options.start_on, c, Some(p)) && ends_well(c, p))
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

/// The parts of message `index` to keep within `budget`: the first (or, with `keep_last`, the
/// last) of its parts that may stand alone, as many as fit, never splitting a call from a result
/// in the same message. `None` when no part, or only every part, would be kept.
fn partial_parts(
    h: &History<'_, '_>,
    part_cost: &dyn Fn(&Part) -> usize,
    index: usize,
    budget: usize,
    keep_last: bool,
) -> Option<Vec<usize>> {
    let message = h.message(index)?;
    if message.role == Role::Tool {
        return None;
    }
    let total = h.tokens(index);
    let groups = part_groups(&message.parts, |id| h.elsewhere(id, index));
    let mut order: Vec<usize> = (0..message.parts.len())
        .filter(|&p| groups.get(p).is_some_and(Option::is_some))
        .collect();
    if keep_last {
        order.reverse();
    }
    let all_parts: usize = message.parts.iter().map(part_cost).sum();
    let mut kept_cost = 0usize;
    let mut best = None;
    for (k, &p) in order.iter().enumerate() {
        let part = message.parts.get(p)?;
        kept_cost = kept_cost.saturating_add(part_cost(part));
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

/// For each of `parts`: `None` when it is tool data whose id `elsewhere` says also appears in
/// another message (it cannot be kept without that message), otherwise its group: parts with the
/// same tool id share one and must be kept together; every other part is its own group.
fn part_groups(parts: &[Part], elsewhere: impl Fn(&str) -> bool) -> Vec<Option<usize>> {
    let mut ids: Vec<&str> = Vec::new();
    parts
        .iter()
        .enumerate()
        .map(|(pi, part)| {
            let id = match part {
                Part::ToolCall { id, .. } | Part::ToolResult { id, .. } => id.as_str(),
                _ => return Some(parts.len() + pi),
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
    use crate::core::message::Message;
    use crate::core::trim::history::{Direction, Slice};
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
        let tokens = [1, 1];
        let source = Slice::new(&m, &tokens);
        let h = History::new(&source, Direction::FromEnd);
        let groups = part_groups(&m[0].parts, |id| h.elsewhere(id, 0));
        assert_eq!(groups, vec![Some(4), Some(0), Some(0), None]);
        assert!(!groups_complete(&groups, &[0, 1]));
        assert!(groups_complete(&groups, &[0, 1, 2]));
    }
}
