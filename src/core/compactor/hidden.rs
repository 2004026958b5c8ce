//! The `hidden` list of a Compactor's compaction digest, as a Session's compaction entry has it
//! (seed 003: "hidden blocks and replacement text"): the parts of the summarized messages that a
//! `Compactor.prune` hid behind a replacement text, so that the digest says what they were. The
//! Compactor knows them by the pruned forms it returned: the binding registers each one and marks
//! which of its parts replaced hidden ones ([`super::Stored::hidden`]). A Session names the log
//! entry of each; a Compactor has no log, so each item names the message by its index in the
//! caller's array: `{ message, part, tool, output | input }`.

use serde_json::{Map, Value};

use super::store::MessageStore;
use crate::core::message::{Message, Part};
use crate::core::plan::{Disposition, Plan};
use crate::core::session::view::replacement_of;
use crate::core::session::Replacement;

/// `digest` with the hidden parts of the messages `plan` summarizes or drops. `history`: the
/// planned messages; `caller(i)`: the store id of planned message `i` and its index in the
/// caller's array (`None` for a message the Compactor made, a memo's head).
pub fn with_hidden<V>(
    digest: Value,
    store: &MessageStore<V>,
    history: &[Message],
    plan: &Plan,
    caller: impl Fn(usize) -> Option<(u32, usize)>,
) -> Value {
    let calls: std::collections::HashMap<&str, &str> = history
        .iter()
        .flat_map(|m| m.parts.iter())
        .filter_map(|p| match p {
            Part::ToolCall { id, name, .. } => Some((id.as_str(), name.as_str())),
            _ => None,
        })
        .collect();
    let mut items = Vec::new();
    for (i, d) in plan.dispositions.iter().enumerate() {
        if !matches!(
            d,
            Disposition::Summarize | Disposition::TurnPrefix | Disposition::Drop
        ) {
            continue;
        }
        let Some((id, index)) = caller(i) else {
            continue;
        };
        let Some(stored) = store.get(id) else {
            continue;
        };
        for &part in &stored.hidden {
            let Some(p) = stored.message.parts.get(part) else {
                continue;
            };
            let tool = match p {
                Part::ToolCall { name, .. } => Some(name.as_str()),
                Part::ToolResult { id, name, .. } => {
                    name.as_deref().or_else(|| calls.get(id.as_str()).copied())
                }
                _ => None,
            };
            let mut item = Map::new();
            item.insert("message".into(), Value::from(index));
            item.insert("part".into(), Value::from(part));
            item.insert(
                "tool".into(),
                tool.map_or(Value::Null, |n| Value::String(n.to_string())),
            );
            match replacement_of(p) {
                Some(Replacement::Output(text)) => {
                    item.insert("output".into(), Value::String(text))
                }
                Some(Replacement::Input(value)) => item.insert("input".into(), value),
                None => continue,
            };
            items.push(Value::Object(item));
        }
    }
    if items.is_empty() {
        return digest;
    }
    let mut obj = match digest {
        Value::Object(obj) => obj,
        _ => Map::new(),
    };
    obj.insert("hidden".into(), Value::Array(items));
    Value::Object(obj)
}
