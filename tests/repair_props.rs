#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
//! Properties of `repair` over arbitrary histories: random parallel calls, results in any order
//! (in tool messages or Anthropic-style user messages), orphans, results before their calls,
//! repeated ids, empty messages and summaries anywhere.

use context_compaction::core::message::{Message, Part, Role};
use context_compaction::core::repair::{repair, INTERRUPTED_RESULT};
use context_compaction::core::validate::{validate, validate_with, ValidateOptions, ViolationKind};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use serde_json::json;

#[derive(Clone, Debug)]
enum Step {
    User(String),
    /// Calls: (take a fresh id?, selector into the id pool).
    Assistant(Vec<(bool, usize)>, bool),
    /// Results: (answer an earlier call?, selector), in a tool message or a user message.
    Results(Vec<(bool, usize)>, bool, bool),
    Empty(bool),
    Summary,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        2 => "[a-z ]{0,12}".prop_map(Step::User),
        4 => (prop::collection::vec((any::<bool>(), 0usize..8), 0..4), any::<bool>())
            .prop_map(|(c, t)| Step::Assistant(c, t)),
        4 => (
            prop::collection::vec((prop::bool::weighted(0.8), 0usize..64), 1..4),
            any::<bool>(),
            any::<bool>()
        )
            .prop_map(|(r, user, text)| Step::Results(r, user, text)),
        1 => any::<bool>().prop_map(Step::Empty),
        1 => Just(Step::Summary),
    ]
}

/// Builds messages from steps; ids come from a pool of 8 (so repeats, orphans and results
/// before calls happen) or are fresh; results mostly answer a call made earlier.
fn build(leading_system: bool, steps: &[Step]) -> Vec<Message> {
    let mut out = Vec::new();
    if leading_system {
        out.push(Message::text(Role::System, "system"));
    }
    let mut calls: Vec<String> = Vec::new();
    let mut fresh = 0usize;
    for s in steps {
        match s {
            Step::User(t) => out.push(Message::text(Role::User, t.clone())),
            Step::Assistant(cs, text) => {
                let mut parts = Vec::new();
                if *text {
                    parts.push(Part::text("thinking aloud"));
                }
                for (is_fresh, sel) in cs {
                    let id = if *is_fresh {
                        fresh += 1;
                        format!("f{fresh}")
                    } else {
                        format!("p{}", sel % 8)
                    };
                    calls.push(id.clone());
                    parts.push(Part::ToolCall {
                        id,
                        name: "read".into(),
                        input: json!({"path": "x"}),
                    });
                }
                out.push(Message::new(Role::Assistant, parts));
            }
            Step::Results(rs, user, text) => {
                let mut parts: Vec<Part> = rs
                    .iter()
                    .map(|(earlier, sel)| {
                        let id = if *earlier && !calls.is_empty() {
                            calls[sel % calls.len()].clone()
                        } else {
                            format!("p{}", sel % 8)
                        };
                        Part::ToolResult {
                            output: vec![Part::text(format!("output of {id}"))],
                            id,
                            name: None,
                            is_error: false,
                        }
                    })
                    .collect();
                if *user && *text {
                    parts.push(Part::text("user remark"));
                }
                out.push(Message::new(
                    if *user { Role::User } else { Role::Tool },
                    parts,
                ));
            }
            Step::Empty(assistant) => out.push(Message::new(
                if *assistant {
                    Role::Assistant
                } else {
                    Role::User
                },
                Vec::new(),
            )),
            Step::Summary => {
                let mut m = Message::text(Role::User, "summary so far");
                m.summary = true;
                out.push(m);
            }
        }
    }
    out
}

fn history() -> impl Strategy<Value = Vec<Message>> {
    (any::<bool>(), prop::collection::vec(step(), 0..14)).prop_map(|(s, steps)| build(s, &steps))
}

fn is_synthetic(p: &Part) -> bool {
    matches!(p, Part::ToolResult { is_error: true, output, .. }
        if matches!(output.as_slice(), [Part::Text { text }] if text == INTERRUPTED_RESULT))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(600)))]

    #[test]
    fn repaired_history_validates_clean(h in history()) {
        let r = repair(h.clone());
        prop_assert_eq!(validate(&r.messages), vec![]);
        // and strict validation finds only pending tail calls
        let strict = ValidateOptions { allow_pending_tail_calls: false, ..ValidateOptions::default() };
        let last_assistant = r.messages.iter().rposition(|m| m.role == Role::Assistant);
        for v in validate_with(&r.messages, &strict) {
            prop_assert_eq!(Some(v.message), last_assistant);
        }
        if validate(&h).is_empty() {
            prop_assert_eq!(&r.messages, &h);
            prop_assert!(r.actions.is_empty());
        }
    }

    #[test]
    fn repair_is_idempotent(h in history()) {
        let once = repair(h);
        let twice = repair(once.messages.clone());
        prop_assert_eq!(&twice.messages, &once.messages);
        prop_assert!(twice.actions.is_empty(), "{:?}", twice.actions);
    }

    #[test]
    fn messages_without_violations_are_kept_in_order(h in history()) {
        let flagged: std::collections::HashSet<usize> =
            validate(&h).iter().map(|v| v.message).collect();
        let clean: Vec<&Message> = h
            .iter()
            .enumerate()
            .filter(|(i, _)| !flagged.contains(i))
            .map(|(_, m)| m)
            .collect();
        // The output without synthetic results (the only parts repair adds).
        let out: Vec<Message> = repair(h.clone())
            .messages
            .into_iter()
            .filter_map(|mut m| {
                let before = m.parts.len();
                m.parts.retain(|p| !is_synthetic(p));
                (!(m.parts.is_empty() && before > 0)).then_some(m)
            })
            .collect();
        let mut rest = out.iter();
        for m in clean {
            prop_assert!(rest.any(|o| o == m), "message {:?} lost or reordered", m);
        }
    }
}

/// The generator is not vacuous: every violation kind shows up, and so do clean histories.
#[test]
fn generator_produces_every_violation_kind() {
    let mut runner = TestRunner::deterministic();
    let mut seen = std::collections::HashSet::new();
    let mut clean = 0;
    for _ in 0..2000 {
        let h = history().new_tree(&mut runner).unwrap().current();
        let v = validate(&h);
        if v.is_empty() {
            clean += 1;
        }
        seen.extend(v.into_iter().map(|v| v.kind));
    }
    for kind in [
        ViolationKind::OrphanResult,
        ViolationKind::ResultBeforeCall,
        ViolationKind::UnansweredCall,
        ViolationKind::DuplicateCallId,
        ViolationKind::DuplicateResultId,
        ViolationKind::SummaryMisplaced,
        ViolationKind::EmptyMessage,
    ] {
        assert!(seen.contains(&kind), "{kind:?} never generated");
    }
    assert!(clean > 20, "only {clean} clean histories");
}
