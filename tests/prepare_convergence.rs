#![cfg(not(target_arch = "wasm32"))]
//! Every preset on every real session: when the trigger fires, the compacted context does not
//! fire it again — by tokens, turns or messages — and stays valid.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use common::{history, new_violations, output};
use context_compaction::core::error::ErrorCode;
use context_compaction::core::estimate::{Counter, Estimator};
use context_compaction::core::message::{Message, Part};
use context_compaction::core::plan::Strategy;
use context_compaction::core::prepare::{prepare, History, Prepared};
use context_compaction::core::preset::Preset;
use context_compaction::core::settings::{Estimation, Settings};
use context_compaction::core::trigger::Trigger;

fn estimator(settings: &Settings) -> Estimator {
    match settings.estimation {
        Estimation::Heuristic => Estimator::new(Counter::Heuristic),
        Estimation::CharsPerToken(n) => Estimator::new(Counter::CharsPerToken(n)),
    }
}

fn run(
    settings: &Settings,
    messages: &[Message],
    forced: bool,
) -> context_compaction::core::error::Result<(Prepared, Vec<usize>)> {
    let est = estimator(settings);
    let tokens = est.estimate_all(messages).per_message;
    let cost = |p: &Part| est.part_tokens(p);
    let total = tokens.iter().sum();
    prepare(
        settings,
        &History {
            messages,
            tokens: &tokens,
            total,
            part_cost: &cost,
        },
        forced,
    )
    .map(|p| (p, tokens))
}

#[test]
fn every_preset_converges_on_every_fixture() {
    let mut fired = 0;
    for (name, messages) in common::fixture_sessions() {
        let total = Estimator::new(Counter::Heuristic).total(&messages);
        // A window the session overflows, and a large one.
        for window in [(total / 2).max(60_000), 200_000] {
            for preset in Preset::ALL {
                let settings = preset.settings(window, 16_000);
                let context = format!("{name}, {}, window {window}", preset.as_str());
                let (prepared, tokens) = match run(&settings, &messages, true) {
                    Ok(r) => r,
                    Err(e) => {
                        assert_eq!(e.code, ErrorCode::CannotCompact, "{context}: {e}");
                        continue;
                    }
                };
                assert!(prepared.decision.should_compact, "{context}: forced");
                fired += 1;
                let plan = &prepared.plan;
                assert!(plan.tokens_after <= settings.token_limit(), "{context}");
                let (out, out_tokens) =
                    output(&messages, &tokens, plan, settings.plan.summary_tokens);
                let introduced = new_violations(&messages, &out);
                assert!(introduced.is_empty(), "{context}: {introduced:?}");
                // The compacted context does not fire the trigger again.
                let est = estimator(&settings);
                let cost = |p: &Part| est.part_tokens(p);
                let again = prepare(
                    &settings,
                    &History {
                        messages: &out,
                        tokens: &out_tokens,
                        total: out_tokens.iter().sum(),
                        part_cost: &cost,
                    },
                    false,
                )
                .unwrap();
                assert!(
                    !again.decision.should_compact || plan.is_noop(),
                    "{context}: fires again: {}",
                    again.decision.reason
                );
            }
        }
    }
    eprintln!("{fired} forced compactions checked");
}

#[test]
fn count_triggers_converge_too() {
    // Ten short turns; a turn trigger with a token strategy that would keep them all.
    let m = history("u a u a u a u a u a u a u a u a u a u a");
    let mut settings = Settings::new(200_000);
    settings.trigger = Trigger::Turns(3);
    settings.plan.strategy = Strategy::RecentTokens { keep: 20_000 };
    let (prepared, tokens) = run(&settings, &m, false).unwrap();
    assert!(prepared.decision.should_compact);
    let (out, out_tokens) = output(&m, &tokens, &prepared.plan, settings.plan.summary_tokens);
    let turns = out.iter().filter(|x| x.is_user_turn_start()).count();
    assert!(turns <= 3, "{turns} turns kept");
    let est = estimator(&settings);
    let cost = |p: &Part| est.part_tokens(p);
    let again = prepare(
        &settings,
        &History {
            messages: &out,
            tokens: &out_tokens,
            total: 0,
            part_cost: &cost,
        },
        false,
    )
    .unwrap();
    assert!(!again.decision.should_compact, "{}", again.decision.reason);

    // A message trigger: at most 4 non-system messages after compaction (summary included).
    settings.trigger = Trigger::Messages(4);
    let (prepared, tokens) = run(&settings, &m, false).unwrap();
    let (out, _) = output(&m, &tokens, &prepared.plan, settings.plan.summary_tokens);
    assert!(out.len() <= 4, "{} messages", out.len());

    // Impossible: zero messages allowed.
    settings.trigger = Trigger::Messages(0);
    let err = run(&settings, &m, false).unwrap_err();
    assert_eq!(err.code, ErrorCode::CannotCompact);
}
