//! What is still to do: the agent's latest plan or to-do state in the summarized messages, for the
//! digest and the extractive summary.
//!
//! Sources, in message order; the latest one found wins (an all-done list means nothing pending):
//! - a to-do tool call (`TodoWrite`, OpenCode's `todowrite`, Codex's `update_plan`, names
//!   compared as the digest compares them): its `todos` or `plan` array; an item's text is its
//!   `content`, `step`, `description` or `title`; items whose `status` is `completed`, `done` or
//!   `cancelled` are left out, an item `in_progress` is marked `(in progress)`;
//! - a plan-mode exit (`ExitPlanMode`) with a `plan` text: its list items (`-`, `*`, `1.`), or its
//!   non-empty lines when it has no list;
//! - an assistant message with a Markdown checklist: its unchecked items (`- [ ]`).
//!
//! At most [`MAX_PENDING`] items of at most [`PENDING_CHARS`] characters each.

use serde_json::Value;

use crate::core::message::{Message, Part, Role};
use crate::core::prune::supersede::normalize_tool_name;

use super::transcript::truncate_plain;

/// Most pending items listed.
pub const MAX_PENDING: usize = 30;
/// Most characters of a pending item.
pub const PENDING_CHARS: usize = 200;

/// The pending items of the latest plan or to-do state among `messages` (see the module
/// documentation); `None` when they hold none.
pub fn latest(messages: &[&Message]) -> Option<Vec<String>> {
    let mut found: Option<Vec<String>> = None;
    for message in messages {
        for part in &message.parts {
            match part {
                Part::ToolCall { name, input, .. } => {
                    if let Some(items) = tool_state(&normalize_tool_name(name), input) {
                        found = Some(items);
                    }
                }
                Part::Text { text } if message.role == Role::Assistant => {
                    if let Some(items) = checklist(text) {
                        found = Some(items);
                    }
                }
                _ => {}
            }
        }
    }
    found.map(|items| {
        items
            .into_iter()
            .map(|i| truncate_plain(&collapse(&i), PENDING_CHARS))
            .filter(|i| !i.is_empty())
            .take(MAX_PENDING)
            .collect()
    })
}

fn tool_state(name: &str, input: &Value) -> Option<Vec<String>> {
    match name {
        "todowrite" | "updateplan" | "todo" | "writetodos" => {
            let list = input
                .get("todos")
                .or_else(|| input.get("plan"))?
                .as_array()?;
            Some(
                list.iter()
                    .filter_map(|item| {
                        let text = ["content", "step", "description", "title"]
                            .iter()
                            .find_map(|k| item.get(*k).and_then(Value::as_str))?;
                        let status = item.get("status").and_then(Value::as_str).unwrap_or("");
                        match status {
                            "completed" | "done" | "cancelled" | "canceled" => None,
                            "in_progress" | "in-progress" => Some(format!("{text} (in progress)")),
                            _ => Some(text.to_string()),
                        }
                    })
                    .collect(),
            )
        }
        "exitplanmode" => {
            let plan = input.get("plan")?.as_str()?;
            let items: Vec<String> = plan.lines().filter_map(list_item).collect();
            if items.is_empty() {
                Some(
                    plan.lines()
                        .map(str::trim)
                        .filter(|l| !l.is_empty())
                        .map(str::to_string)
                        .collect(),
                )
            } else {
                Some(items)
            }
        }
        _ => None,
    }
}

/// A Markdown list item's text.
fn list_item(line: &str) -> Option<String> {
    let l = line.trim_start();
    let rest = l
        .strip_prefix("- ")
        .or_else(|| l.strip_prefix("* "))
        .or_else(|| {
            let digits = l.chars().take_while(char::is_ascii_digit).count();
            (digits > 0).then(|| l.get(digits..)?.strip_prefix(". "))?
        })?;
    let rest = rest.trim();
    (!rest.is_empty()).then(|| rest.to_string())
}

/// The unchecked items of a Markdown checklist, when `text` has one.
fn checklist(text: &str) -> Option<Vec<String>> {
    let mut any = false;
    let mut open = Vec::new();
    for line in text.lines() {
        let l = line.trim_start();
        let l = l
            .strip_prefix("- ")
            .or_else(|| l.strip_prefix("* "))
            .unwrap_or(l);
        if let Some(item) = l.strip_prefix("[ ] ") {
            any = true;
            open.push(item.trim().to_string());
        } else if l.starts_with("[x] ") || l.starts_with("[X] ") {
            any = true;
        }
    }
    any.then_some(open)
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(name: &str, input: Value) -> Message {
        Message::new(
            Role::Assistant,
            vec![Part::ToolCall {
                id: "1".into(),
                name: name.into(),
                input,
            }],
        )
    }

    #[test]
    fn the_latest_state_wins() {
        let todo = call(
            "TodoWrite",
            json!({"todos": [
                {"content": "Write the parser", "status": "completed"},
                {"content": "Test it", "status": "in_progress"},
                {"content": "Ship it", "status": "pending"}
            ]}),
        );
        assert_eq!(
            latest(&[&todo]).unwrap(),
            vec!["Test it (in progress)", "Ship it"]
        );
        let plan = call(
            "update_plan",
            json!({"plan": [{"step": "Profile", "status": "pending"}]}),
        );
        assert_eq!(latest(&[&todo, &plan]).unwrap(), vec!["Profile"]);
        let text = Message::text(Role::Assistant, "Left:\n- [x] parser\n- [ ] docs\n");
        assert_eq!(latest(&[&todo, &text]).unwrap(), vec!["docs"]);
        let exit = call("ExitPlanMode", json!({"plan": "# Plan\n1. Read\n2. Fix"}));
        assert_eq!(latest(&[&exit]).unwrap(), vec!["Read", "Fix"]);
        assert_eq!(latest(&[&Message::text(Role::User, "- [ ] mine")]), None);
        let done = call(
            "todowrite",
            json!({"todos": [{"content": "a", "status": "completed"}]}),
        );
        assert_eq!(latest(&[&todo, &done]).unwrap(), Vec::<String>::new());
    }
}
