//! Seed 001's transcript (`formatMessagesForSummary`) as the `compaction-layer` preset writes it:
//! entries numbered from 0 with the upper-case role, `[Tool: name(args)]` and `[Result: …...]`
//! lines (500 characters of the output as JSON), each message cut at 2,000 characters with
//! `[...truncated...]`, entries separated by `---`.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use context_compaction::core::message::{Message, Part, Role};
use context_compaction::core::options::parse;
use context_compaction::core::summary::transcript::serialize;
use serde_json::json;

#[test]
fn the_compaction_layer_transcript_is_seed_001s() {
    let settings = parse(&json!({"preset": "compaction-layer"}))
        .unwrap()
        .settings;
    let long = "x".repeat(2_500);
    let output = "o".repeat(600);
    let messages = vec![
        Message::text(Role::User, "Build a flashcard app"),
        Message::new(
            Role::Assistant,
            vec![
                Part::text("I'll start by..."),
                Part::ToolCall {
                    id: "c1".into(),
                    name: "writeFile".into(),
                    input: json!({"path": "src/db.ts"}),
                },
            ],
        ),
        Message::new(
            Role::Tool,
            vec![Part::ToolResult {
                id: "c1".into(),
                name: Some("writeFile".into()),
                output: vec![Part::text(output.clone())],
                is_error: false,
            }],
        ),
        Message::text(Role::Assistant, long.clone()),
    ];
    let text = serialize(&messages, &[0, 1, 2, 3], &settings.transcript);
    let expected = [
        "[0] USER:\nBuild a flashcard app".to_string(),
        "[1] ASSISTANT:\nI'll start by...\n[Tool: writeFile({\"path\":\"src/db.ts\"})]".to_string(),
        format!(
            "[2] TOOL:\n[Result: {}...]",
            &format!("\"{output}\"")[..500]
        ),
        format!("[3] ASSISTANT:\n{}\n[...truncated...]", &long[..2_000]),
    ]
    .join("\n\n---\n\n");
    assert_eq!(text, expected);
    // Other presets keep the package's own layout.
    let pi = parse(&json!({"preset": "pi", "contextWindow": 200_000}))
        .unwrap()
        .settings;
    assert!(serialize(&messages, &[0], &pi.transcript).starts_with("[1] USER:"));
}
