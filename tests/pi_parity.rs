//! The `pi` preset against pi's own code (badlogic/pi-mono, `packages/coding-agent/src/core/
//! compaction/compaction.ts`) on the bundled pi sessions: where the kept tail starts and how a split
//! turn is written.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use context_compaction::core::estimate::{Counter, Estimator};
use context_compaction::core::message::{Message, Part};
use context_compaction::core::plan::{plan, Disposition, Plan, PlanInput, PlanOptions};
use context_compaction::core::preset::{Preset, PI_TURN_CONTEXT};
use context_compaction::core::summary::{Purpose, SummaryJob};
use context_compaction::formats::pi_session::import_pi_session;

/// pi's `estimateTokens`: ⌈characters / 4⌉ of a message's text, thinking and tool data.
fn pi_estimate(m: &Message) -> usize {
    m.text_len().div_ceil(4)
}

fn first_kept(p: &Plan) -> usize {
    p.dispositions
        .iter()
        .position(|d| *d == Disposition::Keep)
        .unwrap()
}

fn plan_with(messages: &[Message], tokens: &[usize], options: &PlanOptions) -> Plan {
    let est = Estimator::new(Counter::Heuristic);
    let cost = |p: &Part| est.part_tokens(p);
    plan(
        &PlanInput {
            messages,
            tokens,
            part_cost: &cost,
        },
        options,
    )
    .unwrap()
}

#[test]
fn the_pi_preset_splits_the_large_session_where_pi_does() {
    let imported = import_pi_session(&common::fixtures::text("pi/large-session.jsonl")).unwrap();
    let messages = imported.context();
    let settings = Preset::Pi.settings(200_000, 32_000);
    // With pi's per-message estimate, pi's findCutPoint keeps 20,000 tokens from message 733,
    // inside the turn that starts at 730, whose prefix (730..733) is summarized separately.
    let tokens: Vec<usize> = messages.iter().map(pi_estimate).collect();
    let p = plan_with(&messages, &tokens, &settings.plan);
    assert_eq!(first_kept(&p), 733);
    assert!(p.split_turn);
    assert_eq!(p.turn_prefix, Some(730..733));
    // Without the preset's `keep_small_prefix: false` the small prefix would stay verbatim.
    let ours = PlanOptions {
        keep_small_prefix: true,
        ..settings.plan.clone()
    };
    assert_eq!(first_kept(&plan_with(&messages, &tokens, &ours)), 730);
    // The package counts with its content-aware estimate, which weighs the recent code and tool
    // output more than characters / 4: the same 20,000 tokens start later (docs/presets.md).
    let est = Estimator::new(Counter::Heuristic);
    let tokens = est.estimate_all(&messages).per_message;
    let p = plan_with(&messages, &tokens, &settings.plan);
    assert_eq!(first_kept(&p), 777);
    assert_eq!(p.turn_prefix, Some(776..777));
}

#[test]
fn a_split_turn_is_joined_as_pi_joins_it() {
    let imported = import_pi_session(&common::fixtures::text("pi/large-session.jsonl")).unwrap();
    let messages = imported.context();
    let settings = Preset::Pi.settings(200_000, 32_000);
    let tokens: Vec<usize> = messages.iter().map(pi_estimate).collect();
    let p = plan_with(&messages, &tokens, &settings.plan);
    let chars4 = |s: &str| s.chars().count().div_ceil(4);
    let mut job = SummaryJob::new(
        &messages,
        &p,
        &settings,
        settings.templates.clone(),
        None,
        None,
        1,
        &chars4,
    )
    .unwrap();
    loop {
        let pieces = job.next();
        if pieces.is_empty() {
            break;
        }
        for piece in pieces {
            let answer = match piece.purpose {
                Purpose::TurnPrefix => "PREFIX",
                _ => "HISTORY",
            };
            job.submit(piece.id, answer).unwrap();
        }
    }
    let summary = job.finish().unwrap().summary;
    // pi: `${historyResult}\n\n---\n\n**Turn Context (split turn):**\n\n${turnPrefixResult}`.
    assert_eq!(
        PI_TURN_CONTEXT,
        "\n\n---\n\n**Turn Context (split turn):**\n\n"
    );
    assert!(
        summary.starts_with("HISTORY\n\n---\n\n**Turn Context (split turn):**\n\nPREFIX"),
        "{summary}"
    );
}
