//! How exporters keep the caller's objects: an unchanged message is returned verbatim, a changed
//! one keeps every field of its original that the change does not concern.
//!
//! Rule for a changed message: the message is built fresh from its parts; each part that equals
//! a block of the original is emitted as that original block verbatim; a tool call or result
//! whose content changed is built fresh and laid over the original block with the same id (the
//! block's unknown fields, such as `cache_control` or `providerOptions`, survive); finally the
//! built message is laid over the original message (its unknown fields survive).

use serde_json::{Map, Value};

use crate::core::error::Result;
use crate::core::message::{Message, Part};

/// One format's conversion, as the generic export needs it.
pub trait Codec {
    /// Message keys whose value is derived from the parts (replaced on a changed message).
    const MESSAGE_KEYS: &'static [&'static str];
    /// Keys of the message that hold arrays of blocks (e.g. `content`, `tool_calls`).
    const BLOCK_ARRAYS: &'static [&'static str];
    /// Parses one message (`path` names it in errors).
    fn import_message(value: &Value, path: &str) -> Result<Message>;
    /// Parses one block of a block array into the parts it stands for.
    fn parse_block(array_key: &str, block: &Value) -> Option<Vec<Part>>;
    /// Keys of a block of type `kind` that are derived from the part.
    fn block_keys(kind: &str) -> &'static [&'static str];
    /// Builds the message fresh in the format, taking blocks from `originals` where it can.
    fn build(message: &Message, originals: &mut Originals<'_>) -> Vec<Value>;
}

/// The blocks of an original message, for reuse while building its changed version.
pub struct Originals<'a> {
    blocks: Vec<(&'a Value, Option<Vec<Part>>, bool)>,
}

impl<'a> Originals<'a> {
    /// No original blocks.
    pub fn none() -> Self {
        Originals { blocks: Vec::new() }
    }

    fn from_message<C: Codec>(original: &'a Value) -> Self {
        let mut blocks = Vec::new();
        for key in C::BLOCK_ARRAYS {
            if let Some(Value::Array(items)) = original.get(*key) {
                for item in items {
                    blocks.push((item, C::parse_block(key, item), false));
                }
            }
        }
        Originals { blocks }
    }

    /// The first unused original block that stands for exactly `part`, marked used.
    pub fn take_exact(&mut self, part: &Part) -> Option<Value> {
        let slot = self.blocks.iter_mut().find(|(_, parts, used)| {
            !*used
                && parts
                    .as_ref()
                    .is_some_and(|p| p.len() == 1 && p.first() == Some(part))
        })?;
        slot.2 = true;
        Some(slot.0.clone())
    }

    /// The original block of the tool call or result with the same id as `part`.
    pub fn counterpart(&self, part: &Part) -> Option<&'a Value> {
        let id = match part {
            Part::ToolCall { id, .. } | Part::ToolResult { id, .. } => id,
            _ => return None,
        };
        let same_kind = |p: &Part| {
            matches!(
                (p, part),
                (Part::ToolCall { .. }, Part::ToolCall { .. })
                    | (Part::ToolResult { .. }, Part::ToolResult { .. })
            )
        };
        self.blocks.iter().find_map(|(block, parts, _)| {
            let parts = parts.as_ref()?;
            parts
                .iter()
                .any(|p| {
                    same_kind(p)
                        && matches!(p, Part::ToolCall { id: i, .. } | Part::ToolResult { id: i, .. } if i == id)
                })
                .then_some(*block)
        })
    }

    /// The block for `part`: the original verbatim if unchanged, else `fresh` laid over the
    /// original block with the same tool id (keys of `owned` are replaced, others kept).
    pub fn block_for(
        &mut self,
        part: &Part,
        fresh: impl FnOnce() -> Value,
        owned: &[&str],
    ) -> Value {
        if let Some(block) = self.take_exact(part) {
            return block;
        }
        let built = fresh();
        match self.counterpart(part) {
            Some(base) => overlay(base, built, owned),
            None => built,
        }
    }
}

/// `base` without the keys `owned` that `built` lacks, then every key of `built` inserted: a key
/// `base` had stays where the caller put it. Non-objects: `built`.
pub fn overlay(base: &Value, built: Value, owned: &[&str]) -> Value {
    match (base, built) {
        (Value::Object(base), Value::Object(built)) => {
            let mut out: Map<String, Value> = base.clone();
            for key in owned {
                if !built.contains_key(*key) {
                    out.shift_remove(*key);
                }
            }
            for (k, v) in built {
                out.insert(k, v);
            }
            Value::Object(out)
        }
        (_, built) => built,
    }
}

/// Exports messages with codec `C` by the rule in the module documentation.
pub fn export<C: Codec>(messages: &[Message]) -> Vec<Value> {
    let mut out = Vec::with_capacity(messages.len());
    for message in messages {
        out.extend(export_one::<C>(message));
    }
    out
}

fn export_one<C: Codec>(message: &Message) -> Vec<Value> {
    let Some(original) = &message.original else {
        return C::build(message, &mut Originals::none());
    };
    let original = original.to_value();
    if let Ok(parsed) = C::import_message(&original, "message") {
        if parsed.role == message.role && parsed.parts == message.parts {
            return vec![original];
        }
    }
    let mut originals = Originals::from_message::<C>(&original);
    let mut built = C::build(message, &mut originals);
    if built.len() == 1 {
        if let Some(first) = built.pop() {
            return vec![overlay(&original, first, C::MESSAGE_KEYS)];
        }
    }
    built
}

/// The texts of text parts joined by newlines (for formats that need one string).
pub fn joined_text(parts: &[Part]) -> String {
    let texts: Vec<&str> = parts
        .iter()
        .filter_map(|p| match p {
            Part::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    texts.join("\n")
}

/// True when every part is text.
pub fn all_text(parts: &[Part]) -> bool {
    parts.iter().all(|p| matches!(p, Part::Text { .. }))
}

/// The text placed instead of inline media that cannot be rebuilt without its original block.
pub const MEDIA_OMITTED: &str = "[media omitted]";
