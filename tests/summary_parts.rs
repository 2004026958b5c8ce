#![cfg(not(target_arch = "wasm32"))]
//! Transcript, prompts and digest of `core::summary` on hand-made histories and on the real
//! sessions of tests/fixtures.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

#[path = "common/fixtures.rs"]
mod fixtures;

use context_compaction::core::message::{ImageSource, Message, Part, Role};
use context_compaction::core::settings::TranscriptOptions;
use context_compaction::core::summary::digest::{
    append_to, Digest, APPENDED_HEADING, MAX_COMMANDS,
};
use context_compaction::core::summary::prompt::{render, Templates};
use context_compaction::core::summary::transcript::serialize;
use context_compaction::formats::claude_code::import_claude_code;
use context_compaction::formats::pi_session::import_pi_session;
use serde_json::json;

fn options() -> TranscriptOptions {
    TranscriptOptions {
        tool_output_chars: 2_000,
        include_reasoning: false,
        tool_allow: None,
        style: Default::default(),
        trim: false,
    }
}

fn call(id: &str, name: &str, input: serde_json::Value) -> Part {
    Part::ToolCall {
        id: id.into(),
        name: name.into(),
        input,
    }
}

fn result(id: &str, name: Option<&str>, text: &str, is_error: bool) -> Message {
    Message::new(
        Role::Tool,
        vec![Part::ToolResult {
            id: id.into(),
            name: name.map(str::to_string),
            output: vec![Part::text(text)],
            is_error,
        }],
    )
}

fn small_history() -> Vec<Message> {
    let mut earlier = Message::text(Role::User, "Earlier: set up the repo.");
    earlier.summary = true;
    vec![
        Message::text(Role::System, "You are a coding agent."),
        earlier,
        Message::text(Role::User, "Fix the failing test in /w/src/lib.rs"),
        Message::new(
            Role::Assistant,
            vec![
                Part::Reasoning {
                    text: "I should look first".into(),
                    redacted: false,
                },
                Part::text("Looking."),
                call("c1", "read", json!({"path": "/w/src/lib.rs"})),
            ],
        ),
        result("c1", Some("read"), "fn add() {}", false),
        Message::new(
            Role::Assistant,
            vec![call("c2", "bash", json!({"command": "cargo test"}))],
        ),
        result(
            "c2",
            None,
            "error[E0425]: cannot find value `x`\nmore",
            true,
        ),
        Message::new(
            Role::User,
            vec![
                Part::text("Here is a screenshot"),
                Part::Image {
                    media_type: Some("image/png".into()),
                    source: ImageSource::Base64 { len: 100 },
                    width: Some(1024),
                    height: Some(768),
                    detail: None,
                },
            ],
        ),
    ]
}

#[test]
fn transcript_of_a_small_history_is_exact() {
    let msgs = small_history();
    let all: Vec<usize> = (0..msgs.len()).collect();
    let expected = "[1] SYSTEM:
You are a coding agent.

[2] EARLIER SUMMARY:
Earlier: set up the repo.

[3] USER:
Fix the failing test in /w/src/lib.rs

[4] ASSISTANT:
Looking.
[tool call] read({\"path\":\"/w/src/lib.rs\"})

[5] TOOL:
[tool result] read:
fn add() {}

[6] ASSISTANT:
[tool call] bash({\"command\":\"cargo test\"})

[7] TOOL:
[tool error] bash:
error[E0425]: cannot find value `x`
more

[8] USER:
Here is a screenshot
[image image/png 1024×768]";
    assert_eq!(serialize(&msgs, &all, &options()), expected);
    // Reasoning only on request.
    assert!(!expected.contains("look first"));
    let mut with = options();
    with.include_reasoning = true;
    assert!(serialize(&msgs, &all, &with).contains("[reasoning] I should look first\nLooking."));
    // Only the indices given, in order, numbered from 1.
    assert_eq!(
        serialize(&msgs, &[2, 7], &options()),
        "[1] USER:\nFix the failing test in /w/src/lib.rs\n\n[2] USER:\nHere is a screenshot\n[image image/png 1024×768]"
    );
}

#[test]
fn transcript_truncates_outputs_and_inputs() {
    let long = "é".repeat(2_500);
    let msgs = vec![
        Message::new(
            Role::Assistant,
            vec![call("c", "write", json!({"path": "/a", "content": long}))],
        ),
        result("c", Some("write"), &long, false),
    ];
    let mut o = options();
    o.tool_output_chars = 100;
    let t = serialize(&msgs, &[0, 1], &o);
    assert!(t.contains(&format!(
        "{}\n[... 2400 more characters cut]",
        "é".repeat(100)
    )));
    // The call input (compact JSON, 2,526 characters) is cut to 100 too.
    assert!(t.contains("[... 2426 more characters cut])"));
    assert!(t.chars().count() < 400, "{}", t.chars().count());
    // The default limit of 2,000 characters.
    let t = serialize(&msgs, &[1], &options());
    assert!(t.ends_with("[... 500 more characters cut]"));
}

#[test]
fn transcript_allow_list_by_name_and_prefix() {
    let msgs = vec![
        Message::new(
            Role::Assistant,
            vec![
                Part::text("Working."),
                call("1", "read", json!({"path": "/a"})),
                call("2", "linearCreateIssue", json!({"title": "t"})),
                call("3", "userQuestions", json!({})),
            ],
        ),
        result("1", None, "file a", false),
        result("2", None, "issue created", false),
        result("3", Some("userQuestions"), "answer", false),
        result("x", None, "orphan", false),
    ];
    let mut o = options();
    o.tool_allow = Some(vec!["userQuestions".into(), "linear*".into()]);
    let t = serialize(&msgs, &[0, 1, 2, 3, 4], &o);
    assert_eq!(
        t,
        "[1] ASSISTANT:\nWorking.\n[tool call] linearCreateIssue({\"title\":\"t\"})\n[tool call] userQuestions({})\n\n[2] TOOL:\n[tool result] linearCreateIssue:\nissue created\n\n[3] TOOL:\n[tool result] userQuestions:\nanswer"
    );
    assert!(!t.contains("read") && !t.contains("orphan"));
}

#[test]
fn prompts_carry_transcript_previous_summary_and_instructions() {
    let t = Templates::default();
    let vars = [
        ("transcript", "[1] USER:\nhello {round}"),
        ("previous_summary", "PREVIOUS-SUMMARY-TEXT"),
        ("instructions", "focus on the TODOs"),
        ("max_tokens", "800"),
        ("round", "3"),
        ("part", "2"),
        ("parts", "5"),
    ];
    let update = render(&t.update, &vars);
    assert!(
        update.contains("[1] USER:\nhello {round}"),
        "values are not re-rendered"
    );
    assert!(update.contains("PREVIOUS-SUMMARY-TEXT"));
    assert!(update.contains("focus on the TODOs"));
    assert!(update.contains("at most 800 tokens"));
    assert!(update.contains("round 3"));
    let history = render(&t.history, &vars);
    assert!(history.contains("hello") && history.contains("focus on the TODOs"));
    assert!(!history.contains("PREVIOUS-SUMMARY-TEXT"));
    let chunk = render(&t.chunk, &vars);
    assert!(chunk.contains("part 2 of 5") && chunk.contains("PREVIOUS-SUMMARY-TEXT"));
    let rollup = render(&t.rollup, &vars);
    assert!(rollup.contains("PREVIOUS-SUMMARY-TEXT") && rollup.contains("800 tokens"));
    let prefix = render(&t.turn_prefix, &vars);
    assert!(prefix.contains("Turn Context (split turn)") && prefix.contains("hello"));
    for rendered in [&update, &history, &chunk, &rollup, &prefix] {
        assert!(!rendered.contains("{max_tokens}") && !rendered.contains("{instructions}"));
    }
    // Replaceable.
    let custom = Templates {
        history: "T={transcript} I={instructions}".into(),
        ..Templates::default()
    };
    assert_eq!(
        render(&custom.history, &vars),
        "T=[1] USER:\nhello {round} I=focus on the TODOs"
    );
}

#[test]
fn digest_of_a_small_history() {
    let msgs = small_history();
    let all: Vec<usize> = (0..msgs.len()).collect();
    let d = Digest::extract(&msgs, &all);
    assert_eq!(d.files_read, vec!["/w/src/lib.rs"]);
    assert!(d.files_modified.is_empty());
    assert_eq!(d.commands, vec!["cargo test"]);
    assert_eq!(d.errors, vec!["bash: error[E0425]: cannot find value `x`"]);
    assert_eq!(
        d.user_requests,
        vec![
            "Fix the failing test in /w/src/lib.rs",
            "Here is a screenshot"
        ]
    );
    let summary = "## Goal and constraints\nFix the failing test in /w/src/lib.rs";
    let missing = d.missing_from(summary);
    assert!(missing.files_read.is_empty());
    assert_eq!(missing.commands, vec!["cargo test"]);
    assert_eq!(missing.user_requests, vec!["Here is a screenshot"]);
    let out = append_to(summary, &missing);
    assert_eq!(
        out,
        format!(
            "{summary}\n\n{APPENDED_HEADING}\n\n### Commands run\n- `cargo test`\n\n### Errors seen\n- bash: error[E0425]: cannot find value `x`\n\n### User requests\n- Here is a screenshot"
        )
    );
    assert!(d.missing_from(&out).is_empty());
    assert_eq!(append_to(summary, &Digest::default()), summary);
}

fn fixture(rel: &str) -> Option<String> {
    Some(fixtures::text(rel))
}

#[test]
fn digest_of_the_pi_large_session() {
    let Some(raw) = fixture("pi/large-session.jsonl") else {
        return;
    };
    let msgs = import_pi_session(&raw).unwrap().messages;
    let all: Vec<usize> = (0..msgs.len()).collect();
    let d = Digest::extract(&msgs, &all);
    // The session edits this file (checked against the raw file) ...
    let edited = "packages/coding-agent/src/tui/user-message-selector.ts";
    assert!(raw.contains(&format!(
        "\"name\":\"edit\",\"arguments\":{{\"path\":\"{edited}\""
    )));
    assert!(
        d.files_modified.iter().any(|p| p == edited),
        "{:?}",
        d.files_modified
    );
    // ... and every listed file and plain command really occurs in it.
    assert!(!d.files_read.is_empty());
    for path in d.files_read.iter().chain(&d.files_modified) {
        assert!(raw.contains(path.as_str()), "{path}");
    }
    assert!(d.commands.len() > 5 && d.commands.len() <= MAX_COMMANDS);
    let plain: Vec<&String> = d
        .commands
        .iter()
        .filter(|c| !c.contains(['"', '\\', '…']) && !c.contains("  "))
        .collect();
    assert!(!plain.is_empty());
    for c in &plain {
        assert!(raw.contains(c.as_str()), "{c}");
    }
    assert!(!d.user_requests.is_empty());
    // Deterministic.
    assert_eq!(Digest::extract(&msgs, &all), d);
    let summary = append_to("A summary that mentions nothing.", &d.missing_from(""));
    assert!(d.missing_from(&summary).is_empty());
}

#[test]
fn digest_and_transcript_of_a_claude_code_session() {
    let Some(raw) = fixture("claude-code/subagent.jsonl") else {
        return;
    };
    let msgs = import_claude_code(&raw).unwrap().messages;
    let all: Vec<usize> = (0..msgs.len()).collect();
    let d = Digest::extract(&msgs, &all);
    assert!(!d.files_read.is_empty() || !d.files_modified.is_empty());
    for path in d.files_read.iter().chain(&d.files_modified) {
        assert!(raw.contains(path.as_str()), "{path}");
    }
    assert!(!d.commands.is_empty());
    let t = serialize(&msgs, &all, &options());
    assert!(t.starts_with("[1] "));
    assert!(t.contains("[tool call] Bash("));
    // Every tool output line block stays within the limit plus the marker.
    for block in t.split("[tool result] ").skip(1) {
        let body = block.split("\n\n[").next().unwrap();
        assert!(
            body.chars().count() <= 2_000 + 200,
            "{}",
            body.chars().count()
        );
    }
}
