//! What each strategy keeps: the first placement of the cut (or, for Codex mode, the kept set)
//! before convergence is checked.

use crate::core::cut::{fit_back, reach_back, select, Direction, Layout, TurnBoundary};
use crate::core::message::Message;

/// How much of the recent history is kept verbatim.
#[derive(Clone, Debug, PartialEq)]
pub enum Strategy {
    /// Keep about `keep` recent tokens (pi, seed 003): accumulate backward until the budget is
    /// reached, then take the first cut candidate at or after that message.
    RecentTokens { keep: usize },
    /// Keep the last `keep` messages (sliding window: seed 002, seed 001's `keepLast`, seed 004's
    /// raw tail), moved to a candidate in the configured direction.
    LastMessages { keep: usize },
    /// Keep the last `keep` whole turns (seed 002 turn window).
    LastTurns { keep: usize },
    /// Keep the longest suffix within `max` tokens (seed 002 token budget); may keep nothing.
    TokenBudget { max: usize },
    /// Keep the longest suffix within `max` tokens but at least the last message, the cut moved
    /// back to a candidate (LangChain's `summarizationMiddleware` `keep: { tokens }`: a cut on a
    /// tool result moves back to its call, keeping more than `max`).
    TokenWindow { max: usize },
    /// Keep the last `keep` messages and also show the first `overlap` of them to the summarizer
    /// (seed 002 recursive summarization; `overlap < keep`).
    Recursive { keep: usize, overlap: usize },
    /// Codex: keep the most recent user messages up to `max_tokens`; assistant and tool messages
    /// are all summarized.
    RecentUserMessages { max_tokens: usize },
}

/// Where the kept tail starts for a contiguous strategy; `len` keeps nothing. `None` for
/// [`Strategy::RecentUserMessages`], which keeps a set instead (see [`recent_user_messages`]).
/// `reserved` tokens of the token budget go to the summaries placed before the tail (see
/// [`reserved_for_summaries`]).
pub fn initial_cut(
    strategy: &Strategy,
    messages: &[Message],
    tokens: &[usize],
    layout: &Layout,
    boundary: TurnBoundary,
    direction: Direction,
    reserved: usize,
) -> Option<usize> {
    let len = messages.len();
    let floor = layout.tail_floor;
    let candidates = layout.candidates(messages, boundary);
    // No candidate at all: the strategy cannot cut, so it keeps everything (convergence may still
    // escalate when a limit demands it).
    let pick = |raw: usize, dir: Direction| select(&candidates, raw, dir, true).unwrap_or(floor);
    Some(match *strategy {
        Strategy::RecentTokens { keep } => match reach_back(tokens, floor, keep) {
            // Everything after the boundary is within the budget: nothing to summarize.
            None => floor,
            Some(j) => pick(j, Direction::Forward),
        },
        Strategy::LastMessages { keep } | Strategy::Recursive { keep, .. } => {
            let raw = len.saturating_sub(keep).max(floor);
            if raw == floor {
                floor
            } else {
                pick(raw, direction)
            }
        }
        Strategy::LastTurns { keep } => {
            let turns = &layout.turn_starts;
            match turns.len().checked_sub(keep) {
                None | Some(0) => floor,
                Some(_) if keep == 0 => len,
                Some(first_kept) => pick(
                    turns.get(first_kept).copied().unwrap_or(len),
                    Direction::Forward,
                ),
            }
        }
        // Seed 002: the synthetic events' cost is deducted from the budget first (`reserved`).
        Strategy::TokenBudget { max } => {
            match fit_back(tokens, floor, max.saturating_sub(reserved)) {
                // Everything after the boundary is within the budget: nothing to remove.
                j if j == floor => floor,
                j => select(&candidates, j, Direction::Forward, false).unwrap_or(len),
            }
        }
        Strategy::TokenWindow { max } => match fit_back(tokens, floor, max) {
            // Everything after the boundary is within the budget: nothing to summarize.
            j if j == floor => floor,
            // Even the last message alone is over the budget: it is kept all the same.
            j => pick(j.min(len.saturating_sub(1)).max(floor), Direction::Backward),
        },
        Strategy::RecentUserMessages { .. } => return None,
    })
}

/// What the summaries before the kept tail will cost: the new summary's budget when the plan
/// summarizes (it folds the earlier ones in), else the earlier summaries before `floor`, which
/// stay (seed 002's synthetic events).
pub fn reserved_for_summaries(
    messages: &[Message],
    tokens: &[usize],
    floor: usize,
    summarize: bool,
    summary_tokens: usize,
) -> usize {
    if summarize {
        return summary_tokens;
    }
    messages
        .iter()
        .zip(tokens)
        .take(floor)
        .filter(|(m, _)| m.summary)
        .map(|(_, t)| *t)
        .sum()
}

/// Codex mode: which user messages after the tail floor are kept, newest first until `max_tokens`
/// would be exceeded. An earlier summary is not one of them (Codex's `collect_user_messages`
/// leaves summary messages out): it is folded into the new summary. Returns a mask over all
/// messages.
pub fn recent_user_messages(
    messages: &[Message],
    tokens: &[usize],
    layout: &Layout,
    max_tokens: usize,
) -> Vec<bool> {
    let mut keep = vec![false; messages.len()];
    let mut used = 0usize;
    for &i in layout.turn_starts.iter().rev() {
        if messages.get(i).is_some_and(|m| m.summary) {
            continue;
        }
        let cost = tokens.get(i).copied().unwrap_or(0);
        if used.saturating_add(cost) > max_tokens {
            break;
        }
        used += cost;
        if let Some(slot) = keep.get_mut(i) {
            *slot = true;
        }
    }
    keep
}
