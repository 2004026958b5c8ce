//! The `hidden` list of a compaction digest (seed 003: "hidden blocks and replacement text"): the
//! parts of the summarized (or dropped) messages that a prune hid behind a replacement text, each
//! with the tool it belongs to and its replacement, so that the digest says what they were. One
//! builder for both handles: a Session names each message by its log entry (`entryId`), a
//! Compactor, which has no log, by its index in the caller's array (`message`).

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::core::message::{Message, Part};
use crate::core::plan::Disposition;
use crate::core::session::entry::Replacement;

/// True for the messages whose hidden parts the digest lists: those the plan summarizes or drops.
pub fn listed(disposition: &Disposition) -> bool {
    matches!(
        disposition,
        Disposition::Summarize | Disposition::TurnPrefix | Disposition::Drop
    )
}

/// The items of one digest's `hidden` list, in the order pushed.
pub struct HiddenList<'m> {
    /// Tool names by call id, for results that do not carry their tool's name.
    calls: HashMap<&'m str, &'m str>,
    items: Vec<Value>,
}

impl<'m> HiddenList<'m> {
    /// An empty list for a compaction of `messages` (the planned messages).
    pub fn new(messages: &'m [Message]) -> Self {
        let calls = messages
            .iter()
            .flat_map(|m| m.parts.iter())
            .filter_map(|p| match p {
                Part::ToolCall { id, name, .. } => Some((id.as_str(), name.as_str())),
                _ => None,
            })
            .collect();
        HiddenList {
            calls,
            items: Vec::new(),
        }
    }

    /// Adds part `index` (`part`, as the message holds it now) of the message named by `key`
    /// (`("entryId", id)` or `("message", index)`), hidden behind `replacement`.
    pub fn push(
        &mut self,
        key: (&str, Value),
        index: usize,
        part: Option<&Part>,
        replacement: Replacement,
    ) {
        let tool = match part {
            Some(Part::ToolCall { name, .. }) => Some(name.as_str()),
            Some(Part::ToolResult { id, name, .. }) => name
                .as_deref()
                .or_else(|| self.calls.get(id.as_str()).copied()),
            _ => None,
        };
        let mut item = Map::new();
        item.insert(key.0.into(), key.1);
        item.insert("part".into(), Value::from(index));
        item.insert(
            "tool".into(),
            tool.map_or(Value::Null, |n| Value::String(n.to_string())),
        );
        match replacement {
            Replacement::Output(text) => item.insert("output".into(), Value::String(text)),
            Replacement::Input(value) => item.insert("input".into(), value),
        };
        self.items.push(Value::Object(item));
    }

    /// `digest` with the list as its `hidden` field (unchanged when the list is empty).
    pub fn into_digest(self, digest: Value) -> Value {
        if self.items.is_empty() {
            return digest;
        }
        let mut obj = match digest {
            Value::Object(obj) => obj,
            _ => Map::new(),
        };
        obj.insert("hidden".into(), Value::Array(self.items));
        Value::Object(obj)
    }
}
