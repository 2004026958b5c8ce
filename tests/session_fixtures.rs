//! Every real session (pi, Claude Code, and each Claude Code session as a sub-agent transcript)
//! imported into a Session, with the agent's own compactions,
//! then compacted again and again with a deterministic summarizer down to a small window, exported
//! and reloaded: the live context never gains a tool-pair violation, nothing is lost from the log,
//! every compaction shrinks the context under the trigger, and the round trip is byte-identical.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use std::path::PathBuf;

#[path = "common/session_config.rs"]
mod session_config;

use context_compaction::core::error::Result;
use context_compaction::core::estimate::{Counter, Estimator};
use context_compaction::core::message::{Message, Part};
use context_compaction::core::prepare::{prepare, History};
use context_compaction::core::session::{Config, EntryKind, Outcome, Session};
use context_compaction::core::validate::{validate, ViolationKind};
use context_compaction::formats::session::ImportedSession;
use context_compaction::formats::session_log::session_from_imported;
use context_compaction::formats::{claude_code, pi_session, Format};
use serde_json::{json, Value};
use session_config::session_config;

fn fixtures() -> Vec<(PathBuf, ImportedSession)> {
    let mut out = Vec::new();
    for (dir, pi) in [("pi", true), ("claude-code", false)] {
        for path in common::fixtures::files(dir) {
            let text = std::fs::read_to_string(&path).unwrap();
            let imported = if pi {
                pi_session::import_pi_session(&text)
            } else {
                claude_code::import_claude_code(&text)
            }
            .unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
            out.push((path.clone(), imported));
            if !pi {
                // The same conversation as a sub-agent transcript: every entry a sidechain entry.
                let side = common::as_subagent(&text);
                let imported = claude_code::import_claude_code(&side).unwrap();
                assert!(
                    !imported.messages.is_empty(),
                    "{}: sub-agent variant",
                    path.display()
                );
                out.push((path.with_extension("subagent.jsonl"), imported));
            }
        }
    }
    assert!(
        out.len() >= 6,
        "expected the six real sessions, found {}",
        out.len()
    );
    out
}

fn config(window: usize) -> Config {
    session_config(
        &json!({"contextWindow": window, "reserveTokens": window / 8, "keepRecentTokens": window / 5}),
    )
}

fn violations(messages: &[&Message]) -> Vec<ViolationKind> {
    let owned: Vec<Message> = messages.iter().map(|m| (*m).clone()).collect();
    let mut kinds: Vec<ViolationKind> = validate(&owned)
        .into_iter()
        .map(|v| v.kind)
        .filter(|k| {
            matches!(
                k,
                ViolationKind::OrphanResult
                    | ViolationKind::ResultBeforeCall
                    | ViolationKind::UnansweredCall
                    | ViolationKind::SummaryMisplaced
            )
        })
        .collect();
    kinds.sort_by_key(|k| k.as_str());
    kinds
}

/// One compaction with a summarizer that answers with a short, deterministic text.
fn compact_once(s: &mut Session, forced: bool) -> Option<usize> {
    let snapshot = s.snapshot();
    let estimator = s.config().estimator.clone();
    let cost = |p: &Part| estimator.part_tokens(p);
    let prepared = prepare(
        &s.config().settings,
        &History {
            messages: &snapshot.messages,
            tokens: &snapshot.tokens,
            total: snapshot.total,
            part_cost: &cost,
        },
        forced,
    )
    .ok()?;
    if !(prepared.decision.should_compact || forced) || prepared.plan.is_noop() {
        return None;
    }
    let round = snapshot.round(
        &prepared.plan,
        &context_compaction::core::summary::Recognizer::with(&s.config().settings.summary),
    );
    let covered = prepared
        .plan
        .dispositions
        .iter()
        .filter(|d| !matches!(d, context_compaction::core::plan::Disposition::Keep))
        .count();
    let outcome = Outcome {
        summary: Some(format!("Round {round}: {covered} messages summarized.")),
        tokens_after: prepared.plan.tokens_after,
        round,
        digest: Value::Null,
        state: None,
        timestamp: None,
    };
    s.commit(&snapshot, &prepared.plan, &outcome).unwrap();
    Some(round as usize)
}

fn import_for(format: Format) -> impl Fn(&Value, &str) -> Result<Message> {
    context_compaction::formats::message_importer(format)
}

#[test]
fn every_fixture_compacts_repeatedly_and_round_trips() {
    for (path, imported) in fixtures() {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        // The file replayed message by message into a fresh session with a small window, compacting
        // whenever the trigger fires, as an agent would.
        let history: Vec<Message> = imported
            .messages
            .iter()
            .filter(|m| !m.summary)
            .cloned()
            .collect();
        let estimator = Estimator::new(Counter::Heuristic);
        let total: usize = history
            .iter()
            .map(|m| estimator.estimate_message(m).total())
            .sum();
        let window = (total / 3).clamp(1_000, 24_000);
        let mut s = Session::new(
            config(window),
            "replay".into(),
            imported.format.as_str().into(),
        );
        let baseline = violations(&history.iter().collect::<Vec<_>>());
        let mut compactions = 0;
        for m in &history {
            s.append(vec![m.clone()]);
            if s.check(false).should_compact && compact_once(&mut s, false).is_some() {
                compactions += 1;
                let after = violations(&s.messages());
                for k in &after {
                    assert!(
                        baseline.contains(k),
                        "{name}: compaction {compactions} introduced {k:?}"
                    );
                }
            }
        }
        assert!(total < 2 * window || compactions >= 2, "{name}: only {compactions} compactions (total {total}, window {window}, now {} tokens, {} messages)", s.tokens(), history.len());
        // Nothing lost: every message is still an entry of the log, in order.
        let logged: Vec<&Message> = s.log().iter().filter_map(|e| e.message()).collect();
        assert_eq!(logged.len(), history.len(), "{name}");
        assert!(
            logged.iter().zip(history.iter()).all(|(a, b)| *a == b),
            "{name}"
        );
        // Rounds count up.
        let rounds: Vec<u32> = s
            .log()
            .iter()
            .filter_map(|e| match &e.kind {
                EntryKind::Compaction(c) => Some(c.round),
                _ => None,
            })
            .collect();
        assert_eq!(rounds.len(), compactions, "{name}");
        assert_eq!(
            rounds,
            (1..=u32::try_from(rounds.len()).unwrap()).collect::<Vec<_>>(),
            "{name}"
        );
        // The round trip is byte-identical and rebuilds the same context.
        let text = s.to_jsonl();
        let import = import_for(imported.format);
        let loaded = Session::from_jsonl(&text, config(window), &import).unwrap();
        assert_eq!(loaded.to_jsonl(), text, "{name}");
        assert_same_context(&loaded, &s, &name);
        assert_eq!(loaded.tokens(), s.tokens(), "{name}");

        // The imported session (with the agent's own compactions) compacts and round-trips too.
        let mut s = session_from_imported(&imported, config(window), None).unwrap();
        let before = s.log().len();
        if compact_once(&mut s, true).is_some() {
            assert!(
                s.log().len() > before,
                "{name}: the forced compaction made no entry"
            );
        } else {
            assert!(
                total < window,
                "{name}: a forced compaction of {total} tokens did nothing"
            );
        }
        assert!(
            !s.check(false).should_compact,
            "{name}: {} tokens over the trigger",
            s.tokens()
        );
        let text = s.to_jsonl();
        let loaded = Session::from_jsonl(&text, config(window), &import).unwrap();
        assert_eq!(loaded.to_jsonl(), text, "{name}");
        assert_same_context(&loaded, &s, &name);
    }
}

fn assert_same_context(a: &Session, b: &Session, name: &str) {
    let shape = |m: &&Message| (m.role, m.parts.clone(), m.summary, m.timestamp);
    let (x, y): (Vec<_>, Vec<_>) = (
        a.messages().iter().map(shape).collect(),
        b.messages().iter().map(shape).collect(),
    );
    assert_eq!(x.len(), y.len(), "{name}");
    let first_diff = x.iter().zip(y.iter()).position(|(p, q)| p != q);
    assert!(
        first_diff.is_none(),
        "{name}: reloaded message {first_diff:?} differs"
    );
}

#[test]
fn recorded_compactions_are_honoured() {
    for (path, imported) in fixtures() {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let s = session_from_imported(&imported, config(1_000_000), None).unwrap();
        let context = imported.context();
        let live: Vec<&Message> = s.messages();
        assert_eq!(live.len(), context.len(), "{name}");
        for (a, b) in live.iter().zip(context.iter()) {
            if b.summary {
                assert!(a.summary, "{name}");
            } else {
                assert_eq!(*a, b, "{name}");
            }
        }
        // Branching right before the first recorded compaction undoes it: every message up to it.
        if let Some(first) = imported.compactions.first() {
            let at = first.at_message;
            if at > 0 {
                let id = s
                    .log()
                    .iter()
                    .filter(|e| matches!(e.kind, EntryKind::Message(_)))
                    .nth(at - 1)
                    .map(|e| e.id.clone())
                    .unwrap();
                let b = s.branch(&id, "b".into()).unwrap();
                assert!(b.messages().iter().all(|m| !m.summary), "{name}");
                assert_eq!(b.messages().len(), at, "{name}");
            }
        }
    }
}
