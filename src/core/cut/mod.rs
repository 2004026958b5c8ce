//! Where the kept tail starts: every cut-point rule lives here.
//!
//! The rules, in the order they apply:
//! 1. **Region.** Leading system messages are never summarized. The latest summary message (one
//!    this package or a peer inserted) is a compaction boundary: the kept tail always starts after
//!    it, and keep budgets count only the messages after it (seed 000). Everything between the
//!    system messages and the cut, earlier summaries included, is folded into the new summary.
//! 2. **Candidates** (seed 003 `_is_cut_point_block`): a cut may fall before a user or assistant
//!    message, never before a tool-result carrier (a `tool` message or an Anthropic user message
//!    with `tool_result` blocks), a summary or a system message. Tool results still count toward
//!    token budgets (seed 003 `_is_message_block`).
//! 3. **Tool pairs** (seed 001): a cut never separates a call from its results, whatever their order
//!    or distance ([`pairs::pair_safe_positions`]).
//! 4. **Turns**: with [`TurnBoundary::Snap`] the tail starts at a turn start only (a user message
//!    typed by a person, seed 002 `snapToTurnStart`); with [`TurnBoundary::Split`] it may start
//!    inside a turn and the turn's prefix is summarized separately (seed 003 split turn); with
//!    [`TurnBoundary::Free`] it may too, and the prefix is summarized with the rest (seed 001).
//! 5. **Selection**: a raw position from the keep policy is moved to the nearest candidate in the
//!    policy's direction ([`Direction`]); when there is none that way, the nearest one the other way
//!    (keeping more) is taken, except for hard budgets.

pub mod pairs;

use crate::core::message::{Message, Role};
use std::ops::Range;

/// Whether the kept tail may start inside a turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TurnBoundary {
    /// Only at a turn start (seed 002).
    Snap,
    /// At any candidate; a cut inside a turn is a split turn (seed 003, pi).
    Split,
    /// At any candidate, and the turn's prefix goes into the one summary with everything before
    /// it (seed 001: the boundary only walks back over tool results).
    Free,
}

/// Which way a raw position moves to reach a candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// The first candidate at or after the raw position (seeds 002, 003; keeps at most the budget).
    Forward,
    /// The last candidate at or before it (seed 001: walk back over tool results; keeps more).
    Backward,
}

/// The shape of a history that cut rules need, computed once in O(n).
#[derive(Clone, Debug)]
pub struct Layout {
    /// Messages `0..system_end` are the leading system messages.
    pub system_end: usize,
    /// The latest summary message, if any.
    pub last_summary: Option<usize>,
    /// First index the kept tail may start at: after the latest summary, or after the system
    /// messages.
    pub tail_floor: usize,
    /// Indices of turn starts at or after `tail_floor`.
    pub turn_starts: Vec<usize>,
    /// `safe[c]`: a cut before `c` keeps tool pairs together (`0..=len`).
    pub safe: Vec<bool>,
    len: usize,
}

impl Layout {
    /// Analyzes `messages`.
    pub fn new(messages: &[Message]) -> Layout {
        // A system-role summary (seed 004's) ends the leading system messages: it is folded in.
        let system_end = messages
            .iter()
            .position(|m| m.role != Role::System || m.summary)
            .unwrap_or(messages.len());
        let last_summary = messages.iter().rposition(|m| m.summary);
        let tail_floor = last_summary.map_or(system_end, |s| (s + 1).max(system_end));
        let turn_starts = messages
            .iter()
            .enumerate()
            .skip(tail_floor)
            .filter(|(_, m)| m.is_user_turn_start())
            .map(|(i, _)| i)
            .collect();
        Layout {
            system_end,
            last_summary,
            tail_floor,
            turn_starts,
            safe: pairs::pair_safe_positions(messages),
            len: messages.len(),
        }
    }

    /// Moves `tail_floor` up to `floor` (never past the end, never down).
    pub fn raise_floor(&mut self, floor: usize) {
        let floor = floor.min(self.len);
        if floor > self.tail_floor {
            self.tail_floor = floor;
            self.turn_starts.retain(|&t| t >= floor);
        }
    }

    /// Number of messages analyzed.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when there are no messages.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// True when `c` starts a turn.
    pub fn is_turn_start(&self, c: usize) -> bool {
        self.turn_starts.binary_search(&c).is_ok()
    }

    /// Positions (`tail_floor..len`) where the kept tail may start, ascending.
    pub fn candidates(&self, messages: &[Message], boundary: TurnBoundary) -> Vec<usize> {
        (self.tail_floor..self.len)
            .filter(|&c| {
                let Some(m) = messages.get(c) else {
                    return false;
                };
                let cut_point = m.role != Role::System && !m.summary && !m.is_tool_result_carrier();
                let turn_ok = boundary != TurnBoundary::Snap || self.is_turn_start(c);
                cut_point && turn_ok && self.safe.get(c).copied().unwrap_or(false)
            })
            .collect()
    }

    /// The turn prefix that a cut at `c` splits off: from the turn's start (or the tail floor, when
    /// the turn began before the last compaction) up to `c`. `None` when `c` starts a turn or keeps
    /// nothing.
    pub fn split_prefix(&self, c: usize) -> Option<Range<usize>> {
        if c >= self.len || self.is_turn_start(c) {
            return None;
        }
        let start = self
            .turn_starts
            .iter()
            .rev()
            .find(|&&t| t < c)
            .copied()
            .unwrap_or(self.tail_floor);
        (start < c).then_some(start..c)
    }
}

/// Moves `raw` to a candidate. `fallback` allows the other direction when none lies the preferred
/// way (it always keeps more). `None` when there is no candidate at all.
pub fn select(
    candidates: &[usize],
    raw: usize,
    direction: Direction,
    fallback: bool,
) -> Option<usize> {
    let at_or_after = candidates.iter().copied().find(|&c| c >= raw);
    let at_or_before = candidates.iter().copied().rev().find(|&c| c <= raw);
    match direction {
        Direction::Forward => at_or_after.or(if fallback { at_or_before } else { None }),
        Direction::Backward => at_or_before.or(if fallback { at_or_after } else { None }),
    }
}

/// The earliest index `j >= floor` such that `tokens[j..]` sums to at least `keep` (seed 003:
/// accumulate backward until `accumulated >= keep_recent_tokens`). `None` when even `floor..`
/// holds less than `keep`.
pub fn reach_back(tokens: &[usize], floor: usize, keep: usize) -> Option<usize> {
    let mut accumulated = 0usize;
    for j in (floor..tokens.len()).rev() {
        accumulated = accumulated.saturating_add(tokens.get(j).copied().unwrap_or(0));
        if accumulated >= keep {
            return Some(j);
        }
    }
    None
}

/// The earliest index `j >= floor` such that `tokens[j..]` sums to at most `budget` (the longest
/// suffix within a hard budget, seed 002 `TokenCountCompactionStrategy`).
pub fn fit_back(tokens: &[usize], floor: usize, budget: usize) -> usize {
    let mut used = 0usize;
    let mut j = tokens.len();
    while j > floor {
        let cost = tokens.get(j - 1).copied().unwrap_or(0);
        if used.saturating_add(cost) > budget {
            break;
        }
        used += cost;
        j -= 1;
    }
    j
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::core::message::Part;
    use serde_json::json;

    /// u = user, a = assistant, c = assistant with a call, t = its result, s = summary, y = system.
    pub(crate) fn history(spec: &str) -> Vec<Message> {
        let mut next = 0;
        spec.chars()
            .filter(|ch| !ch.is_whitespace())
            .map(|ch| match ch {
                'u' => Message::text(Role::User, "question"),
                'a' => Message::text(Role::Assistant, "answer"),
                'y' => Message::text(Role::System, "rules"),
                's' => {
                    let mut m = Message::text(Role::User, "summary");
                    m.summary = true;
                    m
                }
                'c' => {
                    next += 1;
                    Message::new(
                        Role::Assistant,
                        vec![Part::ToolCall {
                            id: format!("t{next}"),
                            name: "read".into(),
                            input: json!({}),
                        }],
                    )
                }
                't' => Message::new(
                    Role::Tool,
                    vec![Part::ToolResult {
                        id: format!("t{next}"),
                        name: None,
                        output: vec![Part::text("out")],
                        is_error: false,
                    }],
                ),
                other => Message::text(Role::User, other.to_string()),
            })
            .collect()
    }

    #[test]
    fn candidates_skip_results_summaries_and_system() {
        let m = history("y s u c t a u a");
        let layout = Layout::new(&m);
        assert_eq!(layout.tail_floor, 2);
        assert_eq!(
            layout.candidates(&m, TurnBoundary::Split),
            vec![2, 3, 5, 6, 7]
        );
        assert_eq!(layout.candidates(&m, TurnBoundary::Snap), vec![2, 6]);
    }

    #[test]
    fn seed_002_snap_example() {
        // [u1, a1, u2, a2, | a3, u3, a3]: the cut lands on a3 and moves to u3.
        let m = history("u a u a a u a");
        let layout = Layout::new(&m);
        let snapped = select(
            &layout.candidates(&m, TurnBoundary::Snap),
            4,
            Direction::Forward,
            true,
        );
        assert_eq!(snapped, Some(5));
    }

    #[test]
    fn split_prefix_runs_from_the_turn_start() {
        let m = history("u a u c t c t a");
        let layout = Layout::new(&m);
        assert_eq!(layout.split_prefix(5), Some(2..5));
        assert_eq!(layout.split_prefix(2), None);
        assert_eq!(layout.split_prefix(8), None);
    }

    #[test]
    fn budgets_walk_back_like_seed_003() {
        let tokens = [10, 10, 10, 10];
        assert_eq!(reach_back(&tokens, 0, 15), Some(2));
        assert_eq!(reach_back(&tokens, 0, 20), Some(2));
        assert_eq!(reach_back(&tokens, 0, 41), None);
        assert_eq!(fit_back(&tokens, 0, 25), 2);
        assert_eq!(fit_back(&tokens, 1, 100), 1);
        assert_eq!(fit_back(&tokens, 0, 5), 4);
    }
}
