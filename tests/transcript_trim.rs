#![cfg(not(target_arch = "wasm32"))]
//! `transcript.trim` (`core::summary::trim`): the exact head, marker and tail of a long tool
//! result, edit bodies not sent, repeats referred to, errors and user text whole, seed 001's
//! layout unchanged, the example of docs/cost.md, and the real sessions of tests/fixtures at least
//! 30% smaller with every user text still in the transcript.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

#[path = "common/fixtures.rs"]
mod fixtures;

use context_compaction::core::message::{Message, Part, Role};
use context_compaction::core::preset::Preset;
use context_compaction::core::settings::{Settings, TranscriptOptions};
use context_compaction::core::summary::transcript::serialize;
use context_compaction::formats::claude_code::import_claude_code;
use context_compaction::formats::pi_session::import_pi_session;
use context_compaction::formats::session::ImportedSession;
use serde_json::{json, Value};

fn options(trim: bool) -> TranscriptOptions {
    let mut o = Settings::new(200_000).transcript;
    o.trim = trim;
    o
}

fn call(id: &str, name: &str, input: Value) -> Message {
    Message::new(
        Role::Assistant,
        vec![Part::ToolCall {
            id: id.into(),
            name: name.into(),
            input,
        }],
    )
}

fn result(id: &str, text: &str, is_error: bool) -> Message {
    Message::new(
        Role::Tool,
        vec![Part::ToolResult {
            id: id.into(),
            name: None,
            output: vec![Part::text(text)],
            is_error,
        }],
    )
}

fn all(messages: &[Message]) -> Vec<usize> {
    (0..messages.len()).collect()
}

/// 40 numbered lines of 21 characters: 879 characters.
fn listing() -> String {
    let lines: Vec<String> = (1..=40)
        .map(|i| format!("const value{i:02} = {i:04};"))
        .collect();
    lines.join("\n")
}

/// The history of the docs/cost.md example.
fn example() -> Vec<Message> {
    let edit = json!({
        "file_path": "/app/config.ts",
        "old_string": "const value01 = 0001;",
        "new_string": format!("const value01 = loadValue(\"value01\");\n{}", "// migrated\n".repeat(20)),
    });
    vec![
        Message::text(
            Role::User,
            "Load the values from the environment in /app/config.ts",
        ),
        call("c1", "Read", json!({"file_path": "/app/config.ts"})),
        result("c1", &listing(), false),
        call("c2", "Edit", edit),
        result("c2", "The file /app/config.ts has been updated.", false),
        call("c3", "Bash", json!({"command": "npm test"})),
        result(
            "c3",
            "Error: loadValue is not defined\n    at config.ts:1:17",
            true,
        ),
        call("c4", "Read", json!({"file_path": "/app/config.ts"})),
        result("c4", &listing(), false),
    ]
}

#[test]
fn a_long_result_keeps_its_head_and_tail_at_line_breaks_with_the_cut_between() {
    let msgs = example();
    let t = serialize(&msgs, &[2], &options(true));
    let lines: Vec<String> = (1..=40)
        .map(|i| format!("const value{i:02} = {i:04};"))
        .collect();
    // 300 characters end inside line 14; the head stops at the end of line 13 (285 characters).
    // The last 150 start inside line 34; the tail starts at line 35 (131 characters).
    let head = lines[..13].join("\n");
    let tail = lines[34..].join("\n");
    let cut = 879 - head.len() - tail.len();
    assert_eq!(
        t,
        format!("[1] TOOL:\n[tool result] Read:\n{head}\n[... {cut} characters cut]\n{tail}")
    );
    assert_eq!(cut, 463);
    // Without trim: whole (it is under toolOutputChars).
    let whole = serialize(&msgs, &[2], &options(false));
    assert!(whole.ends_with(&listing()));
}

#[test]
fn edit_bodies_are_not_sent_and_paths_and_commands_stay_whole() {
    let msgs = example();
    let t = serialize(&msgs, &all(&msgs), &options(true));
    assert!(t.contains("\"file_path\":\"/app/config.ts\""));
    assert!(t.contains("[tool call] Bash({\"command\":\"npm test\"})"));
    assert!(!t.contains("// migrated\\n// migrated\\n// migrated\\n// migrated\\n// migrated\\n// migrated\\n// migrated"), "{t}");
    assert!(t.contains("// mig[... 198 more characters cut]"), "{t}");
    // A short body stays whole.
    assert!(t.contains("\"old_string\":\"const value01 = 0001;\""));
    let off = serialize(&msgs, &all(&msgs), &options(false));
    assert!(off.contains(&"// migrated\\n".repeat(20)));
    assert!(t.len() * 10 < off.len() * 7, "{} vs {}", t.len(), off.len());
}

#[test]
fn errors_and_user_text_are_never_cut_and_repeats_refer_to_the_first() {
    let long_error = format!("Error: build failed\n{}", "stack frame line\n".repeat(80));
    let user = format!("Please fix it. {}", "More detail. ".repeat(100));
    let msgs = vec![
        Message::text(Role::User, user.clone()),
        call("c1", "Bash", json!({"command": "make"})),
        result("c1", &long_error, true),
        call("c2", "Bash", json!({"command": "make"})),
        result("c2", &long_error, true),
        Message::text(Role::Assistant, "x".repeat(3_000)),
    ];
    let mut o = options(true);
    o.tool_output_chars = 100_000;
    let t = serialize(&msgs, &all(&msgs), &o);
    assert!(t.contains(&user));
    assert_eq!(
        t.matches(long_error.as_str()).count(),
        2,
        "errors whole, never referred"
    );
    assert!(t.contains(&"x".repeat(3_000)));
    // A repeated successful result is referred to its first entry's number.
    let ex = example();
    let t = serialize(&ex, &all(&ex), &options(true));
    assert!(
        t.ends_with("[9] TOOL:\n[tool result] Read:\n(same output as [3])"),
        "{t}"
    );
}

#[test]
fn seed_001_layout_ignores_trim() {
    let msgs = example();
    let mut on = Preset::Seed001.settings(200_000, 32_000).transcript;
    on.trim = true;
    let mut off = on.clone();
    off.trim = false;
    assert_eq!(
        serialize(&msgs, &all(&msgs), &on),
        serialize(&msgs, &all(&msgs), &off)
    );
    assert!(serialize(&msgs, &all(&msgs), &on).contains("[Result: \"const value01"));
}

#[test]
fn the_docs_example_is_what_the_transcript_gives() {
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/cost.md")).unwrap();
    let start = doc
        .find("<!-- trim example -->\n```text\n")
        .expect("docs/cost.md has the trim example")
        + "<!-- trim example -->\n```text\n".len();
    let end = start + doc[start..].find("```").unwrap();
    let msgs = example();
    assert_eq!(
        serialize(&msgs, &all(&msgs), &options(true)),
        doc[start..end].trim_end()
    );
}

/// The user texts of `messages` (text parts of user messages).
fn user_texts(messages: &[Message]) -> Vec<String> {
    messages
        .iter()
        .filter(|m| m.role == Role::User && !m.summary)
        .flat_map(|m| m.parts.iter())
        .filter_map(|p| match p {
            Part::Text { text } if !text.trim().is_empty() => Some(text.clone()),
            _ => None,
        })
        .collect()
}

type Import = fn(&str) -> context_compaction::core::error::Result<ImportedSession>;

#[test]
fn real_sessions_shrink_by_at_least_30_percent_and_keep_every_user_text() {
    let mut checked = 0;
    for (sub, import) in [
        ("claude-code", import_claude_code as Import),
        ("pi", import_pi_session as Import),
    ] {
        for path in fixtures::files(sub) {
            let text = std::fs::read_to_string(&path).unwrap();
            let msgs = import(&text).unwrap().messages;
            let indices = all(&msgs);
            let off = serialize(&msgs, &indices, &options(false));
            if off.len() < 50_000 {
                continue; // too small to have long tool outputs worth a target
            }
            let on = serialize(&msgs, &indices, &options(true));
            assert!(
                on.len() * 10 <= off.len() * 7,
                "{}: {} of {} characters",
                path.display(),
                on.len(),
                off.len()
            );
            for t in user_texts(&msgs) {
                assert!(
                    on.contains(&t),
                    "{}: user text lost: {}",
                    path.display(),
                    &t[..t.len().min(80)]
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 3, "{checked} sessions checked");
}
