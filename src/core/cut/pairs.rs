//! Where a cut may fall without separating a tool result from its call.
//!
//! A cut at position `c` keeps messages `c..` and removes `..c`. It is *pair-safe* when no tool call
//! before `c` has its result at or after `c`. Parallel calls with results in any order, results
//! carried by Anthropic-style user messages, and results far from their call are all covered: each
//! call/result pair makes the positions between them unsafe.

use crate::core::message::{Message, Part};
use rustc_hash::FxHashMap;

/// `safe[c]` for every position `0..=messages.len()`: true when cutting before message `c` keeps
/// every tool call together with its results. Positions `0` and `len` are always safe.
pub fn pair_safe_positions(messages: &[Message]) -> Vec<bool> {
    let len = messages.len();
    // The last index at which each call id is answered.
    let mut answered_at: FxHashMap<&str, usize> = FxHashMap::default();
    answered_at.reserve(len);
    for (i, message) in messages.iter().enumerate() {
        for part in &message.parts {
            if let Part::ToolResult { id, .. } = part {
                answered_at.insert(id.as_str(), i);
            }
        }
    }
    // Difference array: a call at `i` answered at `j > i` makes positions `i+1..=j` unsafe.
    let mut delta = vec![0i64; len + 2];
    for (i, message) in messages.iter().enumerate() {
        for part in &message.parts {
            let Part::ToolCall { id, .. } = part else {
                continue;
            };
            if let Some(&j) = answered_at.get(id.as_str()) {
                if j > i {
                    bump(&mut delta, i + 1, 1);
                    bump(&mut delta, j + 1, -1);
                }
            }
        }
    }
    let mut open = 0i64;
    (0..=len)
        .map(|c| {
            open += delta.get(c).copied().unwrap_or(0);
            open == 0
        })
        .collect()
}

fn bump(delta: &mut [i64], at: usize, by: i64) {
    if let Some(slot) = delta.get_mut(at) {
        *slot += by;
    }
}

/// The messages an id occurs in: almost always one, so no list is allocated for it.
enum Occurrences {
    One(usize),
    Many(Vec<usize>),
}

impl Occurrences {
    fn add(&mut self, i: usize) {
        match self {
            Occurrences::One(first) => *self = Occurrences::Many(vec![*first, i]),
            Occurrences::Many(list) => list.push(i),
        }
    }

    fn as_slice(&self) -> &[usize] {
        match self {
            Occurrences::One(i) => std::slice::from_ref(i),
            Occurrences::Many(list) => list,
        }
    }
}

/// Which messages must stay together through tool pairing, indexed once so that each lookup costs
/// only the partners it returns.
pub struct ToolPartners<'a> {
    messages: &'a [Message],
    calls: FxHashMap<&'a str, Occurrences>,
    results: FxHashMap<&'a str, Occurrences>,
}

impl<'a> ToolPartners<'a> {
    /// Indexes every call and result id of `messages`.
    pub fn new(messages: &'a [Message]) -> ToolPartners<'a> {
        let mut calls: FxHashMap<&str, Occurrences> = FxHashMap::default();
        let mut results: FxHashMap<&str, Occurrences> = FxHashMap::default();
        calls.reserve(messages.len());
        results.reserve(messages.len());
        for (i, message) in messages.iter().enumerate() {
            for part in &message.parts {
                let (map, id) = match part {
                    Part::ToolCall { id, .. } => (&mut calls, id.as_str()),
                    Part::ToolResult { id, .. } => (&mut results, id.as_str()),
                    _ => continue,
                };
                map.entry(id)
                    .and_modify(|o| o.add(i))
                    .or_insert(Occurrences::One(i));
            }
        }
        ToolPartners {
            messages,
            calls,
            results,
        }
    }

    /// The messages that answer the calls of message `index` and the messages that made the calls
    /// it answers, in order, without `index` itself.
    pub fn of(&self, index: usize) -> Vec<usize> {
        let Some(message) = self.messages.get(index) else {
            return Vec::new();
        };
        let answers = message
            .tool_call_ids()
            .into_iter()
            .filter_map(|id| self.results.get(id).map(Occurrences::as_slice));
        let askers = message
            .tool_result_ids()
            .into_iter()
            .filter_map(|id| self.calls.get(id).map(Occurrences::as_slice));
        let mut partners: Vec<usize> = answers
            .chain(askers)
            .flatten()
            .copied()
            .filter(|&i| i != index)
            .collect();
        partners.sort_unstable();
        partners.dedup();
        partners
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::core::message::{Part, Role};
    use serde_json::json;

    fn call(ids: &[&str]) -> Message {
        let parts = ids
            .iter()
            .map(|id| Part::ToolCall {
                id: (*id).into(),
                name: "read".into(),
                input: json!({}),
            })
            .collect();
        Message::new(Role::Assistant, parts)
    }

    fn result(id: &str) -> Message {
        Message::new(
            Role::Tool,
            vec![Part::ToolResult {
                id: id.into(),
                name: None,
                output: vec![Part::text("ok")],
                is_error: false,
            }],
        )
    }

    #[test]
    fn parallel_calls_with_results_in_any_order_stay_together() {
        let m = vec![
            Message::text(Role::User, "go"),
            call(&["a", "b"]),
            result("b"),
            result("a"),
            Message::text(Role::Assistant, "done"),
        ];
        let safe = pair_safe_positions(&m);
        assert_eq!(safe, vec![true, true, false, false, true, true]);
    }

    #[test]
    fn a_result_far_from_its_call_blocks_every_cut_between() {
        let m = vec![
            call(&["a"]),
            Message::text(Role::User, "meanwhile"),
            Message::text(Role::Assistant, "still waiting"),
            result("a"),
        ];
        assert_eq!(
            pair_safe_positions(&m),
            vec![true, false, false, false, true]
        );
        let partners = ToolPartners::new(&m);
        assert_eq!(partners.of(0), vec![3]);
        assert_eq!(partners.of(3), vec![0]);
        assert_eq!(partners.of(1), Vec::<usize>::new());
    }

    #[test]
    fn orphans_and_pending_calls_do_not_block() {
        let m = vec![result("x"), Message::text(Role::User, "hi"), call(&["y"])];
        assert_eq!(pair_safe_positions(&m), vec![true; 4]);
    }
}
