//! Claude Code sub-agent transcripts, whose every entry is `isSidechain: true`, import as their
//! messages; in a main session, sidechain lines stay out of the conversation. The sub-agent input
//! is made from a real main session by marking every line as a sidechain line, plus a tiny
//! hand-written one.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use context_compaction::formats::claude_code::import_claude_code;
use serde_json::{json, Value};

fn fixture(name: &str) -> String {
    common::fixtures::text(&format!("claude-code/{name}"))
}

#[test]
fn a_subagent_transcript_imports_as_its_messages() {
    for name in ["tool_heavy.jsonl", "subagent.jsonl", "short.jsonl"] {
        let text = fixture(name);
        let main = import_claude_code(&text).unwrap();
        assert!(!main.messages.is_empty(), "{name}");
        let side = import_claude_code(&common::as_subagent(&text)).unwrap();
        assert_eq!(
            side.messages, main.messages,
            "{name}: the same conversation"
        );
    }
}

#[test]
fn sidechain_lines_stay_out_of_a_main_session() {
    let lines = [
        json!({"type": "user", "uuid": "u1", "parentUuid": null, "isSidechain": false, "message": {"role": "user", "content": "main task"}}),
        json!({"type": "user", "uuid": "s1", "parentUuid": "u1", "isSidechain": true, "message": {"role": "user", "content": "sub-agent prompt"}}),
        json!({"type": "assistant", "uuid": "s2", "parentUuid": "s1", "isSidechain": true, "message": {"role": "assistant", "content": [{"type": "text", "text": "sub-agent answer"}]}}),
        json!({"type": "assistant", "uuid": "a1", "parentUuid": "u1", "isSidechain": false, "message": {"role": "assistant", "content": [{"type": "text", "text": "main answer"}]}}),
    ];
    let text: Vec<String> = lines.iter().map(Value::to_string).collect();
    let main = import_claude_code(&text.join("\n")).unwrap();
    assert_eq!(main.messages.len(), 2);
    assert_eq!(main.messages[1].plain_text(), "main answer");
    // The same two sidechain lines alone are a sub-agent transcript.
    let side = import_claude_code(&format!("{}\n{}", text[1], text[2])).unwrap();
    assert_eq!(side.messages.len(), 2);
    assert_eq!(side.messages[0].plain_text(), "sub-agent prompt");
    assert_eq!(side.entries[0].id.as_deref(), Some("s1"));
}
