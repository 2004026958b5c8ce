#![cfg(not(target_arch = "wasm32"))]
//! Every real session in tests/fixtures through the planner, for several windows and
//! strategies, with the invariants of the property tests.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use common::{output, pairs_intact, plan};
use context_compaction::core::cut::{Direction, Layout, TurnBoundary};
use context_compaction::core::error::ErrorCode;
use context_compaction::core::estimate::{Counter, Estimator};
use context_compaction::core::plan::{Disposition as D, PlanOptions, PruneSettings, Strategy};
use context_compaction::core::prune::{OpenCodeOptions, Style};

fn strategies() -> Vec<(Strategy, TurnBoundary, Direction)> {
    vec![
        (
            Strategy::RecentTokens { keep: 20_000 },
            TurnBoundary::Split,
            Direction::Forward,
        ),
        (
            Strategy::RecentTokens { keep: 5_000 },
            TurnBoundary::Snap,
            Direction::Forward,
        ),
        (
            Strategy::LastMessages { keep: 10 },
            TurnBoundary::Split,
            Direction::Backward,
        ),
        (
            Strategy::LastMessages { keep: 6 },
            TurnBoundary::Snap,
            Direction::Forward,
        ),
        (
            Strategy::LastTurns { keep: 3 },
            TurnBoundary::Snap,
            Direction::Forward,
        ),
        (
            Strategy::TokenBudget { max: 30_000 },
            TurnBoundary::Snap,
            Direction::Forward,
        ),
        (
            Strategy::Recursive {
                keep: 10,
                overlap: 2,
            },
            TurnBoundary::Snap,
            Direction::Forward,
        ),
        (
            Strategy::RecentUserMessages { max_tokens: 20_000 },
            TurnBoundary::Snap,
            Direction::Forward,
        ),
    ]
}

fn prunes() -> Vec<Option<PruneSettings>> {
    vec![
        None,
        Some(PruneSettings {
            supersede: true,
            style: Style::OpenCode(OpenCodeOptions::default()),
        }),
        Some(PruneSettings {
            supersede: true,
            style: Style::None,
        }),
    ]
}

#[test]
fn every_fixture_plans_within_every_window() {
    let estimator = Estimator::new(Counter::Heuristic);
    let mut plans = 0;
    for (name, messages) in common::fixture_sessions() {
        let estimate = estimator.estimate_all(&messages);
        let tokens = estimate.per_message.clone();
        let layout = Layout::new(&messages);
        for window in [16_000usize, 64_000, 200_000] {
            for ((strategy, boundary, direction), prune) in
                strategies().into_iter().zip(prunes().into_iter().cycle())
            {
                let options = PlanOptions {
                    strategy: strategy.clone(),
                    boundary,
                    direction,
                    summarize: true,
                    summary_tokens: window / 20,
                    prefix_summary_tokens: window / 40,
                    limit: Some(window * 3 / 4),
                    keep_small_prefix: true,
                    floor: 0,
                    prune: prune.clone(),
                };
                let context = format!("{name}, window {window}, {strategy:?}");
                let p = match plan(&messages, &tokens, &options) {
                    Ok(p) => p,
                    Err(e) => {
                        assert_eq!(e.code, ErrorCode::CannotCompact, "{context}");
                        continue;
                    }
                };
                plans += 1;
                assert_eq!(p.tokens_before, estimate.total, "{context}");
                assert!(
                    p.tokens_after <= window * 3 / 4,
                    "{context}: {}",
                    p.tokens_after
                );
                assert_eq!(p.dispositions.len(), messages.len());
                let kept = p.indices(D::Keep);
                if let (Some(&first), false) = (
                    kept.first(),
                    matches!(strategy, Strategy::RecentUserMessages { .. }),
                ) {
                    assert_eq!(
                        kept,
                        (first..messages.len()).collect::<Vec<_>>(),
                        "{context}"
                    );
                    assert!(
                        layout.is_turn_start(first) || p.split_turn || p.is_noop(),
                        "{context}"
                    );
                }
                let (out, out_tokens) = output(&messages, &tokens, &p, options.summary_tokens);
                if pairs_intact(&messages) {
                    assert!(pairs_intact(&out), "{context}");
                }
                let introduced = common::new_violations(&messages, &out);
                assert!(introduced.is_empty(), "{context}: {introduced:?}");
                let again = plan(&out, &out_tokens, &options).unwrap();
                assert!(
                    again.is_noop(),
                    "{context}: re-planning the output changed it: {:?}",
                    again.escalations
                );
            }
        }
    }
    eprintln!("{plans} plans checked");
}
