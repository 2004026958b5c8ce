//! pi agent messages <-> the core model.
//!
//! Roles `user` (string or `text`/`image` blocks), `assistant` (`text`, `thinking`, `toolCall`
//! `{id, name, arguments}` blocks) and `toolResult` (`toolCallId`, `toolName`, `content`,
//! `isError`). pi's own extra roles are imported as `User` messages carrying the text pi shows the
//! model: `bashExecution`, `custom` / `hookMessage`, and the summaries `branchSummary` and
//! `compactionSummary` (marked [`Message::summary`]). `system` is accepted for convenience.
//! `timestamp` (milliseconds) is kept in [`Message::timestamp`].

use serde_json::{json, Map, Value};

use crate::core::error::{Error, Result};
use crate::core::message::{ImageSource, Message, Original, Part, Role};

use super::json_path::{
    as_object, block_type, content_parts, each_message, field, opt_bool, opt_i64, opt_str,
    pinned_flag, req_str,
};
use super::media::image_part;
use super::reuse::{self, all_text, joined_text, Codec, Originals, MEDIA_OMITTED};

pub use crate::core::preset::{
    PI_COMPACTION_PREFIX as COMPACTION_SUMMARY_PREFIX, PI_SUMMARY_SUFFIX as SUMMARY_SUFFIX,
};
/// The text pi puts before a branch summary.
pub const BRANCH_SUMMARY_PREFIX: &str =
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n";

/// Imports an array of pi messages. Errors name the offending field
/// (`messages[3].content[0].arguments`).
pub fn import(messages: &Value) -> Result<Vec<Message>> {
    each_message(messages, import_message)
}

/// Exports messages as pi messages: unchanged ones verbatim, changed ones keeping their
/// original's other fields (`details`, `timestamp`, usage...), new ones built with block content.
pub fn export(messages: &[Message]) -> Vec<Value> {
    reuse::export::<Pi>(messages)
}

/// Parses one pi message at `path`.
pub fn import_message(value: &Value, path: &str) -> Result<Message> {
    let obj = as_object(value, path)?;
    let role_name = req_str(obj, "role", path)?;
    let mut summary = false;
    let (role, parts) = match role_name {
        "user" | "custom" | "hookMessage" => (Role::User, parse_content(obj, path)?),
        "system" => (Role::System, parse_content(obj, path)?),
        "assistant" => (Role::Assistant, parse_content(obj, path)?),
        "toolResult" => {
            let output = parse_content(obj, path)?;
            let part = Part::ToolResult {
                id: req_str(obj, "toolCallId", path)?.to_string(),
                name: opt_str(obj, "toolName", path)?.map(str::to_string),
                output,
                is_error: opt_bool(obj, "isError", path)?.unwrap_or(false),
            };
            (Role::Tool, vec![part])
        }
        "bashExecution" => {
            let command = req_str(obj, "command", path)?;
            let output = opt_str(obj, "output", path)?.unwrap_or("");
            let mut text = format!("Ran `{command}`\n```\n{output}\n```");
            if opt_bool(obj, "cancelled", path)? == Some(true) {
                text.push_str("\n\n(command cancelled)");
            } else if let Some(code) = opt_i64(obj, "exitCode", path)?.filter(|c| *c != 0) {
                text.push_str(&format!("\n\nCommand exited with code {code}"));
            }
            (Role::User, vec![Part::text(text)])
        }
        "compactionSummary" | "branchSummary" => {
            summary = true;
            let prefix = if role_name == "compactionSummary" {
                COMPACTION_SUMMARY_PREFIX
            } else {
                BRANCH_SUMMARY_PREFIX
            };
            let body = req_str(obj, "summary", path)?;
            (
                Role::User,
                vec![Part::text(format!("{prefix}{body}{SUMMARY_SUFFIX}"))],
            )
        }
        other => {
            return Err(Error::invalid_input(
                field(path, "role"),
                format!("unknown role \"{other}\" (expected user, assistant or toolResult)"),
            ))
        }
    };
    let mut message = Message::new(role, parts);
    message.summary = summary;
    message.pinned = pinned_flag(obj);
    message.timestamp = opt_i64(obj, "timestamp", path)?;
    message.original = Some(Original::new(value));
    super::settle(message, path)
}

fn parse_content(obj: &Map<String, Value>, path: &str) -> Result<Vec<Part>> {
    content_parts(obj, path, parse_block)
}

/// Parses one pi content block at `path`.
pub fn parse_block(value: &Value, path: &str) -> Result<Part> {
    let obj = as_object(value, path)?;
    Ok(match block_type(obj, path)? {
        "text" => Part::text(req_str(obj, "text", path)?),
        "thinking" => Part::Reasoning {
            text: req_str(obj, "thinking", path)?.to_string(),
            redacted: opt_bool(obj, "redacted", path)?.unwrap_or(false),
        },
        "image" => {
            let data = Value::String(req_str(obj, "data", path)?.to_string());
            image_part(&data, opt_str(obj, "mimeType", path)?, None)
        }
        "toolCall" => Part::ToolCall {
            id: req_str(obj, "id", path)?.to_string(),
            name: req_str(obj, "name", path)?.to_string(),
            input: match obj.get("arguments") {
                Some(v) => v.clone(),
                None => {
                    return Err(Error::invalid_input(
                        field(path, "arguments"),
                        "missing required field \"arguments\"",
                    ))
                }
            },
        },
        other => Part::Other {
            kind: other.to_string(),
            value: value.clone(),
        },
    })
}

struct Pi;

impl Codec for Pi {
    const MESSAGE_KEYS: &'static [&'static str] = &[
        "role",
        "content",
        "toolCallId",
        "toolName",
        "isError",
        "command",
        "output",
        "exitCode",
        "summary",
    ];
    const BLOCK_ARRAYS: &'static [&'static str] = &["content"];

    fn import_message(value: &Value, path: &str) -> Result<Message> {
        import_message(value, path)
    }

    fn parse_block(_array_key: &str, block: &Value) -> Option<Vec<Part>> {
        parse_block(block, "block").ok().map(|p| vec![p])
    }

    fn block_keys(kind: &str) -> &'static [&'static str] {
        match kind {
            "toolCall" => &["type", "id", "name", "arguments"],
            _ => &["type"],
        }
    }

    fn build(message: &Message, originals: &mut Originals<'_>) -> Vec<Value> {
        let timestamp = message.timestamp.unwrap_or(0);
        match message.role {
            Role::System => {
                vec![json!({ "role": "system", "content": joined_text(&message.parts) })]
            }
            Role::User | Role::Assistant => {
                let role = message.role.as_str();
                let blocks: Vec<Value> = message
                    .parts
                    .iter()
                    .map(|p| {
                        let kind = if matches!(p, Part::ToolCall { .. }) {
                            "toolCall"
                        } else {
                            ""
                        };
                        originals.block_for(p, || build_block(p), Self::block_keys(kind))
                    })
                    .collect();
                vec![json!({ "role": role, "content": blocks, "timestamp": timestamp })]
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
                        let content: Vec<Value> = if all_text(output) && output.len() > 1 {
                            vec![json!({ "type": "text", "text": joined_text(output) })]
                        } else {
                            output
                                .iter()
                                .map(|o| originals.block_for(o, || build_block(o), &[]))
                                .collect()
                        };
                        Some(json!({
                            "role": "toolResult",
                            "toolCallId": id,
                            "toolName": name.clone().unwrap_or_default(),
                            "content": content,
                            "isError": is_error,
                            "timestamp": timestamp,
                        }))
                    }
                    _ => None,
                })
                .collect(),
        }
    }
}

/// A fresh pi block for `part`.
fn build_block(part: &Part) -> Value {
    match part {
        Part::Text { text } => json!({ "type": "text", "text": text }),
        Part::Reasoning { text, redacted } => {
            let mut block = json!({ "type": "thinking", "thinking": text });
            if *redacted {
                if let Some(o) = block.as_object_mut() {
                    o.insert("redacted".into(), Value::Bool(true));
                }
            }
            block
        }
        Part::ToolCall { id, name, input } => {
            json!({ "type": "toolCall", "id": id, "name": name, "arguments": input })
        }
        Part::File { text: Some(t), .. } => json!({ "type": "text", "text": t }),
        Part::Other { value, .. } => value.clone(),
        Part::ToolResult { output, .. } => {
            json!({ "type": "text", "text": joined_text(output) })
        }
        Part::Image {
            source: ImageSource::Inline(data),
            media_type,
            ..
        } => json!({ "type": "image", "data": data,
            "mimeType": super::media::image_type(media_type.as_deref(), data).unwrap_or("image/png") }),
        Part::Image { .. } | Part::File { .. } => json!({ "type": "text", "text": MEDIA_OMITTED }),
    }
}
