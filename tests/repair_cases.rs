#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
//! Hand-made histories for `repair`: each violation kind, where synthetic results go, which ids
//! are renamed, and what happens to misplaced summaries.

use context_compaction::core::message::{Message, Part, Role};
use context_compaction::core::repair::{repair, RepairAction, INTERRUPTED_RESULT};
use context_compaction::core::validate::{validate, ViolationKind};
use serde_json::json;

fn call(id: &str) -> Part {
    Part::ToolCall {
        id: id.into(),
        name: "bash".into(),
        input: json!({"command": "ls"}),
    }
}
fn result(id: &str) -> Part {
    Part::ToolResult {
        id: id.into(),
        name: Some("bash".into()),
        output: vec![Part::text(format!("out {id}"))],
        is_error: false,
    }
}
fn synthetic(id: &str) -> Part {
    Part::ToolResult {
        id: id.into(),
        name: Some("bash".into()),
        output: vec![Part::text(INTERRUPTED_RESULT)],
        is_error: true,
    }
}
fn msg(role: Role, parts: Vec<Part>) -> Message {
    Message::new(role, parts)
}

#[test]
fn valid_history_is_returned_unchanged() {
    let h = vec![
        Message::text(Role::System, "sys"),
        Message::text(Role::User, "go"),
        msg(Role::Assistant, vec![call("a"), call("b")]),
        msg(Role::Tool, vec![result("b")]),
        msg(Role::Tool, vec![result("a")]),
        msg(Role::Assistant, vec![call("c")]), // pending tail call
    ];
    let r = repair(h.clone());
    assert_eq!(r.messages, h);
    assert!(r.actions.is_empty());
}

#[test]
fn orphan_results_are_removed_and_emptied_messages_dropped() {
    let h = vec![
        Message::text(Role::User, "go"),
        msg(Role::Tool, vec![result("z")]),
        msg(Role::Assistant, vec![call("a")]),
        msg(Role::Tool, vec![result("a"), result("y")]),
        Message::text(Role::Assistant, "done"),
    ];
    let r = repair(h.clone());
    assert_eq!(
        r.messages,
        vec![
            h[0].clone(),
            h[2].clone(),
            msg(Role::Tool, vec![result("a")]),
            h[4].clone()
        ]
    );
    assert!(r
        .actions
        .contains(&RepairAction::RemovedMessage { message: 1 }));
    assert!(r.actions.contains(&RepairAction::RemovedResult {
        message: 3,
        part: 1,
        id: "y".into(),
        reason: ViolationKind::OrphanResult
    }));
    assert!(validate(&r.messages).is_empty());
}

#[test]
fn unanswered_calls_get_one_tool_message_after_the_existing_tool_messages() {
    let mut assistant = msg(Role::Assistant, vec![call("a"), call("b"), call("c")]);
    assistant.timestamp = Some(42);
    let h = vec![
        Message::text(Role::User, "go"),
        assistant,
        msg(Role::Tool, vec![result("b")]),
        Message::text(Role::User, "stop"),
    ];
    let r = repair(h.clone());
    let mut added = msg(Role::Tool, vec![synthetic("a"), synthetic("c")]);
    added.timestamp = Some(42);
    assert_eq!(
        r.messages,
        vec![
            h[0].clone(),
            h[1].clone(),
            h[2].clone(),
            added,
            h[3].clone()
        ]
    );
    assert_eq!(
        r.actions,
        vec![RepairAction::AddedResults {
            after_message: 1,
            into_message: None,
            ids: vec!["a".into(), "c".into()]
        }]
    );
    assert!(validate(&r.messages).is_empty());
}

#[test]
fn anthropic_carrier_receives_synthetic_results_before_its_text() {
    let h = vec![
        Message::text(Role::User, "go"),
        msg(Role::Assistant, vec![call("a"), call("b")]),
        msg(Role::User, vec![result("a"), Part::text("also this")]),
    ];
    // not the pending tail: the user message holds text
    let r = repair(h.clone());
    assert_eq!(
        r.messages[2].parts,
        vec![result("a"), synthetic("b"), Part::text("also this")]
    );
    assert_eq!(r.messages.len(), 3);
    assert_eq!(
        r.actions,
        vec![RepairAction::AddedResults {
            after_message: 1,
            into_message: Some(2),
            ids: vec!["b".into()]
        }]
    );
    assert!(validate(&r.messages).is_empty());
}

#[test]
fn pending_tail_calls_are_left_alone() {
    let h = vec![
        Message::text(Role::User, "go"),
        msg(Role::Assistant, vec![call("a"), call("b")]),
        msg(Role::User, vec![result("b")]),
    ];
    let r = repair(h.clone());
    assert_eq!(r.messages, h);
}

#[test]
fn duplicate_call_ids_are_renamed_with_their_results() {
    let h = vec![
        Message::text(Role::User, "go"),
        msg(Role::Assistant, vec![call("a")]),
        msg(Role::Tool, vec![result("a")]),
        msg(Role::Assistant, vec![call("a")]),
        msg(Role::Tool, vec![result("a")]),
        Message::text(Role::Assistant, "ok"),
    ];
    let r = repair(h);
    assert_eq!(r.messages[3].tool_call_ids(), vec!["a_dup2"]);
    assert_eq!(r.messages[4].tool_result_ids(), vec!["a_dup2"]);
    assert_eq!(r.messages[1].tool_call_ids(), vec!["a"]);
    assert!(r.actions.contains(&RepairAction::RenamedCall {
        message: 3,
        part: 0,
        from: "a".into(),
        to: "a_dup2".into()
    }));
    assert!(validate(&r.messages).is_empty());
}

#[test]
fn fresh_ids_avoid_ids_in_use() {
    let h = vec![
        msg(Role::Assistant, vec![call("a"), call("a_dup2"), call("a")]),
        msg(Role::Tool, vec![result("a"), result("a_dup2"), result("a")]),
        Message::text(Role::User, "next"),
    ];
    let r = repair(h);
    assert_eq!(r.messages[0].tool_call_ids(), vec!["a", "a_dup2", "a_dup3"]);
    assert_eq!(
        r.messages[1].tool_result_ids(),
        vec!["a", "a_dup2", "a_dup3"]
    );
    assert!(validate(&r.messages).is_empty());
}

#[test]
fn second_result_and_result_before_call_are_removed() {
    let h = vec![
        msg(Role::Tool, vec![result("late")]),
        msg(Role::Assistant, vec![call("a"), call("late")]),
        msg(Role::Tool, vec![result("a"), result("a")]),
        Message::text(Role::User, "next"),
    ];
    let r = repair(h);
    let reasons: Vec<_> = r
        .actions
        .iter()
        .filter_map(|a| match a {
            RepairAction::RemovedResult { reason, .. } => Some(*reason),
            _ => None,
        })
        .collect();
    assert_eq!(
        reasons,
        vec![
            ViolationKind::ResultBeforeCall,
            ViolationKind::DuplicateResultId
        ]
    );
    // "late" lost its early result, so it gets a synthetic one after the tool message
    assert_eq!(r.messages[2].parts, vec![synthetic("late")]);
    assert_eq!(r.messages[1].parts, vec![result("a")]);
    assert!(validate(&r.messages).is_empty());
}

#[test]
fn misplaced_summaries_lose_the_marker_and_stay() {
    let mut first = Message::text(Role::User, "summary one");
    first.summary = true;
    let mut later = Message::text(Role::User, "summary two");
    later.summary = true;
    let h = vec![
        Message::text(Role::System, "sys"),
        first.clone(),
        Message::text(Role::User, "go"),
        later.clone(),
    ];
    let r = repair(h);
    assert!(r.messages[1].summary);
    assert!(!r.messages[3].summary);
    assert_eq!(r.messages[3].parts, later.parts);
    assert_eq!(r.actions, vec![RepairAction::ClearedSummary { message: 3 }]);
    assert!(validate(&r.messages).is_empty());
}

#[test]
fn summary_after_a_dropped_empty_message_becomes_well_placed() {
    let mut s = Message::text(Role::User, "summary");
    s.summary = true;
    let h = vec![msg(Role::User, vec![]), s, Message::text(Role::User, "go")];
    assert_eq!(validate(&h).len(), 2);
    let r = repair(h);
    assert!(r.messages[0].summary);
    assert_eq!(r.actions, vec![RepairAction::RemovedMessage { message: 0 }]);
    assert!(validate(&r.messages).is_empty());
}
