//! Claude Code's queued messages (`queue-operation` lines: what the user typed while the agent was
//! busy) import as user messages where the agent saw them. The inputs are the real
//! `tool_heavy.jsonl` session, whose queue holds a `/mcp` command absorbed mid-turn, and that
//! session with the queued text replaced by an instruction.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod common;

use context_compaction::core::message::{Part, Role};
use context_compaction::formats::claude_code::import_claude_code;

const QUEUED: &str = "also restart the watcher when you are done";

fn with_queued_text(text: &str) -> String {
    text.replace(
        r#""content":"/mcp"}"#,
        &format!(r#""content":"{QUEUED}"}}"#),
    )
}

fn is_tool_results(parts: &[Part]) -> bool {
    !parts.is_empty() && parts.iter().all(|p| matches!(p, Part::ToolResult { .. }))
}

#[test]
fn a_queued_message_absorbed_mid_turn_is_a_user_message_after_the_tool_results() {
    let real = common::fixtures::text("claude-code/tool_heavy.jsonl");
    let text = with_queued_text(&real);
    assert_ne!(text, real, "the fixture holds the queued /mcp");
    let plain = import_claude_code(&real).unwrap();
    let session = import_claude_code(&text).unwrap();
    assert_eq!(session.messages.len(), plain.messages.len() + 1);
    let at = session
        .messages
        .iter()
        .position(|m| m.role == Role::User && m.plain_text() == QUEUED)
        .expect("the queued message is imported");
    // After the Bash call and its result, before the assistant's next message.
    let before = &session.messages[at - 1];
    assert!(is_tool_results(&before.parts), "{before:?}");
    assert_eq!(session.messages[at + 1].role, Role::Assistant);
    assert_eq!(
        session.entries[at].lines,
        vec![9],
        "its entry is the enqueue line"
    );
    // Tool calls and results still pair up: the message is not between them.
    let mut rest = session.messages.clone();
    rest.remove(at);
    assert_eq!(rest, plain.messages);
}

#[test]
fn slash_commands_dequeued_and_repeated_prompts_are_not_imported_twice() {
    let real = common::fixtures::text("claude-code/tool_heavy.jsonl");
    let plain = import_claude_code(&real).unwrap();
    assert!(
        plain.messages.iter().all(|m| m.plain_text() != "/mcp"),
        "a queued slash command is not a message"
    );
    // Dequeued: the prompt is written again as a user line, which is the only copy.
    let dequeued =
        with_queued_text(&real).replace(r#""operation":"remove""#, r#""operation":"dequeue""#);
    let s = import_claude_code(&dequeued).unwrap();
    assert_eq!(s.messages, plain.messages);
    // Removed, then repeated by a later user line: one copy.
    let prompt = "scrolling back in xterm.js";
    let line = real
        .lines()
        .find(|l| l.contains(prompt) && l.contains(r#""type":"user""#))
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    let typed = v["message"]["content"].as_str().unwrap().to_string();
    let repeated = real.replace(
        r#""content":"/mcp"}"#,
        &format!(
            r#""content":{}}}"#,
            serde_json::Value::String(typed.clone())
        ),
    );
    let s = import_claude_code(&repeated).unwrap();
    assert_eq!(
        s.messages
            .iter()
            .filter(|m| m.plain_text() == typed)
            .count(),
        1
    );
}

#[test]
fn a_message_never_taken_up_ends_the_conversation() {
    let real = common::fixtures::text("claude-code/tool_heavy.jsonl");
    let text = with_queued_text(&real);
    let never: String = text
        .lines()
        .filter(|l| !l.contains(r#""operation":"remove""#))
        .map(|l| format!("{l}\n"))
        .collect();
    let s = import_claude_code(&never).unwrap();
    let last = s.messages.last().unwrap();
    assert_eq!(
        (last.role, last.plain_text().as_str()),
        (Role::User, QUEUED)
    );
}
