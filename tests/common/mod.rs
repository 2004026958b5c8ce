//! Builders shared by the planner tests: histories from compact specs, output rebuilding.
#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

pub mod fixtures;

use context_compaction::core::message::{Message, Part, Role};
use context_compaction::core::plan::{Disposition, Plan, PlanInput, PlanOptions};
use serde_json::json;

/// A history from letters: `y` system, `u` user, `a` assistant text, `c` assistant with one call,
/// `t` the result of the latest call, `s` an earlier summary. Whitespace is ignored.
pub fn history(spec: &str) -> Vec<Message> {
    let mut next = 0;
    spec.chars()
        .filter(|ch| !ch.is_whitespace())
        .map(|ch| match ch {
            'y' => Message::text(Role::System, "rules"),
            'u' => Message::text(Role::User, "question"),
            'a' => Message::text(Role::Assistant, "answer"),
            's' => {
                let mut m = Message::text(Role::User, "summary of earlier work");
                m.summary = true;
                m
            }
            'c' => {
                next += 1;
                call(&[&format!("t{next}")])
            }
            't' => result(&format!("t{next}")),
            other => panic!("unknown letter {other}"),
        })
        .collect()
}

pub fn call(ids: &[&str]) -> Message {
    Message::new(
        Role::Assistant,
        ids.iter()
            .map(|id| Part::ToolCall {
                id: (*id).to_string(),
                name: "read".into(),
                input: json!({"path": "a.rs"}),
            })
            .collect(),
    )
}

pub fn result(id: &str) -> Message {
    Message::new(
        Role::Tool,
        vec![Part::ToolResult {
            id: id.to_string(),
            name: Some("read".into()),
            output: vec![Part::text("contents")],
            is_error: false,
        }],
    )
}

pub fn part_cost(part: &Part) -> usize {
    part.text_len().div_ceil(4)
}

pub fn plan(
    messages: &[Message],
    tokens: &[usize],
    options: &PlanOptions,
) -> context_compaction::core::error::Result<Plan> {
    let cost = |p: &Part| part_cost(p);
    context_compaction::core::plan::plan(
        &PlanInput {
            messages,
            tokens,
            part_cost: &cost,
        },
        options,
    )
}

/// The compacted history a plan describes: system, one summary, pinned, kept (truncations are
/// reflected in the token counts only). Returns messages and their token counts.
pub fn output(
    messages: &[Message],
    tokens: &[usize],
    plan: &Plan,
    summary_tokens: usize,
) -> (Vec<Message>, Vec<usize>) {
    let mut out = Vec::new();
    let mut out_tokens = Vec::new();
    let freed = |i: usize| -> usize {
        plan.truncations
            .iter()
            .filter(|t| t.message == i)
            .map(|t| t.tokens_freed())
            .sum()
    };
    for (i, d) in plan.dispositions.iter().enumerate() {
        if *d == Disposition::System {
            out.push(messages[i].clone());
            out_tokens.push(tokens[i]);
        }
    }
    let summarizes = plan
        .dispositions
        .iter()
        .any(|d| matches!(d, Disposition::Summarize | Disposition::TurnPrefix));
    if summarizes {
        let mut s = Message::text(Role::User, "summary");
        s.summary = true;
        out.push(s);
        out_tokens.push(summary_tokens);
    }
    for wanted in [Disposition::Pinned, Disposition::Keep] {
        for (i, d) in plan.dispositions.iter().enumerate() {
            if *d == wanted {
                out.push(messages[i].clone());
                out_tokens.push(tokens[i] - freed(i));
            }
        }
    }
    (out, out_tokens)
}

/// Every tool result has its call earlier, and every call (but the pending ones at the end) its
/// result later, in `messages`.
pub fn pairs_intact(messages: &[Message]) -> bool {
    let mut calls = std::collections::HashSet::new();
    let mut answered = std::collections::HashSet::new();
    for m in messages {
        for id in m.tool_result_ids() {
            if !calls.contains(id) {
                return false;
            }
            answered.insert(id.to_string());
        }
        for id in m.tool_call_ids() {
            calls.insert(id);
        }
    }
    let last_assistant = messages.iter().rposition(|m| m.role == Role::Assistant);
    messages.iter().enumerate().all(|(i, m)| {
        m.tool_call_ids()
            .iter()
            .all(|id| answered.contains(*id) || Some(i) == last_assistant)
    })
}

/// Proptest cases: `PROPTEST_CASES` when set (the fuzz command raises it), else `default`.
pub fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Violations of `output` that `input` did not already have (compared by kind and id). A
/// compaction must never make a history invalid.
pub fn new_violations(
    input: &[Message],
    output: &[Message],
) -> Vec<context_compaction::core::validate::Violation> {
    use context_compaction::core::validate::validate;
    let before: std::collections::HashSet<(String, Option<String>)> = validate(input)
        .into_iter()
        .map(|v| (v.kind.as_str().to_string(), v.id))
        .collect();
    validate(output)
        .into_iter()
        .filter(|v| !before.contains(&(v.kind.as_str().to_string(), v.id.clone())))
        .collect()
}

/// Every real session of `tests/fixtures` (pi and Claude Code), imported, by file name. A missing
/// fixture directory fails the test.
pub fn fixture_sessions() -> Vec<(String, Vec<Message>)> {
    use context_compaction::formats::{
        claude_code::import_claude_code, pi_session::import_pi_session,
    };
    let mut out = Vec::new();
    for (dir, pi) in [("pi", true), ("claude-code", false)] {
        for path in fixtures::files(dir) {
            let text = std::fs::read_to_string(&path).unwrap();
            let session = if pi {
                import_pi_session(&text)
            } else {
                import_claude_code(&text)
            }
            .unwrap();
            out.push((
                path.file_name().unwrap().to_string_lossy().into_owned(),
                session.messages,
            ));
        }
    }
    assert!(out.len() >= 6, "expected every fixture session");
    out
}

/// An assistant message reading `path` with call id `id`.
pub fn read_call(id: &str, path: &str) -> Message {
    Message::new(
        Role::Assistant,
        vec![Part::ToolCall {
            id: id.into(),
            name: "read".into(),
            input: json!({ "path": path }),
        }],
    )
}

/// The `read` tool's result `text` for call `id`.
pub fn read_output(id: &str, text: &str) -> Message {
    Message::new(
        Role::Tool,
        vec![Part::ToolResult {
            id: id.into(),
            name: Some("read".into()),
            output: vec![Part::text(text)],
            is_error: false,
        }],
    )
}

/// A Claude Code transcript as a sub-agent transcript: every entry marked `isSidechain: true`.
pub fn as_subagent(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            if let Some(o) = v.as_object_mut() {
                if o.contains_key("isSidechain") {
                    o.insert("isSidechain".into(), serde_json::Value::Bool(true));
                }
            }
            v.to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}
