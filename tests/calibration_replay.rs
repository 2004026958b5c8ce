#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
//! Replays every real session of `tests/fixtures` that carries usage numbers and sets the estimate
//! of what each turn added against the provider's own count of it (see `common/replay.rs`):
//! first the base estimate (the heuristic, which approximates `o200k_base`), then the model-aware
//! estimate, then the model-aware estimate with self-calibration from the usage as it comes.
//! The Anthropic factors are fitted on the sessions of `replay::FIT` only; the others are held
//! out and only checked. Run with `cargo test --test calibration_replay -- --nocapture` to see
//! the table.

#[path = "common/fixtures.rs"]
mod fixtures;
#[path = "common/replay.rs"]
mod replay;

use context_compaction::core::estimate::{Estimator, Factors, Kind, KindTokens, Learned, Profile};
use replay::{quantile, Replay};

/// The per-kind base tokens of what each turn added, with the provider's count.
fn turns(replay: &Replay, estimator: &Estimator) -> Vec<(KindTokens, f64)> {
    let per: Vec<KindTokens> = replay
        .messages
        .iter()
        .map(|m| estimator.estimate_message(m))
        .collect();
    replay
        .turns
        .iter()
        .map(|t| (per[t.from..t.to].iter().copied().sum(), t.added as f64))
        .collect()
}

/// Aggregate, median and 10th percentile of estimate / provider.
fn stats(pairs: &[(f64, f64)]) -> (f64, f64, f64) {
    let est: f64 = pairs.iter().map(|p| p.0).sum();
    let obs: f64 = pairs.iter().map(|p| p.1).sum();
    let ratios: Vec<f64> = pairs.iter().map(|p| p.0 / p.1).collect();
    (est / obs, quantile(&ratios, 0.5), quantile(&ratios, 0.1))
}

/// The fit, on each turn's content (the base estimate without the fixed overheads of messages,
/// tool calls and tool results, which the factors do not scale) with the provider's count less
/// those overheads: for each kind, the median of provider / estimate over the turns where that
/// kind holds at least 70% of the content (text and system together; images are not scaled).
/// A kind with fewer than 10 such turns takes the median over all turns. Medians of single-kind turns are robust
/// to the outliers that the provider's count carries (a turn whose prompt also changed for reasons
/// not in the transcript) where a least-squares fit over mixed turns is not.
fn fit(turns: &[(KindTokens, f64)]) -> Factors {
    let all: Vec<f64> = turns
        .iter()
        .filter(|(k, _)| k.total() > 0)
        .map(|(k, obs)| obs / k.total() as f64)
        .collect();
    let overall = quantile(&all, 0.5);
    let mut f = Factors::ONE;
    for kind in [
        Kind::Text,
        Kind::ToolCalls,
        Kind::ToolResults,
        Kind::Reasoning,
    ] {
        let share = |k: &KindTokens| match kind {
            Kind::Text => k.text + k.system,
            other => k.get(other),
        };
        let ratios: Vec<f64> = turns
            .iter()
            .filter(|(k, _)| share(k) as f64 >= 0.7 * k.total() as f64 && k.total() > 0)
            .map(|(k, obs)| obs / k.total() as f64)
            .collect();
        if ratios.len() >= 10 {
            f.set(kind, quantile(&ratios, 0.5));
        } else {
            f.set(kind, overall);
        }
    }
    f.system = f.text;
    f
}

/// Estimated and provider-counted tokens of each turn.
type Pairs = Vec<(f64, f64)>;

/// What one replay measures, as (estimate, provider) pairs.
#[derive(Default)]
struct Measured {
    /// The whole turn (the measure), model-aware, uncalibrated.
    plain: Pairs,
    /// The same, self-calibrated (each prediction made before its turn's count is known).
    calibrated: Pairs,
    /// The tail the trigger estimates: the messages after a response up to the next request,
    /// against `prompt − previous input − previous output`; uncalibrated and self-calibrated.
    tail_plain: Pairs,
    tail_calibrated: Pairs,
}

/// The model-aware estimate of each turn with the provider's count: uncalibrated, and with
/// self-calibration learning from each turn after its prediction was recorded.
fn replay(s: &Replay, estimator: &Estimator) -> (Measured, Learned) {
    let mut learned = Learned::new(Profile::ANTHROPIC.error);
    let mut m = Measured::default();
    let per: Vec<KindTokens> = s
        .messages
        .iter()
        .map(|x| estimator.estimate_message(x))
        .collect();
    for t in &s.turns {
        let k: KindTokens = per[t.from..t.to].iter().copied().sum();
        let obs = t.added as f64;
        let tail: KindTokens = per[t.from + 1..t.to].iter().copied().sum();
        let tail_obs = (t.after.total() - t.after.output) as f64 - t.before.total() as f64;
        if tail_obs > 0.0 && tail.total() > 0 {
            m.tail_plain.push((tail.total() as f64, tail_obs));
            m.tail_calibrated.push((learned.predict(&tail), tail_obs));
        }
        m.plain.push((k.total() as f64, obs));
        m.calibrated.push((learned.predict(&k), obs));
        learned.observe(&k, t.added);
    }
    (m, learned)
}

fn mean_abs_log(pairs: &[(f64, f64)]) -> f64 {
    pairs.iter().map(|(e, o)| (e / o).ln().abs()).sum::<f64>() / pairs.len() as f64
}

fn line(label: &str, pairs: &[(f64, f64)]) -> (f64, f64, f64) {
    let (agg, median, p10) = stats(pairs);
    println!(
        "  {label:<34} aggregate {agg:.3}  median {median:.3}  p10 {p10:.3}  mean |ln| {:.3}",
        mean_abs_log(pairs)
    );
    (agg, median, p10)
}

#[test]
fn replay_every_fixture_with_usage() {
    let sessions = replay::sessions();
    let base = Estimator::default();
    let model = Estimator::default().with_factors(Profile::ANTHROPIC.factors);
    let content_only = Estimator {
        message_overhead: 0,
        tool_call_overhead: 0,
        tool_result_overhead: 0,
        ..Estimator::default()
    };
    let mut fit_turns = Vec::new();
    for s in sessions.iter().filter(|s| s.fit) {
        for ((content, _), (all, obs)) in turns(s, &content_only).into_iter().zip(turns(s, &base)) {
            let overheads = (all.total() - content.total()) as f64;
            fit_turns.push((content, obs - overheads));
        }
    }
    let fitted = fit(&fit_turns);
    println!("fitted on {}: {fitted:?}", replay::FIT.join(", "));
    // The shipped factors are the fit's, rounded to two decimals.
    for kind in [
        Kind::Text,
        Kind::ToolCalls,
        Kind::ToolResults,
        Kind::Reasoning,
        Kind::System,
    ] {
        let (shipped, f) = (Profile::ANTHROPIC.factors.get(kind), fitted.get(kind));
        assert!(
            (shipped - f).abs() <= 0.005,
            "{kind:?}: shipped {shipped}, fit {f:.4}"
        );
    }
    for held_out in [false, true] {
        let group: Vec<&Replay> = sessions.iter().filter(|s| s.fit != held_out).collect();
        let names: Vec<&str> = group.iter().map(|s| s.name.as_str()).collect();
        let (mut b, mut m, mut c, mut warm) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (mut tail_b, mut tail_m, mut tail_c) = (Vec::new(), Vec::new(), Vec::new());
        let mut base_warm = Vec::new();
        for s in &group {
            for (k, obs) in turns(s, &base) {
                b.push((k.total() as f64, obs));
            }
            let (base_run, _) = replay(s, &base);
            tail_b.extend(base_run.tail_plain);
            base_warm.extend(base_run.calibrated.iter().skip(5).copied());
            let (run, learned) = replay(s, &model);
            println!(
                "  {}: {} turns, learned {:?}, expected error {:.3}",
                s.name,
                run.plain.len(),
                learned.factors,
                learned.error()
            );
            m.extend(run.plain);
            // after a few turns: from the sixth turn of each session on
            warm.extend(run.calibrated.iter().skip(5).copied());
            c.extend(run.calibrated);
            tail_m.extend(run.tail_plain);
            tail_c.extend(run.tail_calibrated);
        }
        let label = if held_out { "held out" } else { "fit" };
        println!("{label} ({}): {} turns", names.join(", "), b.len());
        let base_stats = line("base (heuristic ~ o200k)", &b);
        let model_stats = line("model-aware, uncalibrated", &m);
        line("model-aware, self-calibrated", &c);
        let (agg, median, _) = line("self-calibrated, from turn 6 on", &warm);
        // self-calibration alone, from the base estimate (a model without a fitted profile)
        let alone = line("base, self-calibrated, from turn 6 on", &base_warm);
        assert!(
            (0.95..=1.05).contains(&alone.0),
            "{label}: calibration alone {alone:?}"
        );
        assert!(
            alone.1 > base_stats.1 + 0.05,
            "{label}: calibration alone {alone:?}"
        );
        println!("  the tail check() estimates ({} turns):", tail_b.len());
        line("base", &tail_b);
        line("model-aware, uncalibrated", &tail_m);
        let tail = line("model-aware, self-calibrated", &tail_c);
        assert!(tail.0 > base_stats.0.min(1.0), "{label}: tail {tail:?}");
        // The tail converges on the provider's count in aggregate; per turn, by the tail's size
        // (the provider's count of it), with the mean error in tokens.
        assert!((0.95..=1.05).contains(&tail.0), "{label}: tail {tail:?}");
        for (lo, hi) in [(1.0, 100.0), (100.0, 1000.0), (1000.0, f64::MAX)] {
            let sized: Vec<(f64, f64)> = tail_c
                .iter()
                .copied()
                .filter(|(_, o)| *o > lo && *o <= hi)
                .collect();
            if sized.is_empty() {
                continue;
            }
            let off = sized.iter().map(|(e, o)| (e - o).abs()).sum::<f64>() / sized.len() as f64;
            let (agg, median, _) = stats(&sized);
            println!(
                "    tails of {lo:>5}–{hi:<6} tokens: {:>3} turns, aggregate {agg:.3}, median {median:.3}, mean error {off:.0} tokens",
                sized.len(),
                hi = if hi == f64::MAX { "".to_string() } else { format!("{hi}") },
            );
            if lo >= 1000.0 {
                assert!(
                    (0.9..=1.1).contains(&median),
                    "{label}: large tails {median}"
                );
            }
        }
        assert!(b.len() >= 100, "{label}: too few turns");
        // the base estimate undercounts Anthropic's tokens; the model-aware one does not
        assert!(
            base_stats.0 < 0.9 && base_stats.1 < 0.85,
            "{label}: {base_stats:?}"
        );
        assert!(
            model_stats.0 > 0.95 && model_stats.1 > 0.90,
            "{label}: {model_stats:?}"
        );
        assert!((0.95..=1.05).contains(&agg), "{label}: aggregate {agg}");
        assert!((0.90..=1.10).contains(&median), "{label}: median {median}");
    }
}
