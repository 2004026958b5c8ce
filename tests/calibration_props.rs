#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
//! Properties of self-calibration (`core::estimate::Learned`): whatever usage numbers come, the
//! factors stay within their bounds and the expected error stays a sane number; after an outlier
//! (a count reported after a provider-side truncation, a retried request counted twice) the
//! factors come back to the true ratio.

use context_compaction::core::estimate::{Kind, KindTokens, Learned, MAX_FACTOR, MIN_FACTOR};
use proptest::prelude::*;

fn kinds() -> impl Strategy<Value = KindTokens> {
    (
        0usize..20_000,
        0usize..5_000,
        0usize..50_000,
        0usize..2_000,
        0usize..8_000,
        0usize..3_000,
    )
        .prop_map(
            |(text, tool_calls, tool_results, images, reasoning, system)| KindTokens {
                text,
                tool_calls,
                tool_results,
                images,
                reasoning,
                system,
            },
        )
}

fn in_bounds(l: &Learned) -> bool {
    [
        Kind::Text,
        Kind::ToolCalls,
        Kind::ToolResults,
        Kind::Reasoning,
        Kind::System,
    ]
    .iter()
    .all(|&k| (MIN_FACTOR..=MAX_FACTOR).contains(&l.factors.get(k)))
        && (0.0..=1.0).contains(&l.spread)
        && (-1.0..=1.0).contains(&l.bias)
        && l.error().is_finite()
        && (0.0..=1.0).contains(&l.error())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn never_leaves_its_bounds(
        prior in 0.0f64..2.0,
        turns in prop::collection::vec((kinds(), prop_oneof![Just(0u64), 0u64..10, 0u64..1_000_000, Just(u64::MAX)]), 0..60),
    ) {
        let mut l = Learned::new(prior);
        prop_assert!(in_bounds(&l));
        for (k, observed) in turns {
            let before = l.predict(&k);
            l.observe(&k, observed);
            prop_assert!(in_bounds(&l), "{l:?}");
            // the corrected estimate stays within the bounds' multiple of the estimate
            let raw = k.total() as f64;
            prop_assert!(l.predict(&k) <= raw * MAX_FACTOR + 1e-6);
            prop_assert!(l.predict(&k) >= raw * MIN_FACTOR - 1e-6 || before == 0.0);
        }
    }

    #[test]
    fn recovers_after_an_outlier(
        ratio in 0.7f64..1.5,
        outlier in prop_oneof![0.01f64..0.2, 5.0f64..100.0],
        turn in kinds().prop_filter("a turn worth learning from", |k| k.total() >= 2_000),
    ) {
        // the provider counts `ratio` times the estimate (images are priced by their own rule)
        let truth = ratio * (turn.total() - turn.images) as f64 + turn.images as f64;
        let observe = |l: &mut Learned, r: f64| {
            l.observe(&turn, (truth * r / ratio).round() as u64);
        };
        let mut l = Learned::new(0.2);
        for _ in 0..30 {
            observe(&mut l, ratio);
        }
        let settled = l.predict(&turn);
        prop_assert!((settled / truth - 1.0).abs() < 0.03, "settled {settled} for {truth}");
        observe(&mut l, ratio * outlier);
        let hit = l.predict(&turn);
        // one outlier moves the estimate by at most a quarter
        prop_assert!((hit / settled).ln().abs() <= 0.25, "{hit} vs {settled}");
        for _ in 0..30 {
            observe(&mut l, ratio);
        }
        let back = l.predict(&turn);
        prop_assert!((back / truth - 1.0).abs() < 0.03, "back at {back} for {truth}");
    }
}
