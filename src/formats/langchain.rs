//! LangChain.js messages <-> the core model.
//!
//! The plain form LangChain builds a message from (`_constructMessageFromParams`): `type`
//! (`human`/`user`, `ai`/`assistant`, `system`/`developer`, `tool`), `content` (a string or content
//! blocks), an AI message's `tool_calls` (`{ id, name, args }`) and a tool message's
//! `tool_call_id` and `status` (`"error"` marks a failed call), next to LangChain's other fields
//! (`id`, `name`, `additional_kwargs`, `response_metadata`, ...), which survive. The package's JS
//! side hands `BaseMessage` instances and their serialized form (`toJSON()`) over in this form.
//!
//! Content blocks: `text`, `image_url`, the standard `image` / `file` blocks (`url`, `data` with
//! `mimeType`, or the older `source_type` / `mime_type`), `reasoning` and Anthropic's `thinking`;
//! anything else (a provider's own blocks) is kept as [`Part::Other`].

use serde_json::{json, Map, Value};

use crate::core::error::{Error, Result};
use crate::core::message::{ImageSource, Message, Original, Part, Role};

use super::json_path::{
    as_object, block_type, each_message, field, index, opt_array, opt_str, pinned_flag, req_str,
    type_name,
};
use super::media::{file_part, image_part, inline_of, url_of};
use super::reuse::{self, all_text, joined_text, Codec, Originals, MEDIA_OMITTED};

/// The `type` names of LangChain messages, for detection.
pub const TYPES: [&str; 7] = [
    "human",
    "user",
    "ai",
    "assistant",
    "system",
    "developer",
    "tool",
];

/// Imports an array of LangChain messages. Errors name the offending field
/// (`messages[2].tool_calls[0].id`).
pub fn import(messages: &Value) -> Result<Vec<Message>> {
    each_message(messages, import_message)
}

/// Exports messages as LangChain messages: unchanged ones verbatim, changed ones keeping their
/// original's other fields, new ones built. A `Tool` message holding several results becomes one
/// `tool` message per result.
pub fn export(messages: &[Message]) -> Vec<Value> {
    reuse::export::<LangChain>(messages)
}

/// True when `value` is a message in LangChain's form: a known `type` and no `role`.
pub fn is_langchain_message(value: &Value) -> bool {
    value.as_object().is_some_and(|o| {
        !o.contains_key("role")
            && o.get("type")
                .and_then(Value::as_str)
                .is_some_and(|t| TYPES.contains(&t))
    })
}

/// Parses one LangChain message at `path`.
pub fn import_message(value: &Value, path: &str) -> Result<Message> {
    let obj = as_object(value, path)?;
    let role = match req_str(obj, "type", path)? {
        "human" | "user" => Role::User,
        "ai" | "assistant" => Role::Assistant,
        "system" | "developer" => Role::System,
        "tool" => Role::Tool,
        other => {
            return Err(Error::invalid_input(
                field(path, "type"),
                format!(
                    "unknown message type \"{other}\" (expected human, ai, system or tool; \
                     RemoveMessage and ChatMessage are not conversation content)"
                ),
            ))
        }
    };
    let content_path = field(path, "content");
    let mut parts = match obj.get("content") {
        Some(Value::String(s)) if s.is_empty() && role != Role::User => Vec::new(),
        Some(Value::String(s)) => vec![Part::text(s.clone())],
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(j, b)| parse_block(b, &index(&content_path, j)))
            .collect::<Result<Vec<_>>>()?,
        None | Some(Value::Null) if role == Role::Assistant => Vec::new(),
        Some(other) => {
            return Err(Error::invalid_input(
                content_path,
                format!(
                    "expected a string or an array of content blocks, got {}",
                    type_name(other)
                ),
            ))
        }
        None => {
            return Err(Error::invalid_input(
                content_path,
                "missing required field \"content\"",
            ))
        }
    };
    if role == Role::Assistant {
        if let Some(calls) = opt_array(obj, "tool_calls", path)? {
            let calls_path = field(path, "tool_calls");
            for (k, call) in calls.iter().enumerate() {
                parts.push(parse_tool_call(call, &index(&calls_path, k))?);
            }
        }
    }
    if role == Role::Tool {
        let id = req_str(obj, "tool_call_id", path)?.to_string();
        let output = std::mem::take(&mut parts);
        parts.push(Part::ToolResult {
            id,
            name: opt_str(obj, "name", path)?.map(str::to_string),
            output,
            is_error: opt_str(obj, "status", path)? == Some("error"),
        });
    }
    let mut message = Message::new(role, parts);
    message.pinned = pinned_flag(obj);
    message.original = Some(Original::new(value));
    super::settle(message, path)
}

/// The media of a standard block: a URL, inline base64 `data`, or a provider file id.
fn media_value(obj: &Map<String, Value>) -> Value {
    for key in ["url", "data", "base64"] {
        if let Some(Value::String(s)) = obj.get(key) {
            return Value::String(s.clone());
        }
    }
    Value::Null
}

fn media_type(obj: &Map<String, Value>, path: &str) -> Result<Option<String>> {
    Ok(opt_str(obj, "mimeType", path)?
        .or(opt_str(obj, "mime_type", path)?)
        .map(str::to_string))
}

fn parse_block(value: &Value, path: &str) -> Result<Part> {
    let obj = match value {
        Value::String(s) => return Ok(Part::text(s.clone())),
        other => as_object(other, path)?,
    };
    Ok(match block_type(obj, path)? {
        "text" => Part::text(req_str(obj, "text", path)?),
        "reasoning" => Part::Reasoning {
            text: opt_str(obj, "reasoning", path)?
                .unwrap_or_default()
                .to_string(),
            redacted: false,
        },
        "thinking" => Part::Reasoning {
            text: req_str(obj, "thinking", path)?.to_string(),
            redacted: false,
        },
        "image_url" => {
            let url = match obj.get("image_url") {
                Some(Value::String(s)) => Value::String(s.clone()),
                Some(Value::Object(inner)) => inner.get("url").cloned().unwrap_or(Value::Null),
                _ => Value::Null,
            };
            let detail = obj
                .get("image_url")
                .and_then(|v| v.get("detail"))
                .and_then(Value::as_str);
            image_part(&url, None, detail)
        }
        "image" => image_part(&media_value(obj), media_type(obj, path)?.as_deref(), None),
        "file" => {
            let name = obj
                .get("metadata")
                .and_then(|m| m.get("filename").or(m.get("name")))
                .and_then(Value::as_str);
            file_part(&media_value(obj), media_type(obj, path)?.as_deref(), name)
        }
        other => Part::Other {
            kind: other.to_string(),
            value: value.clone(),
        },
    })
}

fn parse_tool_call(value: &Value, path: &str) -> Result<Part> {
    let obj = as_object(value, path)?;
    let id = req_str(obj, "id", path).map_err(|_| {
        Error::invalid_input(
            field(path, "id"),
            "a tool call needs an id to be paired with its ToolMessage (tool_call_id)",
        )
    })?;
    Ok(Part::ToolCall {
        id: id.to_string(),
        name: req_str(obj, "name", path)?.to_string(),
        input: obj.get("args").cloned().unwrap_or_else(|| json!({})),
    })
}

struct LangChain;

impl Codec for LangChain {
    const MESSAGE_KEYS: &'static [&'static str] =
        &["type", "content", "tool_calls", "tool_call_id", "status"];
    const BLOCK_ARRAYS: &'static [&'static str] = &["content", "tool_calls"];

    fn import_message(value: &Value, path: &str) -> Result<Message> {
        import_message(value, path)
    }

    fn parse_block(array_key: &str, block: &Value) -> Option<Vec<Part>> {
        let part = if array_key == "tool_calls" {
            parse_tool_call(block, "block")
        } else {
            parse_block(block, "block")
        };
        part.ok().map(|p| vec![p])
    }

    fn block_keys(kind: &str) -> &'static [&'static str] {
        match kind {
            "tool_call" => &["id", "name", "args", "type"],
            _ => &["type"],
        }
    }

    fn build(message: &Message, originals: &mut Originals<'_>) -> Vec<Value> {
        match message.role {
            Role::System => {
                vec![json!({ "type": "system", "content": joined_text(&message.parts) })]
            }
            Role::User => {
                vec![json!({ "type": "human", "content": content(&message.parts, originals) })]
            }
            Role::Assistant => {
                let calls: Vec<Value> = message
                    .parts
                    .iter()
                    .filter(|p| matches!(p, Part::ToolCall { .. }))
                    .map(|p| {
                        originals.block_for(p, || build_block(p), Self::block_keys("tool_call"))
                    })
                    .collect();
                let visible: Vec<Part> = message
                    .parts
                    .iter()
                    .filter(|p| !matches!(p, Part::ToolCall { .. }))
                    .cloned()
                    .collect();
                let mut o = json!({ "type": "ai", "content": content(&visible, originals) });
                if !calls.is_empty() {
                    if let Some(obj) = o.as_object_mut() {
                        obj.insert("tool_calls".into(), Value::Array(calls));
                    }
                }
                vec![o]
            }
            Role::Tool => message
                .parts
                .iter()
                .filter_map(|p| match p {
                    Part::ToolResult {
                        id,
                        name,
                        output,
                        is_error,
                    } => {
                        let mut o = Map::new();
                        o.insert("type".into(), Value::String("tool".into()));
                        o.insert("content".into(), content(output, &mut Originals::none()));
                        o.insert("tool_call_id".into(), Value::String(id.clone()));
                        if let Some(n) = name {
                            o.insert("name".into(), Value::String(n.clone()));
                        }
                        if *is_error {
                            o.insert("status".into(), Value::String("error".into()));
                        }
                        Some(Value::Object(o))
                    }
                    _ => None,
                })
                .collect(),
        }
    }
}

/// A string when every part is text (empty for none), else content blocks.
fn content(parts: &[Part], originals: &mut Originals<'_>) -> Value {
    if all_text(parts) {
        return Value::String(joined_text(parts));
    }
    Value::Array(
        parts
            .iter()
            .map(|p| originals.block_for(p, || build_block(p), &[]))
            .collect(),
    )
}

/// A fresh LangChain block for `part` (LangChain's standard content blocks).
fn build_block(part: &Part) -> Value {
    let media = |kind: &str, media_type: &Option<String>, source: &ImageSource| {
        let mut o = Map::new();
        o.insert("type".into(), Value::String(kind.into()));
        if let Some(url) = url_of(source) {
            o.insert("url".into(), Value::String(url.to_string()));
        } else if let Some(data) = inline_of(source) {
            o.insert("data".into(), Value::String(data.to_string()));
        } else {
            return json!({ "type": "text", "text": MEDIA_OMITTED });
        }
        if let Some(m) = media_type {
            o.insert("mimeType".into(), Value::String(m.clone()));
        }
        Value::Object(o)
    };
    match part {
        Part::Text { text } => json!({ "type": "text", "text": text }),
        Part::Reasoning { text, .. } => json!({ "type": "reasoning", "reasoning": text }),
        Part::Image {
            media_type, source, ..
        } => media("image", media_type, source),
        Part::File { text: Some(t), .. } => json!({ "type": "text", "text": t }),
        Part::File {
            media_type, source, ..
        } => media("file", media_type, source),
        Part::ToolCall { id, name, input } => {
            json!({ "type": "tool_call", "id": id, "name": name, "args": input })
        }
        Part::ToolResult { output, .. } => json!({ "type": "text", "text": joined_text(output) }),
        Part::Other { value, .. } => value.clone(),
    }
}
