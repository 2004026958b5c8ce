#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
//! Every session in `tests/fixtures` through `validate`, `repair` and each pruner, with a
//! chars/4 cost. A missing fixture fails the test.
//!
//! What validate finds there (verified, asserted below): the Claude Code files pair every call
//! and result; the long one has one summary in the middle of its history (its compaction), and
//! its context after the compaction is clean. The pi files have no orphan or duplicate results
//! but calls of aborted turns without results (6 and 18) and empty assistant messages of aborted
//! responses (13 and 14).

#[path = "common/fixtures.rs"]
mod fixtures;

use std::collections::{BTreeMap, HashSet};

use context_compaction::core::message::{Message, Part};
use context_compaction::core::prune::{
    apply, clear_tool_uses, order, prune_opencode, prune_superseded, prune_ttl, total_freed,
    ClearToolUsesOptions, OpenCodeOptions, PruneAction, Style, TtlOptions,
};
use context_compaction::core::repair::repair;
use context_compaction::core::validate::{validate, ViolationKind};
use context_compaction::formats::claude_code::import_claude_code;
use context_compaction::formats::pi_session::import_pi_session;
use context_compaction::formats::ImportedSession;

const FILES: &[&str] = &[
    "claude-code/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl",
    "claude-code/short.jsonl",
    "claude-code/subagent.jsonl",
    "claude-code/tool_heavy.jsonl",
    "pi/before-compaction.jsonl",
    "pi/large-session.jsonl",
];

fn cost(p: &Part) -> usize {
    p.text_len().div_ceil(4)
}

fn sessions() -> Option<Vec<(&'static str, ImportedSession)>> {
    let mut out = Vec::new();
    for rel in FILES {
        let text = fixtures::text(rel);
        let s = if rel.starts_with("claude-code/") {
            import_claude_code(&text).unwrap()
        } else {
            import_pi_session(&text).unwrap()
        };
        out.push((*rel, s));
    }
    Some(out)
}

fn kinds(h: &[Message]) -> BTreeMap<ViolationKind, usize> {
    let mut out = BTreeMap::new();
    for v in validate(h) {
        *out.entry(v.kind).or_insert(0) += 1;
    }
    out
}

fn total(h: &[Message]) -> usize {
    h.iter().flat_map(|m| &m.parts).map(cost).sum()
}

/// The shared guarantees: freed tokens add up, validity is unchanged, pinned and summary
/// messages and non-target parts are untouched.
fn check(rel: &str, what: &str, h: &[Message], actions: &[PruneAction]) -> Vec<Message> {
    let targets: HashSet<_> = actions.iter().map(|a| (a.message, a.part)).collect();
    assert_eq!(targets.len(), actions.len(), "{rel} {what}: a part twice");
    let out = apply(h, actions);
    assert_eq!(
        total_freed(actions),
        total(h) - total(&out),
        "{rel} {what}: freed tokens"
    );
    assert_eq!(
        validate(&out),
        validate(h),
        "{rel} {what}: validity changed"
    );
    for (mi, (a, b)) in h.iter().zip(&out).enumerate() {
        if a.pinned || a.summary {
            assert_eq!(a, b, "{rel} {what}: protected message {mi}");
        }
        for (pi, (p, q)) in a.parts.iter().zip(&b.parts).enumerate() {
            if !targets.contains(&(mi, pi)) {
                assert_eq!(p, q, "{rel} {what}: untargeted part {mi}.{pi}");
            }
        }
        assert_eq!(a.parts.len(), b.parts.len());
    }
    out
}

/// Index of the start of the `n`-th last user turn (0 when there are fewer).
fn nth_last_turn(h: &[Message], n: usize) -> usize {
    let starts: Vec<usize> = h
        .iter()
        .enumerate()
        .filter(|(_, m)| m.is_user_turn_start())
        .map(|(i, _)| i)
        .collect();
    if n == 0 {
        return h.len();
    }
    starts.len().checked_sub(n).map_or(0, |i| starts[i])
}

fn tool_name(h: &[Message], mi: usize, pi: usize) -> Option<String> {
    let Part::ToolResult { id, name, .. } = &h[mi].parts[pi] else {
        return None;
    };
    name.clone().or_else(|| {
        h.iter().flat_map(|m| &m.parts).find_map(|p| match p {
            Part::ToolCall { id: i, name, .. } if i == id => Some(name.clone()),
            _ => None,
        })
    })
}

#[test]
fn validate_finds_the_known_facts() {
    let Some(sessions) = sessions() else {
        return;
    };
    for (rel, s) in &sessions {
        let found = kinds(&s.messages);
        println!("{rel}: {} messages, violations {found:?}", s.messages.len());
        for kind in [
            ViolationKind::OrphanResult,
            ViolationKind::ResultBeforeCall,
            ViolationKind::DuplicateCallId,
            ViolationKind::DuplicateResultId,
        ] {
            assert!(!found.contains_key(&kind), "{rel}: {kind:?}");
        }
        let expected: &[(ViolationKind, usize)] = match *rel {
            "claude-code/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl" => {
                &[(ViolationKind::SummaryMisplaced, 1)]
            }
            "pi/before-compaction.jsonl" => &[
                (ViolationKind::UnansweredCall, 6),
                (ViolationKind::EmptyMessage, 13),
            ],
            "pi/large-session.jsonl" => &[
                (ViolationKind::UnansweredCall, 18),
                (ViolationKind::EmptyMessage, 14),
            ],
            _ => &[],
        };
        assert_eq!(found, expected.iter().copied().collect(), "{rel}");
        if rel.starts_with("claude-code/") {
            // the misplaced summary is the compaction's summary message, and what Claude Code
            // sends after the compaction is clean
            for v in validate(&s.messages) {
                assert_eq!(Some(v.message), s.compactions[0].summary_message);
            }
            assert!(validate(&s.context()).is_empty(), "{rel}");
        }
    }
}

#[test]
fn repair_cleans_every_fixture() {
    let Some(sessions) = sessions() else {
        return;
    };
    for (rel, s) in &sessions {
        for (what, h) in [("history", s.messages.clone()), ("context", s.context())] {
            let r = repair(h.clone());
            assert!(validate(&r.messages).is_empty(), "{rel} {what}");
            let again = repair(r.messages.clone());
            assert!(again.actions.is_empty(), "{rel} {what}: not idempotent");
            println!("{rel} {what}: {} repair actions", r.actions.len());
            if validate(&h).is_empty() {
                assert_eq!(r.messages, h, "{rel} {what}");
            }
        }
    }
}

#[test]
fn pruners_keep_their_guarantees_on_every_fixture() {
    let Some(sessions) = sessions() else {
        return;
    };
    let defaults = OpenCodeOptions::default();
    // small enough that every file with tool output gets pruned
    let small = OpenCodeOptions {
        protect_tokens: 2_000,
        minimum: 500,
        ..OpenCodeOptions::default()
    };
    for (rel, s) in &sessions {
        for (what, h) in [("history", s.messages.clone()), ("context", s.context())] {
            let rel = format!("{rel} {what}");
            for (label, o) in [("opencode", &defaults), ("opencode-small", &small)] {
                let a = prune_opencode(&h, o, &cost);
                check(&rel, label, &h, &a);
                assert!(a.is_empty() || total_freed(&a) > o.minimum, "{rel} {label}");
                let boundary = nth_last_turn(&h, o.protect_turns);
                assert!(a.iter().all(|x| x.message < boundary), "{rel} {label}");
                for x in &a {
                    let name = tool_name(&h, x.message, x.part);
                    assert_ne!(name.as_deref(), Some("skill"), "{rel} {label}");
                }
                println!(
                    "{rel} {label}: {} actions, {} freed",
                    a.len(),
                    total_freed(&a)
                );
            }

            let c = clear_tool_uses(&h, &ClearToolUsesOptions::default(), &cost);
            check(&rel, "anthropic", &h, &c.actions);
            assert_eq!(c.cleared_input_tokens, total_freed(&c.actions));
            let results: Vec<(usize, usize)> = h
                .iter()
                .enumerate()
                .flat_map(|(mi, m)| {
                    m.parts
                        .iter()
                        .enumerate()
                        .filter(|(_, p)| p.is_tool_result())
                        .map(move |(pi, _)| (mi, pi))
                })
                .collect();
            let kept: HashSet<_> = results.iter().rev().take(3).collect();
            assert!(c
                .actions
                .iter()
                .all(|x| !kept.contains(&(x.message, x.part))));

            let sup = prune_superseded(&h, &cost);
            check(&rel, "supersede", &h, &sup);

            let now = h.iter().filter_map(|m| m.timestamp).max().unwrap_or(0);
            let ttl = prune_ttl(&h, &TtlOptions::new(now), &cost);
            check(&rel, "ttl", &h, &ttl);
            for x in &ttl {
                assert!(h[x.message].timestamp.is_some_and(|t| now - t > 300_000));
            }

            let combined = order(&h, true, &Style::OpenCode(small.clone()), &cost);
            check(&rel, "order", &h, &combined);
            assert_eq!(&combined[..sup.len()], &sup[..], "{rel}");
            println!(
                "{rel}: anthropic {} / {} tokens, supersede {} / {}, ttl {} / {}, combined {} / {}",
                c.cleared_tool_uses,
                c.cleared_input_tokens,
                sup.len(),
                total_freed(&sup),
                ttl.len(),
                total_freed(&ttl),
                combined.len(),
                total_freed(&combined)
            );
        }
    }
}

#[test]
fn opencode_defaults_prune_the_large_pi_sessions() {
    let Some(sessions) = sessions() else {
        return;
    };
    for (rel, s) in &sessions {
        let a = prune_opencode(&s.messages, &OpenCodeOptions::default(), &cost);
        if rel.starts_with("pi/") {
            // both pi sessions hold far more than 60,000 tokens of tool output before their
            // last two turns
            assert!(total_freed(&a) > 20_000, "{rel}");
        }
        if rel.starts_with("claude-code/") {
            // the Claude Code files are small, or (the long one) compacted: OpenCode's walk
            // stops at the summary and too little follows it
            assert!(a.is_empty(), "{rel}");
        }
        // supersession finds stale reads in the long sessions
        let sup = prune_superseded(&s.messages, &cost);
        if rel.starts_with("pi/") || rel.contains("ae4a77f8") {
            assert!(!sup.is_empty(), "{rel}");
        }
    }
}
