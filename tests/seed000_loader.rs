//! Seed 000's session-file examples: single and multiple compactions, new messages after a
//! compaction, and the rule that a compaction never reaches back past the previous one.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use context_compaction::core::message::{Message, Part};
use context_compaction::formats::pi_session::import_pi_session;
use serde_json::json;

/// A pi session file from seed 000's notation: `u4` a user message, `a4` an assistant message
/// (with one call per `t4` that follows it), `t4` a tool result, `[C:summary:N]` a compaction
/// entry keeping the last N messages.
fn session(items: &[&str]) -> String {
    let mut lines = vec![
        json!({"type": "session", "id": "s", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/"})
            .to_string(),
    ];
    let mut calls: Vec<String> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let line = if let Some(rest) = item.strip_prefix("[C:") {
            let (summary, keep) = rest.trim_end_matches(']').split_once(':').unwrap();
            json!({"type": "compaction", "timestamp": "2026-01-01T00:00:00Z", "summary": summary, "keepLastMessages": keep.parse::<u64>().unwrap(), "tokensBefore": 1000})
        } else if item.starts_with('u') {
            json!({"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": item}]}})
        } else if item.starts_with('a') {
            let results = items[i + 1..]
                .iter()
                .take_while(|x| x.starts_with('t'))
                .count();
            calls = (0..results).map(|k| format!("{item}-{i}-{k}")).collect();
            let mut content = vec![json!({"type": "text", "text": item})];
            content.extend(
                calls.iter().map(
                    |id| json!({"type": "toolCall", "id": id, "name": "read", "arguments": {}}),
                ),
            );
            json!({"type": "message", "message": {"role": "assistant", "content": content}})
        } else {
            let id = calls.remove(0);
            json!({"type": "message", "message": {"role": "toolResult", "toolCallId": id, "toolName": "read", "content": [{"type": "text", "text": item}], "isError": false}})
        };
        lines.push(line.to_string());
    }
    lines.join("\n")
}

/// The first text of each message of the rebuilt context; summaries as `S:<summary>`.
fn context(items: &[&str]) -> Vec<String> {
    let imported = import_pi_session(&session(items)).unwrap();
    imported.context().iter().map(label).collect()
}

fn label(m: &Message) -> String {
    let text = m
        .parts
        .iter()
        .find_map(|p| match p {
            Part::Text { text } => Some(text.clone()),
            Part::ToolResult { output, .. } => output.iter().find_map(|o| match o {
                Part::Text { text } => Some(text.clone()),
                _ => None,
            }),
            _ => None,
        })
        .unwrap_or_default();
    if m.summary {
        // pi frames the summary text in <summary> tags.
        let inner = text
            .split("<summary>")
            .nth(1)
            .and_then(|t| t.split("</summary>").next())
            .unwrap_or(&text);
        format!("S:{}", inner.trim())
    } else {
        text
    }
}

const HISTORY: [&str; 17] = [
    "u1", "a1", "t1", "t1", "a1", "u2", "a2", "u3", "a3", "t3", "a3", "t3", "a3", "u4", "a4", "t4",
    "a4",
];

#[test]
fn single_compaction_keeps_the_last_four() {
    let mut items = HISTORY.to_vec();
    items.push("[C:sum1:4]");
    assert_eq!(context(&items), ["S:sum1", "u4", "a4", "t4", "a4"]);
    // New messages after the compaction follow the kept ones.
    items.extend(["u5", "a5"]);
    assert_eq!(
        context(&items),
        ["S:sum1", "u4", "a4", "t4", "a4", "u5", "a5"]
    );
}

#[test]
fn the_latest_of_several_compactions_wins_and_never_crosses_the_previous_one() {
    let mut items = HISTORY.to_vec();
    items.extend(["[C:sum1:4]", "u5", "a5", "u6", "a6", "t6", "a6", "u7", "a7"]);
    // Seed 000 shows `[summary2], u7, a7` for its second compaction (it writes keepLastMessages=3
    // but lists two kept messages); keeping the last two reproduces the context it shows.
    let mut second = items.clone();
    second.push("[C:sum2:2]");
    assert_eq!(context(&second), ["S:sum2", "u7", "a7"]);
    // Counting only messages between the two compactions: a large keep stops at the first boundary.
    let mut wide = items.clone();
    wide.push("[C:sum2:100]");
    assert_eq!(
        context(&wide),
        ["S:sum2", "u5", "a5", "u6", "a6", "t6", "a6", "u7", "a7"]
    );
}

#[test]
fn the_whole_history_stays_in_the_file() {
    let mut items = HISTORY.to_vec();
    items.push("[C:sum1:4]");
    let imported = import_pi_session(&session(&items)).unwrap();
    // The file keeps every message (undo by branching before the compaction needs them).
    assert_eq!(imported.messages.len(), 17);
    assert_eq!(imported.compactions.len(), 1);
    assert_eq!(imported.compactions[0].first_kept_message, Some(13));
}
