//! Codex mode on a history that starts with an earlier summary: the summary is folded into the
//! new one, never kept as one of the recent user messages (Codex's `collect_user_messages`
//! leaves summary messages out), so a second round through `Compactor` shows one summary, as a
//! `Session` does.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

mod common;

use common::{history, plan};
use context_compaction::core::cut::{Direction, TurnBoundary};
use context_compaction::core::plan::{Disposition as D, PlanOptions, Strategy};

#[test]
fn an_earlier_summary_is_not_a_recent_user_message() {
    let m = history("s u a u c t a u a");
    let options = PlanOptions {
        strategy: Strategy::RecentUserMessages { max_tokens: 1_000 },
        boundary: TurnBoundary::Split,
        direction: Direction::Forward,
        summarize: true,
        summary_tokens: 100,
        prefix_summary_tokens: 50,
        limit: None,
        keep_small_prefix: true,
        floor: 0,
        prune: None,
    };
    let p = plan(&m, &vec![1; m.len()], &options).unwrap();
    assert_eq!(
        p.indices(D::Keep),
        vec![1, 3, 7],
        "the user messages, not the summary"
    );
    assert_eq!(p.previous_summary, Some(0));
    assert_eq!(p.dispositions[0], D::Summarize);
}

#[test]
fn the_kept_tail_starts_after_the_last_message_not_kept() {
    let m = history("u a u a u a");
    let options = PlanOptions {
        strategy: Strategy::RecentUserMessages { max_tokens: 2 },
        boundary: TurnBoundary::Split,
        direction: Direction::Forward,
        summarize: true,
        summary_tokens: 100,
        prefix_summary_tokens: 50,
        limit: None,
        keep_small_prefix: true,
        floor: 0,
        prune: None,
    };
    let p = plan(&m, &vec![1; m.len()], &options).unwrap();
    // The last two user messages are kept, the answers summarized: no message reaches the end,
    // so the tail is empty and the kept ones go with the summary.
    assert_eq!(p.indices(D::Keep), vec![2, 4]);
    assert_eq!(p.tail_start(), m.len());
}
