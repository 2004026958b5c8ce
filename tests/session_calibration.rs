#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
//! Self-calibration through a `Session`: a real pi session (held out from the fit, see
//! `common/replay.rs`) is appended message by message and each recorded usage is given to
//! `record_usage`, as an application would. The count the session reports just before each
//! usage arrives is set against that usage: with the Anthropic profile and self-calibration it is
//! closer to the provider's count than the base estimate. What was learned is written with the
//! usage entries, survives a round trip through JSONL, comes back with a branch, and a log written
//! before self-calibration (no `calibration` field) still loads.

#[path = "common/fixtures.rs"]
mod fixtures;

use context_compaction::core::estimate::{
    Counter, Estimator, Learned, Profile, Usage, MAX_FACTOR, MIN_FACTOR,
};
use context_compaction::core::message::{Message, Role};
use context_compaction::core::options::parse;
use context_compaction::core::session::{Config, EntryKind, Session};
use context_compaction::formats::pi;
use context_compaction::formats::pi_session::import_pi_session;
use serde_json::{json, Value};

fn config(profile: Profile) -> Config {
    let options = parse(&json!({"contextWindow": 10_000_000})).unwrap();
    Config {
        settings: options.settings,
        estimator: Estimator::new(Counter::Heuristic).with_factors(profile.factors),
        background_tokens: None,
        calibration: Learned::new(profile.error),
        self_calibration: true,
    }
}

fn import(v: &Value, path: &str) -> context_compaction::core::error::Result<Message> {
    pi::import_message(v, path)
}

/// The messages of the held-out pi session with the usage of each assistant message.
fn held_out() -> Vec<(Message, Option<Usage>)> {
    let text = fixtures::text("pi/large-session.jsonl");
    let session = import_pi_session(&text).unwrap();
    session
        .messages
        .into_iter()
        .map(|m| {
            let usage = m
                .original
                .as_ref()
                .and_then(|o| o.get("usage"))
                .and_then(|u| Usage::from_value(&u))
                .filter(|u| m.role == Role::Assistant && u.total() > 0);
            (m, usage)
        })
        .collect()
}

/// Replays the session; returns it and, for each usage after the fifth, |ln(estimated growth /
/// reported growth)| of the count since the previous usage (the part of the count that is
/// estimated, set against the provider's count of it).
fn replay(profile: Profile) -> (Session, Vec<f64>) {
    let mut s = Session::new(config(profile), "s".into(), "pi".into());
    let mut errors = Vec::new();
    let mut seen = 0;
    let mut previous = 0u64;
    for (message, usage) in held_out() {
        s.append(vec![message]);
        if let Some(u) = usage {
            seen += 1;
            let estimated = s.tokens() as f64 - previous as f64;
            let reported = u.total() as f64 - previous as f64;
            if seen > 5 && estimated > 0.0 && reported > 0.0 {
                errors.push((estimated / reported).ln().abs());
            }
            previous = u.total();
            s.record_usage(u);
        }
    }
    (s, errors)
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

#[test]
fn learns_from_recorded_usage_and_persists_it() {
    let fresh = Session::new(config(Profile::ANTHROPIC), "f".into(), "pi".into());
    assert_eq!(*fresh.calibration(), Learned::new(Profile::ANTHROPIC.error));
    let (base, base_errors) = replay(Profile::BASE);
    let (s, errors) = replay(Profile::ANTHROPIC);
    println!(
        "growth of the count vs the provider's, mean |ln|: base {:.4}, model-aware and self-calibrated {:.4} ({} usages)",
        mean(&base_errors),
        mean(&errors),
        errors.len()
    );
    assert!(errors.len() >= 100);
    assert!(mean(&errors) < mean(&base_errors));
    let learned = *s.calibration();
    assert!(learned.samples >= 100, "{learned:?}");
    assert!(base.calibration().samples >= 100);
    for f in [
        learned.factors.text,
        learned.factors.tool_calls,
        learned.factors.tool_results,
    ] {
        assert!((MIN_FACTOR..=MAX_FACTOR).contains(&f));
    }
    assert_ne!(
        learned.factors,
        Learned::new(0.0).factors,
        "nothing learned"
    );

    // persisted with each usage entry, and read back
    let text = s.to_jsonl();
    assert!(text.contains("\"calibration\":{"));
    let loaded = Session::from_jsonl(&text, config(Profile::ANTHROPIC), &import).unwrap();
    assert_eq!(loaded.to_jsonl(), text);
    assert_eq!(*loaded.calibration(), learned);
    assert_eq!(loaded.tokens(), s.tokens());

    // a branch at an earlier usage entry takes the calibration of that time
    let (at, earlier) = s
        .log()
        .iter()
        .enumerate()
        .filter_map(|(i, e)| match &e.kind {
            EntryKind::Usage(_, Some(l)) => Some((i, *l)),
            _ => None,
        })
        .nth(20)
        .unwrap();
    let branch = s.branch(&s.log()[at].id, "b".into()).unwrap();
    assert_eq!(*branch.calibration(), earlier);
    assert_ne!(earlier, learned);

    // a log written before self-calibration: no calibration field, same counts otherwise
    let old: String = text
        .lines()
        .map(|line| match line.find(",\"calibration\":") {
            Some(at) => format!("{}}}\n", &line[..at]),
            None => format!("{line}\n"),
        })
        .collect();
    assert!(!old
        .lines()
        .any(|l| l.starts_with("{\"type\":\"usage\"") && l.contains("\"calibration\":")));
    assert!(text
        .lines()
        .any(|l| l.starts_with("{\"type\":\"usage\"") && l.contains("\"calibration\":")));
    let loaded = Session::from_jsonl(&old, config(Profile::ANTHROPIC), &import).unwrap();
    assert_eq!(
        *loaded.calibration(),
        Learned::new(Profile::ANTHROPIC.error)
    );
    assert_eq!(loaded.to_jsonl(), old);
}

#[test]
fn auto_margin_is_larger_before_calibration() {
    let mut options = parse(&json!({"contextWindow": 200_000, "safetyMargin": "auto"})).unwrap();
    assert!(options.settings.auto_margin);
    options.settings.budget.reserve_tokens = 10_000;
    let config = Config {
        settings: options.settings,
        estimator: Estimator::new(Counter::Heuristic).with_factors(Profile::ANTHROPIC.factors),
        background_tokens: None,
        calibration: Learned::new(Profile::ANTHROPIC.error),
        self_calibration: true,
    };
    let mut s = Session::new(config, "s".into(), "pi".into());
    let turns = held_out();
    let mut margins = Vec::new();
    for (message, usage) in turns.into_iter().take(400) {
        s.append(vec![message]);
        if let Some(u) = usage {
            margins.push((s.calibration().samples, s.tokens_error(), s.budget()));
            s.record_usage(u);
        }
    }
    let (first, later) = (margins[0], margins[margins.len() - 1]);
    // before any usage the whole context is estimated, with the profile's error
    assert_eq!(first.0, 0);
    assert!(first.1 > 0 && first.2.safety_margin == first.1);
    assert!(later.0 >= 20);
    // relative to what is estimated, the margin shrank as calibration learned
    assert!(
        s.calibration().error() < Profile::ANTHROPIC.error,
        "{:?}",
        s.calibration()
    );
    for (_, error, budget) in &margins {
        assert_eq!(budget.safety_margin, *error.min(&95_000));
        assert!(budget.validate().is_ok());
    }
}
