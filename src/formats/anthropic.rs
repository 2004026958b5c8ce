//! Anthropic messages API <-> the core model.
//!
//! Messages are `user` / `assistant` with string content or blocks: `text`, `image`, `document`,
//! `thinking`, `redacted_thinking`, `tool_use`, `tool_result` (in `user` messages, possibly mixed
//! with text, represented faithfully as a `User` message holding [`Part::ToolResult`]s). Server
//! tool blocks and other unknown blocks become [`Part::Other`].
//!
//! The API takes the system prompt outside the messages; for convenience this adapter also
//! accepts `{ "role": "system", "content": string | text blocks }` anywhere in the array and
//! exports system messages in that shape, which the caller must lift into `system`.

use serde_json::{json, Map, Value};

use crate::core::error::{Error, Result};
use crate::core::message::{ImageSource, Message, Original, Part, Role};

use super::json_path::{
    as_object, block_type, content_parts, each_message, field, index, opt_bool, opt_str,
    pinned_flag, req_object, req_str, type_name,
};
use super::media::{file_part, image_part, image_type, url_of};
use super::reuse::{self, all_text, joined_text, Codec, Originals, MEDIA_OMITTED};

/// Imports an array of Anthropic messages. Errors name the offending field
/// (`messages[2].content[1].tool_use_id`).
pub fn import(messages: &Value) -> Result<Vec<Message>> {
    each_message(messages, import_message)
}

/// Exports messages as Anthropic messages: unchanged ones verbatim, changed ones keeping their
/// original's other fields (a pruned `tool_result` keeps `cache_control` and its id), new ones
/// built. `Tool` messages become `user` messages of `tool_result` blocks.
pub fn export(messages: &[Message]) -> Vec<Value> {
    reuse::export::<Anthropic>(messages)
}

/// Parses one Anthropic message at `path`.
pub fn import_message(value: &Value, path: &str) -> Result<Message> {
    let obj = as_object(value, path)?;
    let role = match req_str(obj, "role", path)? {
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "system" => Role::System,
        other => {
            return Err(Error::invalid_input(
                field(path, "role"),
                format!("unknown role \"{other}\" (expected user or assistant; system is accepted for convenience)"),
            ))
        }
    };
    let parts = parse_content(obj, path)?;
    let mut message = Message::new(role, parts);
    message.pinned = pinned_flag(obj);
    message.original = Some(Original::new(value));
    super::settle(message, path)
}

/// Parses the `content` of a message object (string or blocks).
pub fn parse_content(obj: &Map<String, Value>, path: &str) -> Result<Vec<Part>> {
    content_parts(obj, path, parse_block)
}

/// Parses one content block at `path`.
pub fn parse_block(value: &Value, path: &str) -> Result<Part> {
    let obj = as_object(value, path)?;
    Ok(match block_type(obj, path)? {
        "text" => Part::text(req_str(obj, "text", path)?),
        "thinking" => Part::Reasoning {
            text: req_str(obj, "thinking", path)?.to_string(),
            redacted: false,
        },
        "redacted_thinking" => Part::Reasoning {
            text: req_str(obj, "data", path)?.to_string(),
            redacted: true,
        },
        "image" => parse_media(obj, path, true)?,
        "document" => parse_media(obj, path, false)?,
        "tool_use" => Part::ToolCall {
            id: req_str(obj, "id", path)?.to_string(),
            name: req_str(obj, "name", path)?.to_string(),
            input: obj.get("input").cloned().unwrap_or(Value::Null),
        },
        "tool_result" => {
            let id = req_str(obj, "tool_use_id", path)?.to_string();
            let content_path = field(path, "content");
            let output = match obj.get("content") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::String(s)) => vec![Part::text(s.clone())],
                Some(Value::Array(items)) => items
                    .iter()
                    .enumerate()
                    .map(|(k, item)| parse_block(item, &index(&content_path, k)))
                    .collect::<Result<Vec<_>>>()?,
                Some(other) => {
                    return Err(Error::invalid_input(
                        content_path,
                        format!(
                            "expected a string or an array of blocks, got {}",
                            type_name(other)
                        ),
                    ))
                }
            };
            Part::ToolResult {
                id,
                name: None,
                output,
                is_error: opt_bool(obj, "is_error", path)?.unwrap_or(false),
            }
        }
        other => Part::Other {
            kind: other.to_string(),
            value: value.clone(),
        },
    })
}

fn parse_media(obj: &Map<String, Value>, path: &str, is_image: bool) -> Result<Part> {
    let source_path = field(path, "source");
    let source = req_object(obj, "source", path)?;
    let media = opt_str(source, "media_type", &source_path)?;
    let part = match req_str(source, "type", &source_path)? {
        "base64" => {
            let data = Value::String(req_str(source, "data", &source_path)?.to_string());
            if is_image {
                image_part(&data, media, None)
            } else {
                file_part(&data, media, opt_str(obj, "title", path)?)
            }
        }
        "url" => {
            let url = Value::String(req_str(source, "url", &source_path)?.to_string());
            if is_image {
                image_part(&url, media, None)
            } else {
                file_part(&url, media, opt_str(obj, "title", path)?)
            }
        }
        "file" => {
            let id = req_str(source, "file_id", &source_path)?.to_string();
            if is_image {
                Part::Image {
                    media_type: media.map(str::to_string),
                    source: ImageSource::FileId(id),
                    width: None,
                    height: None,
                    detail: None,
                }
            } else {
                Part::File {
                    media_type: media.map(str::to_string),
                    name: opt_str(obj, "title", path)?.map(str::to_string),
                    source: ImageSource::FileId(id),
                    text: None,
                }
            }
        }
        "text" => Part::File {
            media_type: media.map(str::to_string),
            name: opt_str(obj, "title", path)?.map(str::to_string),
            source: ImageSource::Unknown,
            text: Some(req_str(source, "data", &source_path)?.to_string()),
        },
        _ => Part::File {
            media_type: media.map(str::to_string),
            name: opt_str(obj, "title", path)?.map(str::to_string),
            source: ImageSource::Unknown,
            text: None,
        },
    };
    Ok(part)
}

struct Anthropic;

impl Codec for Anthropic {
    const MESSAGE_KEYS: &'static [&'static str] = &["role", "content"];
    const BLOCK_ARRAYS: &'static [&'static str] = &["content"];

    fn import_message(value: &Value, path: &str) -> Result<Message> {
        import_message(value, path)
    }

    fn parse_block(_array_key: &str, block: &Value) -> Option<Vec<Part>> {
        parse_block(block, "block").ok().map(|p| vec![p])
    }

    fn block_keys(kind: &str) -> &'static [&'static str] {
        match kind {
            "tool_use" => &["type", "id", "name", "input"],
            "tool_result" => &["type", "tool_use_id", "content", "is_error"],
            _ => &["type"],
        }
    }

    fn build(message: &Message, originals: &mut Originals<'_>) -> Vec<Value> {
        let role = match message.role {
            Role::System => "system",
            Role::User | Role::Tool => "user",
            Role::Assistant => "assistant",
        };
        let single_text = message.parts.len() == 1 && all_text(&message.parts);
        let content = if single_text || message.role == Role::System {
            Value::String(joined_text(&message.parts))
        } else {
            Value::Array(
                message
                    .parts
                    .iter()
                    .map(|p| {
                        let kind = match p {
                            Part::ToolCall { .. } => "tool_use",
                            Part::ToolResult { .. } => "tool_result",
                            _ => "",
                        };
                        originals.block_for(p, || build_block(p), Self::block_keys(kind))
                    })
                    .collect(),
            )
        };
        vec![json!({ "role": role, "content": content })]
    }
}

/// A fresh Anthropic block for `part`.
pub fn build_block(part: &Part) -> Value {
    match part {
        Part::Text { text } => json!({ "type": "text", "text": text }),
        Part::Reasoning {
            text,
            redacted: false,
        } => json!({ "type": "thinking", "thinking": text }),
        Part::Reasoning {
            text,
            redacted: true,
        } => json!({ "type": "redacted_thinking", "data": text }),
        Part::Image {
            source, media_type, ..
        } => match (url_of(source), source) {
            (Some(url), _) => json!({ "type": "image", "source": { "type": "url", "url": url } }),
            (None, ImageSource::FileId(id)) => {
                json!({ "type": "image", "source": { "type": "file", "file_id": id } })
            }
            (None, ImageSource::Inline(data)) => json!({ "type": "image", "source": {
                "type": "base64",
                "media_type": image_type(media_type.as_deref(), data).unwrap_or("image/png"),
                "data": data } }),
            _ => json!({ "type": "text", "text": MEDIA_OMITTED }),
        },
        Part::File {
            source,
            text,
            media_type,
            ..
        } => match (url_of(source), text) {
            (Some(url), _) => {
                json!({ "type": "document", "source": { "type": "url", "url": url } })
            }
            (None, Some(t)) => json!({ "type": "document", "source": {
                "type": "text",
                "media_type": media_type.clone().unwrap_or_else(|| "text/plain".into()),
                "data": t } }),
            (None, None) => match source {
                ImageSource::Inline(data) => json!({ "type": "document", "source": {
                    "type": "base64",
                    "media_type": media_type.clone().unwrap_or_else(|| "application/pdf".into()),
                    "data": data } }),
                ImageSource::FileId(id) => {
                    json!({ "type": "document", "source": { "type": "file", "file_id": id } })
                }
                _ => json!({ "type": "text", "text": MEDIA_OMITTED }),
            },
        },
        Part::ToolCall { id, name, input } => {
            json!({ "type": "tool_use", "id": id, "name": name, "input": input })
        }
        Part::ToolResult {
            id,
            output,
            is_error,
            ..
        } => {
            let content = if all_text(output) {
                Value::String(joined_text(output))
            } else {
                Value::Array(output.iter().map(build_block).collect())
            };
            let mut block = json!({ "type": "tool_result", "tool_use_id": id, "content": content });
            if *is_error {
                if let Some(o) = block.as_object_mut() {
                    o.insert("is_error".into(), Value::Bool(true));
                }
            }
            block
        }
        Part::Other { value, .. } => value.clone(),
    }
}
