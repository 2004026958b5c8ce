#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
//! Every session file in `tests/fixtures` imports, and what it holds is read correctly.
//! A missing fixture fails the test.

#[path = "common/fixtures.rs"]
mod fixtures;

use std::collections::HashSet;

use context_compaction::core::message::{Part, Role};
use context_compaction::formats::claude_code::import_claude_code;
use context_compaction::formats::pi_session::import_pi_session;
use context_compaction::formats::{anthropic, pi, ImportedSession};
use serde_json::Value;

fn fixture(rel: &str) -> Option<String> {
    Some(fixtures::text(rel))
}

/// Every tool result answers a call made earlier; returns the ids of calls never answered.
fn unanswered_calls(s: &ImportedSession) -> HashSet<String> {
    let mut open = HashSet::new();
    let mut answered = HashSet::new();
    for m in &s.messages {
        for id in m.tool_result_ids() {
            assert!(open.contains(id), "result {id} without an earlier call");
            answered.insert(id.to_string());
        }
        for id in m.tool_call_ids() {
            assert!(open.insert(id.to_string()), "duplicate call id {id}");
        }
    }
    open.difference(&answered).cloned().collect()
}

#[test]
fn pi_before_compaction() {
    let Some(text) = fixture("pi/before-compaction.jsonl") else {
        return;
    };
    let s = import_pi_session(&text).unwrap();
    assert_eq!(s.messages.len(), 990);
    assert_eq!(s.entries.len(), 990);
    assert_eq!(
        s.session_id.as_deref(),
        Some("ffae836b-9420-4060-ac13-7745215f90ff")
    );
    assert_eq!(s.version.as_deref(), Some("1"));
    assert_eq!(s.tool_counts(), (454, 448));
    // the unanswered calls belong to aborted turns and the session's last step
    assert_eq!(unanswered_calls(&s).len(), 6);
    assert_eq!(
        s.messages.iter().filter(|m| m.role == Role::Tool).count(),
        448
    );
    // three bashExecution messages, shown to the model as user text
    let bash: Vec<_> = s
        .messages
        .iter()
        .filter(|m| m.plain_text().starts_with("Ran `"))
        .collect();
    assert_eq!(bash.len(), 3);

    assert_eq!(s.compactions.len(), 2);
    let c = &s.compactions[0];
    assert_eq!(
        (c.line, c.tokens_before, c.at_message),
        (360, Some(175_004), 354)
    );
    assert!(c
        .summary
        .starts_with("# Context Checkpoint: Coding Agent Refactoring"));
    // firstKeptEntryIndex 293 counts entries from the header: line 294, a user message
    assert_eq!(c.first_kept_message, Some(288));
    assert_eq!(s.entries[288].line, 294);
    assert_eq!(
        s.messages[288].plain_text(),
        "i reviwed what we have, it's good. continue"
    );
    let c2 = &s.compactions[1];
    assert_eq!(
        (
            c2.line,
            c2.tokens_before,
            c2.at_message,
            c2.first_kept_message
        ),
        (629, Some(185_014), 622, Some(545))
    );

    // the context after the latest compaction: summary, then messages from the first kept one
    let ctx = s.context();
    assert_eq!(ctx.len(), 1 + 990 - 545);
    assert!(ctx[0].summary && ctx[0].plain_text().contains(&c2.summary));
    assert_eq!(ctx[1], s.messages[545]);
    // the synthesized summary exports as a pi compactionSummary message and imports back
    let exported = pi::export(&ctx[..1]);
    assert_eq!(exported[0]["role"], "compactionSummary");
    assert_eq!(exported[0]["tokensBefore"], 185_014);
    assert!(pi::import(&Value::Array(exported)).unwrap()[0].summary);

    // numeric timestamps from the messages
    assert_eq!(s.messages[0].timestamp, Some(1_765_233_665_292));
    // other line types are listed, not lost
    let kinds: HashSet<&str> = s.other_entries.iter().map(|(_, k)| k.as_str()).collect();
    assert_eq!(
        kinds,
        HashSet::from(["model_change", "thinking_level_change"])
    );
    assert_eq!(s.other_entries.len(), 10);
}

#[test]
fn pi_large_session_round_trips() {
    let Some(text) = fixture("pi/large-session.jsonl") else {
        return;
    };
    let s = import_pi_session(&text).unwrap();
    assert_eq!(s.messages.len(), 914);
    assert_eq!(s.tool_counts(), (391, 373));
    assert_eq!(unanswered_calls(&s).len(), 18);
    assert!(s.compactions.is_empty());
    assert_eq!(s.context(), s.messages);
    assert_eq!(s.other_entries.len(), 104);
    // every message exports as the line's own message object
    let exported = pi::export(&s.messages);
    let originals: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["type"] == "message")
        .map(|v| v["message"].clone())
        .collect();
    assert_eq!(exported, originals);
}

fn check_claude(rel: &str, messages: usize, tools: usize) -> Option<ImportedSession> {
    let text = fixture(rel)?;
    let s = import_claude_code(&text).unwrap();
    assert_eq!(s.messages.len(), messages, "{rel}");
    assert_eq!(s.tool_counts(), (tools, tools), "{rel}");
    assert!(unanswered_calls(&s).is_empty(), "{rel}");
    // assistant messages: one per API message id among the main-chain lines
    let ids: HashSet<String> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["type"] == "assistant" && v["isSidechain"] != true)
        .map(|v| v["message"]["id"].as_str().unwrap().to_string())
        .collect();
    let assistants = s
        .messages
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .count();
    assert_eq!(assistants, ids.len(), "{rel}");
    // every assistant message with calls is answered by the next message, exactly
    for (i, m) in s.messages.iter().enumerate() {
        let calls: HashSet<&str> = m.tool_call_ids().into_iter().collect();
        if calls.is_empty() {
            continue;
        }
        let next: HashSet<&str> = s.messages[i + 1].tool_result_ids().into_iter().collect();
        assert_eq!(calls, next, "{rel}: message {i}");
        assert_eq!(s.messages[i + 1].role, Role::User);
    }
    // exported as Anthropic messages, they are the API shape and import back identically
    let exported = anthropic::export(&s.messages);
    for v in &exported {
        let mut keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        keys.sort();
        assert_eq!(keys, ["content", "role"]);
    }
    let back = anthropic::import(&Value::Array(exported)).unwrap();
    let parts: Vec<_> = back.iter().map(|m| &m.parts).collect();
    let orig: Vec<_> = s.messages.iter().map(|m| &m.parts).collect();
    assert_eq!(parts, orig);
    Some(s)
}

#[test]
fn claude_code_big_session_with_compaction() {
    let Some(s) = check_claude(
        "claude-code/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl",
        439,
        242,
    ) else {
        return;
    };
    assert_eq!(
        s.session_id.as_deref(),
        Some("ae4a77f8-aedd-4bc1-888f-c94edc91af04")
    );
    assert_eq!(s.version.as_deref(), Some("2.1.39"));
    // msg_01Cwyj7RLJaazm8DnifKx5Pw was written as lines 44, 45, 49, 53, 57, 61, 65 with tool
    // results in between: one assistant message (text + 6 parallel tool uses) and one user
    // message carrying the 6 results
    let i = s.entries.iter().position(|e| e.line == 44).unwrap();
    assert_eq!(s.entries[i].lines, vec![44, 45, 49, 53, 57, 61, 65]);
    let m = &s.messages[i];
    assert_eq!(m.role, Role::Assistant);
    assert!(matches!(m.parts[0], Part::Text { .. }));
    assert_eq!(m.tool_call_ids().len(), 6);
    assert_eq!(s.entries[i + 1].lines[..2], [48, 52]);
    assert_eq!(s.messages[i + 1].tool_result_ids(), m.tool_call_ids());

    assert_eq!(s.compactions.len(), 1);
    let c = &s.compactions[0];
    assert_eq!(c.line, 1481);
    assert_eq!(c.tokens_before, Some(142_431));
    assert_eq!(c.trigger.as_deref(), Some("manual"));
    assert_eq!(c.summary_message, Some(277));
    assert_eq!(c.at_message, 277);
    assert!(c
        .summary
        .starts_with("This session is being continued from a previous conversation"));
    let summary = &s.messages[277];
    assert!(summary.summary && summary.role == Role::User);
    assert_eq!(s.entries[277].line, 1482);
    // the current context starts at the summary
    let ctx = s.context();
    assert_eq!(ctx.len(), 439 - 277);
    assert!(ctx[0].summary);
    // non-message lines are listed
    assert!(
        s.other_entries
            .iter()
            .filter(|(_, k)| k == "progress")
            .count()
            == 1697
    );
}

#[test]
fn claude_code_short_merges_one_api_message() {
    let Some(s) = check_claude("claude-code/short.jsonl", 4, 2) else {
        return;
    };
    let a = &s.messages[1];
    assert_eq!(s.entries[1].lines.len(), 5);
    assert!(matches!(
        &a.parts[1],
        Part::Reasoning {
            redacted: false,
            ..
        }
    ));
    // the rejected tool use is an error result
    assert!(s.messages[2]
        .parts
        .iter()
        .any(|p| matches!(p, Part::ToolResult { is_error: true, .. })));
    assert!(s.messages[3].is_user_turn_start());
    assert!(s.compactions.is_empty());
    assert_eq!(
        s.messages[0].timestamp,
        context_compaction::core::message::parse_iso8601_millis("2026-02-10T21:11:56.846Z")
    );
}

#[test]
fn claude_code_subagent_and_tool_heavy() {
    if let Some(s) = check_claude("claude-code/subagent.jsonl", 27, 16) {
        assert!(s.entries.iter().any(|e| e.lines.len() == 7));
    }
    if let Some(s) = check_claude("claude-code/tool_heavy.jsonl", 15, 6) {
        assert!(s.other_entries.iter().any(|(_, k)| k == "queue-operation"));
    }
}
