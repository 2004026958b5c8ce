//! Vercel AI SDK v5 `ModelMessage` <-> the core model.
//!
//! Roles `system` (string content), `user`, `assistant`, `tool`; parts `text`, `image`, `file`,
//! `reasoning`, `tool-call` (`toolCallId`, `toolName`, `input`; v4 `args` accepted) and
//! `tool-result` (`toolCallId`, `toolName`, `output: { type, value }`; v4 `result` accepted).
//! Unknown part types become [`Part::Other`]; unknown fields are kept through `original`.

use serde_json::{json, Map, Value};

use crate::core::error::{Error, Result};
use crate::core::message::{Message, Original, Part, Role};

use super::json_path::{
    as_array, as_object, block_type, each_message, field, index, opt_str, pinned_flag, req_object,
    req_str,
};
use super::media::{file_part, image_part, inline_of, url_of};
use super::reuse::{self, all_text, joined_text, Codec, Originals, MEDIA_OMITTED};

/// Imports an array of AI SDK messages. Errors name the offending field (`messages[2].content[0].toolCallId`).
pub fn import(messages: &Value) -> Result<Vec<Message>> {
    each_message(messages, import_message)
}

/// Exports messages as AI SDK messages: unchanged ones verbatim, changed ones keeping their
/// original's other fields, new ones built (a single text becomes a string `content`).
pub fn export(messages: &[Message]) -> Vec<Value> {
    reuse::export::<AiSdk>(messages)
}

/// Parses one AI SDK message at `path`.
pub fn import_message(value: &Value, path: &str) -> Result<Message> {
    let obj = as_object(value, path)?;
    let role = match req_str(obj, "role", path)? {
        "system" => Role::System,
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "tool" => Role::Tool,
        other => {
            return Err(Error::invalid_input(
                field(path, "role"),
                format!("unknown role \"{other}\" (expected system, user, assistant or tool)"),
            ))
        }
    };
    let content_path = field(path, "content");
    let parts = match obj.get("content") {
        Some(Value::String(s)) if role != Role::Tool => vec![Part::text(s.clone())],
        Some(Value::Array(items)) if role != Role::System => {
            let mut parts = Vec::with_capacity(items.len());
            for (j, item) in items.iter().enumerate() {
                parts.push(parse_part(item, &index(&content_path, j))?);
            }
            parts
        }
        Some(other) => {
            let expected = match role {
                Role::System => "a string",
                Role::Tool => "an array of tool-result parts",
                _ => "a string or an array of parts",
            };
            return Err(Error::invalid_input(
                content_path,
                format!(
                    "expected {expected}, got {}",
                    super::json_path::type_name(other)
                ),
            ));
        }
        None => {
            return Err(Error::invalid_input(
                content_path,
                "missing required field \"content\"",
            ))
        }
    };
    let mut message = Message::new(role, parts);
    message.pinned = pinned_flag(obj);
    message.original = Some(Original::new(value));
    super::settle(message, path)
}

fn parse_part(value: &Value, path: &str) -> Result<Part> {
    let obj = as_object(value, path)?;
    let kind = block_type(obj, path)?;
    Ok(match kind {
        "text" => Part::text(req_str(obj, "text", path)?),
        "reasoning" => Part::Reasoning {
            text: req_str(obj, "text", path)?.to_string(),
            redacted: false,
        },
        "redacted-reasoning" => Part::Reasoning {
            text: req_str(obj, "data", path)?.to_string(),
            redacted: true,
        },
        "image" => {
            let data = obj.get("image").ok_or_else(|| {
                Error::invalid_input(field(path, "image"), "missing required field \"image\"")
            })?;
            let media = match opt_str(obj, "mediaType", path)? {
                Some(m) => Some(m),
                None => opt_str(obj, "mimeType", path)?,
            };
            image_part(data, media, None)
        }
        "file" => {
            let data = obj.get("data").ok_or_else(|| {
                Error::invalid_input(field(path, "data"), "missing required field \"data\"")
            })?;
            let media = match opt_str(obj, "mediaType", path)? {
                Some(m) => Some(m),
                None => opt_str(obj, "mimeType", path)?,
            };
            file_part(data, media, opt_str(obj, "filename", path)?)
        }
        "tool-call" => Part::ToolCall {
            id: req_str(obj, "toolCallId", path)?.to_string(),
            name: req_str(obj, "toolName", path)?.to_string(),
            input: match obj.get("input").or_else(|| obj.get("args")) {
                Some(v) => v.clone(),
                None => {
                    return Err(Error::invalid_input(
                        field(path, "input"),
                        "missing required field \"input\"",
                    ))
                }
            },
        },
        "tool-result" => {
            let id = req_str(obj, "toolCallId", path)?.to_string();
            let name = Some(req_str(obj, "toolName", path)?.to_string());
            let (output, is_error) = match (obj.get("output"), obj.get("result")) {
                (Some(_), _) => {
                    parse_output(req_object(obj, "output", path)?, &field(path, "output"))?
                }
                (None, Some(result)) => (vec![Part::text(json_text(result))], false),
                (None, None) => {
                    return Err(Error::invalid_input(
                        field(path, "output"),
                        "missing required field \"output\"",
                    ))
                }
            };
            Part::ToolResult {
                id,
                name,
                output,
                is_error,
            }
        }
        other => Part::Other {
            kind: other.to_string(),
            value: value.clone(),
        },
    })
}

/// The `type` of a block (empty when absent).
fn kind_of(o: &Map<String, Value>) -> &str {
    o.get("type").and_then(Value::as_str).unwrap_or_default()
}

/// A JSON value as text: strings as themselves, anything else serialized.
fn json_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn parse_output(obj: &Map<String, Value>, path: &str) -> Result<(Vec<Part>, bool)> {
    let kind = block_type(obj, path)?;
    let value_of = || {
        obj.get("value").ok_or_else(|| {
            Error::invalid_input(field(path, "value"), "missing required field \"value\"")
        })
    };
    Ok(match kind {
        "text" => (vec![Part::text(req_str(obj, "value", path)?)], false),
        "error-text" => (vec![Part::text(req_str(obj, "value", path)?)], true),
        "json" => (vec![Part::text(value_of()?.to_string())], false),
        "error-json" => (vec![Part::text(value_of()?.to_string())], true),
        "content" => {
            let items = as_array(value_of()?, &field(path, "value"))?;
            let mut parts = Vec::with_capacity(items.len());
            for (k, item) in items.iter().enumerate() {
                let item_path = index(&field(path, "value"), k);
                let o = as_object(item, &item_path)?;
                parts.push(match block_type(o, &item_path)? {
                    "text" => Part::text(req_str(o, "text", &item_path)?),
                    "media" | "file-data" | "image-data" => {
                        let media = opt_str(o, "mediaType", &item_path)?;
                        let data = Value::String(req_str(o, "data", &item_path)?.to_string());
                        let media = media.or((kind_of(o) == "image-data").then_some("image/*"));
                        file_part(&data, media, opt_str(o, "filename", &item_path)?)
                    }
                    "file-url" | "image-url" => {
                        let url = Value::String(req_str(o, "url", &item_path)?.to_string());
                        let media = opt_str(o, "mediaType", &item_path)?;
                        let media = media.or((kind_of(o) == "image-url").then_some("image/*"));
                        file_part(&url, media, None)
                    }
                    other => Part::Other {
                        kind: other.to_string(),
                        value: item.clone(),
                    },
                });
            }
            (parts, false)
        }
        "execution-denied" => {
            let reason = opt_str(obj, "reason", path)?.unwrap_or("Tool execution denied.");
            (vec![Part::text(reason)], true)
        }
        other => {
            return Err(Error::invalid_input(
                field(path, "type"),
                format!(
                    "unknown tool output type \"{other}\" (expected text, json, error-text, error-json, execution-denied or content)"
                ),
            ))
        }
    })
}

struct AiSdk;

impl Codec for AiSdk {
    const MESSAGE_KEYS: &'static [&'static str] = &["role", "content"];
    const BLOCK_ARRAYS: &'static [&'static str] = &["content"];

    fn import_message(value: &Value, path: &str) -> Result<Message> {
        import_message(value, path)
    }

    fn parse_block(_array_key: &str, block: &Value) -> Option<Vec<Part>> {
        parse_part(block, "block").ok().map(|p| vec![p])
    }

    fn block_keys(kind: &str) -> &'static [&'static str] {
        match kind {
            "tool-call" => &["type", "toolCallId", "toolName", "input", "args"],
            "tool-result" => &["type", "toolCallId", "toolName", "output", "result"],
            _ => &["type"],
        }
    }

    fn build(message: &Message, originals: &mut Originals<'_>) -> Vec<Value> {
        let role = message.role.as_str();
        let content = if message.role == Role::System
            || (message.role != Role::Tool && message.parts.len() == 1 && all_text(&message.parts))
        {
            Value::String(joined_text(&message.parts))
        } else {
            let blocks = message
                .parts
                .iter()
                .map(|p| {
                    let kind = part_kind(p);
                    originals.block_for(p, || build_part(p), Self::block_keys(kind))
                })
                .collect();
            Value::Array(blocks)
        };
        vec![json!({ "role": role, "content": content })]
    }
}

fn part_kind(part: &Part) -> &'static str {
    match part {
        Part::ToolCall { .. } => "tool-call",
        Part::ToolResult { .. } => "tool-result",
        _ => "",
    }
}

/// A fresh AI SDK part for `part`.
fn build_part(part: &Part) -> Value {
    match part {
        Part::Text { text } => json!({ "type": "text", "text": text }),
        Part::Reasoning {
            text,
            redacted: false,
        } => json!({ "type": "reasoning", "text": text }),
        Part::Reasoning {
            text,
            redacted: true,
        } => {
            json!({ "type": "redacted-reasoning", "data": text })
        }
        Part::Image {
            media_type, source, ..
        } => match url_of(source).or(inline_of(source)) {
            Some(url) => {
                let mut o = json!({ "type": "image", "image": url });
                if let (Some(m), Some(obj)) = (media_type, o.as_object_mut()) {
                    obj.insert("mediaType".into(), Value::String(m.clone()));
                }
                o
            }
            None => json!({ "type": "text", "text": MEDIA_OMITTED }),
        },
        Part::File {
            media_type,
            name,
            source,
            text,
        } => match (url_of(source).or(inline_of(source)), text) {
            (Some(url), _) => {
                let mut o = json!({ "type": "file", "data": url,
                    "mediaType": media_type.clone().unwrap_or_else(|| "application/octet-stream".into()) });
                if let (Some(n), Some(obj)) = (name, o.as_object_mut()) {
                    obj.insert("filename".into(), Value::String(n.clone()));
                }
                o
            }
            (None, Some(t)) => json!({ "type": "text", "text": t }),
            (None, None) => json!({ "type": "text", "text": MEDIA_OMITTED }),
        },
        Part::ToolCall { id, name, input } => {
            json!({ "type": "tool-call", "toolCallId": id, "toolName": name, "input": input })
        }
        Part::ToolResult {
            id,
            name,
            output,
            is_error,
        } => json!({
            "type": "tool-result",
            "toolCallId": id,
            "toolName": name.clone().unwrap_or_default(),
            "output": build_output(output, *is_error),
        }),
        Part::Other { value, .. } => value.clone(),
    }
}

fn build_output(output: &[Part], is_error: bool) -> Value {
    if all_text(output) {
        let kind = if is_error { "error-text" } else { "text" };
        return json!({ "type": kind, "value": joined_text(output) });
    }
    let items: Vec<Value> = output
        .iter()
        .map(|p| match p {
            Part::Text { text } => json!({ "type": "text", "text": text }),
            Part::Other { value, .. } => value.clone(),
            Part::Image {
                media_type, source, ..
            }
            | Part::File {
                media_type, source, ..
            } => match (url_of(source), inline_of(source)) {
                (Some(url), _) => json!({ "type": "file-url", "url": url }),
                (None, Some(data)) => json!({ "type": "media", "data": data,
                    "mediaType": media_type.clone().unwrap_or_else(|| "application/octet-stream".into()) }),
                _ => json!({ "type": "text", "text": MEDIA_OMITTED }),
            },
            _ => json!({ "type": "text", "text": MEDIA_OMITTED }),
        })
        .collect();
    json!({ "type": "content", "value": items })
}
