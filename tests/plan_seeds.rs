//! The worked examples of the seed documents, reproduced by the planner.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use common::{call, history, plan, result};
use context_compaction::core::cut::{Direction, TurnBoundary};
use context_compaction::core::error::ErrorCode;
use context_compaction::core::message::{Message, Role};
use context_compaction::core::plan::{
    Disposition as D, Escalation, PlanOptions, PruneSettings, Strategy,
};
use context_compaction::core::prune::Style;

fn options(strategy: Strategy, boundary: TurnBoundary, direction: Direction) -> PlanOptions {
    PlanOptions {
        strategy,
        boundary,
        direction,
        summarize: true,
        summary_tokens: 100,
        prefix_summary_tokens: 50,
        limit: None,
        keep_small_prefix: true,
        floor: 0,
        prune: None,
    }
}

fn o_with(strategy: Strategy, prefix_summary_tokens: usize) -> PlanOptions {
    PlanOptions {
        prefix_summary_tokens,
        ..options(strategy, TurnBoundary::Split, Direction::Forward)
    }
}

fn ones(n: usize) -> Vec<usize> {
    vec![1; n]
}

#[test]
fn seed_000_single_compaction_keeps_the_last_four() {
    // u1, a1, t1, t1, a1, u2, a2, u3, a3, t3, a3, t3, a3, u4, a4, t4, a4 — keep the last 4.
    let m = history("u c t c t a u a u c t c t a u c t a");
    assert_eq!(m.len(), 18);
    let p = plan(
        &m,
        &ones(18),
        &options(
            Strategy::LastMessages { keep: 4 },
            TurnBoundary::Snap,
            Direction::Forward,
        ),
    )
    .unwrap();
    assert_eq!(p.indices(D::Keep), vec![14, 15, 16, 17]);
    assert_eq!(p.indices(D::Summarize), (0..14).collect::<Vec<_>>());
    assert!(!p.split_turn);
}

#[test]
fn seed_000_second_compaction_stays_after_the_first() {
    // [S1], u4, a4, t4, a4, u5, a5, u6, a6, t6, a6, u7, a7: keep 3 lands on a6 and snaps to u7.
    let m = history("s u c t a u a u c t a u a");
    let p = plan(
        &m,
        &ones(13),
        &options(
            Strategy::LastMessages { keep: 3 },
            TurnBoundary::Snap,
            Direction::Forward,
        ),
    )
    .unwrap();
    assert_eq!(p.indices(D::Keep), vec![11, 12]);
    assert_eq!(p.previous_summary, Some(0));
    assert_eq!(
        p.dispositions[0],
        D::Summarize,
        "the first summary is folded into the second"
    );
    // A keep budget larger than what follows the boundary never reaches across it.
    let p = plan(
        &m,
        &ones(13),
        &options(
            Strategy::LastMessages { keep: 40 },
            TurnBoundary::Snap,
            Direction::Forward,
        ),
    )
    .unwrap();
    assert!(p.is_noop());
    assert_eq!(p.indices(D::Keep), (1..13).collect::<Vec<_>>());
}

#[test]
fn seed_001_fifty_messages_keep_the_last_ten() {
    // [0] system, [1] user, then assistant call / tool result pairs up to [46] "All tests pass",
    // [47] user, [48] assistant call, [49] tool result.
    let mut m = vec![
        Message::text(Role::System, "rules"),
        Message::text(Role::User, "Build a flashcard app"),
    ];
    for k in 0..22 {
        m.push(call(&[&format!("c{k}")]));
        m.push(result(&format!("c{k}")));
    }
    m.push(Message::text(Role::Assistant, "All tests pass"));
    m.push(Message::text(Role::User, "Add AI integration"));
    m.push(call(&["last"]));
    m.push(result("last"));
    assert_eq!(m.len(), 50);
    let p = plan(
        &m,
        &ones(50),
        &options(
            Strategy::LastMessages { keep: 10 },
            TurnBoundary::Split,
            Direction::Backward,
        ),
    )
    .unwrap();
    assert_eq!(p.dispositions[0], D::System);
    assert_eq!(p.indices(D::Keep), (40..50).collect::<Vec<_>>());
    assert_eq!(p.indices(D::Summarize), (1..40).collect::<Vec<_>>());
    // The kept window starts inside the first turn; with no older history the prefix is the history.
    assert!(p.split_turn);
    assert_eq!(p.turn_prefix, None);

    // keepLast = 9 lands on a tool result [41]: seed 001 walks back to its call [40].
    let p = plan(
        &m,
        &ones(50),
        &options(
            Strategy::LastMessages { keep: 9 },
            TurnBoundary::Split,
            Direction::Backward,
        ),
    )
    .unwrap();
    assert_eq!(p.indices(D::Keep), (40..50).collect::<Vec<_>>());
}

#[test]
fn seed_002_turn_window_and_token_budget() {
    let m = history("u a u c t a u a u a");
    let p = plan(
        &m,
        &ones(10),
        &options(
            Strategy::LastTurns { keep: 2 },
            TurnBoundary::Snap,
            Direction::Forward,
        ),
    )
    .unwrap();
    assert_eq!(p.indices(D::Keep), vec![6, 7, 8, 9]);
    let p = plan(
        &m,
        &ones(10),
        &options(
            Strategy::LastTurns { keep: 4 },
            TurnBoundary::Snap,
            Direction::Forward,
        ),
    )
    .unwrap();
    assert!(p.is_noop());
    // Token budget (seed 002's, without a model call): the longest suffix within 3 tokens is
    // [a u a]; leading non-user messages drop.
    let mut o = options(
        Strategy::TokenBudget { max: 3 },
        TurnBoundary::Snap,
        Direction::Forward,
    );
    o.summarize = false;
    let p = plan(&m, &ones(10), &o).unwrap();
    assert_eq!(p.indices(D::Keep), vec![8, 9]);
    // Summarizing, the new summary's budget comes off the token budget first: with 2 of 3 tokens
    // for the summary, the last message alone would fit, and a kept tail starts at a user message.
    o.summarize = true;
    o.summary_tokens = 2;
    let p = plan(&m, &ones(10), &o).unwrap();
    assert!(p.indices(D::Keep).len() < 2, "{:?}", p.indices(D::Keep));
    // Without a model call, what is removed is dropped and earlier summaries are preserved first.
    let m = history("s u a u a u a");
    let mut o = options(
        Strategy::LastMessages { keep: 2 },
        TurnBoundary::Snap,
        Direction::Forward,
    );
    o.summarize = false;
    let p = plan(&m, &ones(7), &o).unwrap();
    assert_eq!(
        p.dispositions,
        vec![
            D::Pinned,
            D::Drop,
            D::Drop,
            D::Drop,
            D::Drop,
            D::Keep,
            D::Keep
        ]
    );
}

#[test]
fn seed_002_recursive_summarization_overlaps_the_active_window() {
    let m = history("u a u a u a u a u a");
    let p = plan(
        &m,
        &ones(10),
        &options(
            Strategy::Recursive {
                keep: 4,
                overlap: 2,
            },
            TurnBoundary::Snap,
            Direction::Forward,
        ),
    )
    .unwrap();
    assert_eq!(p.indices(D::Keep), vec![6, 7, 8, 9]);
    assert_eq!(p.overlap, vec![6, 7]);
}

#[test]
fn seed_003_split_turn_summarizes_the_prefix_separately() {
    // Turns A, B, C (long, with tools), D, E; a budget that lands inside C. The prefix summary
    // budget (30) is below the prefix's size (50), so the prefix is summarized separately.
    let m = history("u a  u a  u c t c t c t a  u a  u a");
    let tokens = vec![10; 16];
    let p = plan(
        &m,
        &tokens,
        &o_with(Strategy::RecentTokens { keep: 65 }, 30),
    )
    .unwrap();
    // Accumulating backward reaches 65 at message 9 (a call: a candidate) — inside turn C.
    assert_eq!(p.indices(D::Keep), (9..16).collect::<Vec<_>>());
    assert_eq!(p.indices(D::Summarize), vec![0, 1, 2, 3]);
    assert_eq!(p.turn_prefix, Some(4..9));
    assert_eq!(p.indices(D::TurnPrefix), (4..9).collect::<Vec<_>>());
    assert!(p.split_turn);
    assert_eq!(p.tokens_after, 70 + 100 + 30);
    // 75 tokens reach message 8, a tool result: not a candidate, so the cut moves on to 9.
    let p = plan(
        &m,
        &tokens,
        &o_with(Strategy::RecentTokens { keep: 75 }, 30),
    )
    .unwrap();
    assert_eq!(p.indices(D::Keep), (9..16).collect::<Vec<_>>());
    // A cut on a turn start is not a split.
    let p = plan(
        &m,
        &tokens,
        &o_with(Strategy::RecentTokens { keep: 40 }, 30),
    )
    .unwrap();
    assert!(!p.split_turn);
    assert_eq!(p.indices(D::Keep), (12..16).collect::<Vec<_>>());
}

#[test]
fn seed_003_no_compaction_under_the_budget_and_after_a_summary() {
    let m = history("y s u a u a");
    let o = options(
        Strategy::RecentTokens { keep: 100 },
        TurnBoundary::Split,
        Direction::Forward,
    );
    assert!(plan(&m, &ones(6), &o).unwrap().is_noop());
    let o = options(
        Strategy::RecentTokens { keep: 2 },
        TurnBoundary::Split,
        Direction::Forward,
    );
    let p = plan(&m, &ones(6), &o).unwrap();
    assert_eq!(
        p.dispositions,
        vec![
            D::System,
            D::Summarize,
            D::Summarize,
            D::Summarize,
            D::Keep,
            D::Keep
        ]
    );
}

#[test]
fn pinned_messages_and_their_tool_partners_survive() {
    let mut m = history("u c t a u a u a");
    m[0].pinned = true;
    m[1].pinned = true;
    let o = options(
        Strategy::LastTurns { keep: 1 },
        TurnBoundary::Snap,
        Direction::Forward,
    );
    let p = plan(&m, &ones(8), &o).unwrap();
    assert_eq!(
        p.dispositions,
        vec![
            D::Pinned,
            D::Pinned,
            D::Pinned,
            D::Summarize,
            D::Summarize,
            D::Summarize,
            D::Keep,
            D::Keep
        ]
    );
}

#[test]
fn convergence_shrinks_splits_truncates_or_refuses() {
    let m = history("u a u c t c t a");
    let tokens = vec![10, 10, 10, 10, 10, 10, 10, 10];
    let mut o = options(
        Strategy::RecentTokens { keep: 1000 },
        TurnBoundary::Snap,
        Direction::Forward,
    );
    o.summary_tokens = 10;
    o.prefix_summary_tokens = 5;
    // Everything fits the keep budget, but the limit forces a compaction that shrinks the tail.
    o.limit = Some(45);
    let p = plan(&m, &tokens, &o).unwrap();
    assert!(p.tokens_after <= 45, "{p:?}");
    assert!(!p.is_noop());
    // No turn start fits: the turn is split.
    o.limit = Some(38);
    let p = plan(&m, &tokens, &o).unwrap();
    assert!(p.tokens_after <= 38);
    assert!(
        p.escalations.contains(&Escalation::SplitTurn),
        "{:?}",
        p.escalations
    );
    // The limit is below the summary budget itself: nothing can fit.
    o.limit = Some(5);
    let err = plan(&m, &tokens, &o).unwrap_err();
    assert_eq!(err.code, ErrorCode::CannotCompact);
    assert!(err.message.contains("80 tokens under 5"), "{}", err.message);
}

#[test]
fn an_oversized_last_tool_output_is_truncated() {
    // The smallest tail (the last call and its 10,000-token result) does not fit the limit.
    let mut m = history("u a u c");
    let mut big = result("t1");
    if let context_compaction::core::message::Part::ToolResult { output, .. } = &mut big.parts[0] {
        *output = vec![context_compaction::core::message::Part::text(
            "x".repeat(40_000),
        )];
    }
    m.push(big);
    let tokens = vec![10, 10, 10, 10, 10_000];
    let mut o = options(
        Strategy::RecentTokens { keep: 20_000 },
        TurnBoundary::Split,
        Direction::Forward,
    );
    o.limit = Some(2_000);
    let p = plan(&m, &tokens, &o).unwrap();
    assert!(p.tokens_after <= 2_000, "{p:?}");
    assert_eq!(p.truncations.len(), 1);
    assert_eq!(p.truncations[0].message, 4);
    assert!(p
        .escalations
        .iter()
        .any(|e| matches!(e, Escalation::Truncated { .. })));
}

#[test]
fn pruning_comes_first_and_keeps_more_of_the_tail() {
    // Two reads of the same file; the first is superseded by the second.
    let mut m = vec![Message::text(Role::User, "fix a.rs")];
    for id in ["r1", "r2"] {
        m.push(call(&[id]));
        let mut r = result(id);
        if let context_compaction::core::message::Part::ToolResult { output, .. } = &mut r.parts[0]
        {
            *output = vec![context_compaction::core::message::Part::text(
                "fn main() {}\n".repeat(400),
            )];
        }
        m.push(r);
    }
    m.push(Message::text(Role::Assistant, "fixed"));
    let tokens: Vec<usize> = m
        .iter()
        .map(|x| x.parts.iter().map(common::part_cost).sum::<usize>() + 4)
        .collect();
    let total: usize = tokens.iter().sum();
    let mut o = options(
        Strategy::RecentTokens { keep: 100_000 },
        TurnBoundary::Split,
        Direction::Forward,
    );
    o.limit = Some(total - 100);
    let without = plan(&m, &tokens, &o).unwrap();
    assert!(without
        .escalations
        .iter()
        .any(|e| matches!(e, Escalation::ShrankTail { .. })));
    o.prune = Some(PruneSettings {
        supersede: true,
        style: Style::None,
    });
    let with = plan(&m, &tokens, &o).unwrap();
    assert!(
        matches!(with.escalations.first(), Some(Escalation::Pruned { .. })),
        "{:?}",
        with.escalations
    );
    assert_eq!(with.pruned.len(), 1);
    assert_eq!(with.pruned[0].message, 2, "the older read is pruned");
    assert!(with.indices(D::Keep).len() > without.indices(D::Keep).len());
    assert!(with.tokens_after <= total - 100);
}

#[test]
fn a_prefix_no_larger_than_its_summary_budget_stays_verbatim() {
    // An earlier turn, then "read X in full" (12 tokens), the read call and a huge result: the
    // cut after the request would split off a prefix whose summary could not be smaller.
    let m = history("u a u a  u c t");
    let tokens = vec![300, 300, 300, 300, 12, 20, 10_000];
    let p = plan(
        &m,
        &tokens,
        &o_with(Strategy::RecentTokens { keep: 8_000 }, 50),
    )
    .unwrap();
    assert!(!p.split_turn, "{p:?}");
    assert_eq!(p.indices(D::Keep), vec![4, 5, 6]);
    assert_eq!(p.turn_prefix, None);
    // A prefix larger than the budget is still summarized separately.
    let tokens = vec![300, 300, 300, 300, 400, 20, 10_000];
    let p = plan(
        &m,
        &tokens,
        &o_with(Strategy::RecentTokens { keep: 8_000 }, 50),
    )
    .unwrap();
    assert_eq!(p.turn_prefix, Some(4..5));
}

#[test]
fn the_token_budget_deducts_earlier_summaries_first() {
    // Seed 002: "Separate synthetic events (their token cost is deducted from the budget first)".
    let m = history("s u a u a u a u a");
    let mut tokens = ones(9);
    tokens[0] = 4;
    let mut o = options(
        Strategy::TokenBudget { max: 6 },
        TurnBoundary::Snap,
        Direction::Forward,
    );
    o.summarize = false;
    let p = plan(&m, &tokens, &o).unwrap();
    // 6 − 4 for the summary leaves 2: the last turn.
    assert_eq!(p.indices(D::Keep), vec![7, 8]);
    assert_eq!(p.indices(D::Pinned), vec![0]);
    let kept: usize = p
        .indices(D::Keep)
        .iter()
        .chain(&p.indices(D::Pinned))
        .map(|&i| tokens[i])
        .sum();
    assert!(kept <= 6, "{kept}");
}

#[test]
fn seed_001_a_cut_inside_a_later_turn_keeps_ten_and_summarizes_the_turn_start_with_the_rest() {
    // [0] system, [1] user, 12 call/result pairs, [26] "done", [27] user, then 11 call/result
    // pairs up to [49]. keepLast = 10 lands on the call at [40], inside the turn of [27]: the seed
    // keeps [40..50) (system + summary + 10 = 12 messages) and summarizes [1..40) in one call.
    let mut m = vec![
        Message::text(Role::System, "rules"),
        Message::text(Role::User, "Build a flashcard app"),
    ];
    for k in 0..12 {
        m.push(call(&[&format!("a{k}")]));
        m.push(result(&format!("a{k}")));
    }
    m.push(Message::text(Role::Assistant, "done"));
    m.push(Message::text(Role::User, "Add AI integration"));
    for k in 0..11 {
        m.push(call(&[&format!("b{k}")]));
        m.push(result(&format!("b{k}")));
    }
    assert_eq!(m.len(), 50);
    let settings = context_compaction::core::options::parse(
        &serde_json::json!({"preset": "compaction-layer"}),
    )
    .unwrap()
    .settings;
    assert_eq!(settings.plan.boundary, TurnBoundary::Free);
    let p = plan(&m, &ones(50), &settings.plan).unwrap();
    assert_eq!(p.indices(D::Keep), (40..50).collect::<Vec<_>>());
    assert_eq!(p.indices(D::Summarize), (1..40).collect::<Vec<_>>());
    assert!(p.indices(D::TurnPrefix).is_empty());
    assert_eq!(p.turn_prefix, None);
    // A split boundary keeps the same ten (a message window keeps what it was asked for, as
    // LangChain's does) but summarizes the turn's start [27..40) as a piece of its own.
    let split = plan(
        &m,
        &ones(50),
        &PlanOptions {
            boundary: TurnBoundary::Split,
            ..settings.plan.clone()
        },
    )
    .unwrap();
    assert_eq!(split.indices(D::Keep), (40..50).collect::<Vec<_>>());
    assert_eq!(split.indices(D::TurnPrefix), (27..40).collect::<Vec<_>>());
}
