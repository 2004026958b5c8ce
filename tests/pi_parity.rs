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

#[test]
fn an_imported_pi_session_counts_from_its_recorded_usage_and_learns_from_it() {
    use context_compaction::formats::session_log::session_from_imported;
    #[path = "common/session_config.rs"]
    mod session_config;
    let text = common::fixtures::text("pi/before-compaction.jsonl");
    let imported = import_pi_session(&text).unwrap();
    let config = session_config::session_config(
        &serde_json::json!({"preset": "pi", "contextWindow": 200_000}),
    );
    let s = session_from_imported(&imported, config.clone(), None).unwrap();
    // pi's estimateContextTokens: the last usage of an assistant message that was neither aborted
    // nor an error, plus an estimate of the messages after it.
    let messages = imported.context();
    let last = messages
        .iter()
        .rposition(|m| {
            let o = m.original.as_ref().unwrap().to_value();
            o["role"] == "assistant"
                && o["usage"].is_object()
                && !matches!(o["stopReason"].as_str(), Some("aborted" | "error"))
        })
        .unwrap();
    let u = &messages[last].original.as_ref().unwrap().to_value()["usage"];
    let usage: u64 = ["input", "output", "cacheRead", "cacheWrite"]
        .iter()
        .map(|k| u[k].as_u64().unwrap())
        .sum();
    assert_eq!(usage, 168_018);
    // pi counts 12,802 tokens there (180,820 in all); characters / 4 of the text comes within a
    // few tokens of it.
    let pi_trailing: usize = messages[last + 1..].iter().map(pi_estimate).sum();
    assert!(pi_trailing.abs_diff(12_802) < 20, "{pi_trailing}");
    // The session counts the same way, with its own estimate of what follows (calibrated).
    let tokens = s.tokens();
    let trailing = tokens - 168_018;
    assert!(
        trailing > pi_trailing && trailing < 40_000,
        "{tokens} tokens, {trailing} after the usage"
    );
    // Above pi's trigger (200,000 − 16,384 = 183,616), where pi's own count (180,820) is not:
    // docs/presets.md, "Where pi and the pi preset count differently".
    assert!(168_018 + pi_trailing <= 183_616);
    assert!(s.check(false).should_compact);
    // Self-calibration learned from the usages, as it would have live.
    assert!(s.calibration().samples > 10, "{:?}", s.calibration());
    let log = s.to_jsonl();
    assert!(log
        .lines()
        .any(|l| l.contains("\"type\":\"usage\"") && l.contains("\"calibration\"")));
    // Aborted and failed responses record no usage entry.
    let aborted = messages
        .iter()
        .filter(|m| {
            let o = m.original.as_ref().unwrap().to_value();
            o["role"] == "assistant"
                && matches!(o["stopReason"].as_str(), Some("aborted" | "error"))
        })
        .count();
    assert!(aborted > 0);
    let usages = log
        .lines()
        .filter(|l| l.contains("\"type\":\"usage\""))
        .count();
    let answered = imported
        .messages
        .iter()
        .filter(|m| {
            let o = m.original.as_ref().unwrap().to_value();
            o["role"] == "assistant"
                && o["usage"].is_object()
                && !matches!(o["stopReason"].as_str(), Some("aborted" | "error"))
        })
        .count();
    assert_eq!(usages, answered);
    // The log reloads to the same count.
    let loaded = context_compaction::core::session::Session::from_jsonl(
        &log,
        config,
        &context_compaction::formats::pi::import_message,
    )
    .unwrap();
    assert_eq!(loaded.tokens(), tokens);
}
