//! OpenAI chat completions messages <-> the core model.
//!
//! Roles `system` and `developer` (both [`Role::System`]), `user`, `assistant` (content string,
//! `null` or text/refusal parts; `tool_calls` with JSON-string `arguments`; `refusal`;
//! `reasoning_content` as sent by compatible providers) and `tool` (`tool_call_id`). User parts:
//! `text`, `image_url`, `file`, `input_audio` (kept as [`Part::Other`]). The deprecated
//! `function` role is rejected with a message saying so.

use serde_json::{json, Map, Value};

use crate::core::error::{Error, Result};
use crate::core::message::{Message, Original, Part, Role};

use super::json_path::{
    as_object, block_type, each_message, field, index, opt_array, opt_str, pinned_flag, req_object,
    req_str, type_name,
};
use super::media::{data_url, file_part, image_part, inline_of, url_of};
use super::reuse::{self, all_text, joined_text, Codec, Originals, MEDIA_OMITTED};

/// Imports an array of chat completions messages. Errors name the offending field
/// (`messages[1].tool_calls[0].function.name`).
pub fn import(messages: &Value) -> Result<Vec<Message>> {
    each_message(messages, import_message)
}

/// Exports messages as chat completions messages: unchanged ones verbatim, changed ones keeping
/// their original's other fields, new ones built. A `Tool` message holding several results
/// becomes one `tool` message per result.
pub fn export(messages: &[Message]) -> Vec<Value> {
    reuse::export::<OpenAi>(messages)
}

/// Parses one chat completions message at `path`.
pub fn import_message(value: &Value, path: &str) -> Result<Message> {
    let obj = as_object(value, path)?;
    let role = match req_str(obj, "role", path)? {
        "system" | "developer" => Role::System,
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "tool" => Role::Tool,
        "function" => {
            return Err(Error::invalid_input(
                field(path, "role"),
                "the deprecated \"function\" role is not supported: use \"tool\" messages with tool_call_id",
            ))
        }
        other => {
            return Err(Error::invalid_input(
                field(path, "role"),
                format!("unknown role \"{other}\" (expected system, developer, user, assistant or tool)"),
            ))
        }
    };
    let mut parts = Vec::new();
    if role == Role::Assistant {
        if let Some(text) = opt_str(obj, "reasoning_content", path)? {
            parts.push(Part::Reasoning {
                text: text.to_string(),
                redacted: false,
            });
        }
    }
    let content_path = field(path, "content");
    match obj.get("content") {
        Some(Value::String(s)) => {
            if !(s.is_empty() && role == Role::Assistant) {
                parts.push(Part::text(s.clone()));
            }
        }
        Some(Value::Array(items)) => {
            for (j, item) in items.iter().enumerate() {
                parts.push(parse_content_part(item, &index(&content_path, j))?);
            }
        }
        None | Some(Value::Null) if role == Role::Assistant => {}
        Some(other) => {
            return Err(Error::invalid_input(
                content_path,
                format!(
                    "expected a string or an array of parts, got {}",
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
    }
    if role == Role::Assistant {
        if let Some(refusal) = opt_str(obj, "refusal", path)? {
            parts.push(Part::text(refusal));
        }
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
            name: None,
            output,
            is_error: false,
        });
    }
    let mut message = Message::new(role, parts);
    message.pinned = pinned_flag(obj);
    message.original = Some(Original::new(value));
    super::settle(message, path)
}

fn parse_content_part(value: &Value, path: &str) -> Result<Part> {
    let obj = as_object(value, path)?;
    Ok(match block_type(obj, path)? {
        "text" => Part::text(req_str(obj, "text", path)?),
        "refusal" => Part::text(req_str(obj, "refusal", path)?),
        "image_url" => {
            let inner_path = field(path, "image_url");
            let inner = req_object(obj, "image_url", path)?;
            let url = Value::String(req_str(inner, "url", &inner_path)?.to_string());
            image_part(&url, None, opt_str(inner, "detail", &inner_path)?)
        }
        "file" => {
            let inner_path = field(path, "file");
            let inner = req_object(obj, "file", path)?;
            let name = opt_str(inner, "filename", &inner_path)?;
            match (
                opt_str(inner, "file_data", &inner_path)?,
                opt_str(inner, "file_id", &inner_path)?,
            ) {
                (Some(data), _) => file_part(&Value::String(data.to_string()), None, name),
                (None, Some(id)) => Part::File {
                    media_type: None,
                    name: name.map(str::to_string),
                    source: crate::core::message::ImageSource::FileId(id.to_string()),
                    text: None,
                },
                (None, None) => file_part(&Value::Null, None, name),
            }
        }
        other => Part::Other {
            kind: other.to_string(),
            value: value.clone(),
        },
    })
}

fn parse_tool_call(value: &Value, path: &str) -> Result<Part> {
    let obj = as_object(value, path)?;
    let id = req_str(obj, "id", path)?.to_string();
    let function_path = field(path, "function");
    let function = req_object(obj, "function", path)?;
    let name = req_str(function, "name", &function_path)?.to_string();
    let arguments = req_str(function, "arguments", &function_path)?;
    Ok(Part::ToolCall {
        id,
        name,
        input: parse_arguments(arguments),
    })
}

/// The argument string parsed as JSON; a string that is not JSON stays a JSON string.
pub fn parse_arguments(arguments: &str) -> Value {
    serde_json::from_str(arguments).unwrap_or_else(|_| Value::String(arguments.to_string()))
}

/// The inverse of [`parse_arguments`].
pub fn arguments_string(input: &Value) -> String {
    match input {
        Value::String(s) if serde_json::from_str::<Value>(s).is_err() => s.clone(),
        other => other.to_string(),
    }
}

struct OpenAi;

impl Codec for OpenAi {
    const MESSAGE_KEYS: &'static [&'static str] = &[
        "role",
        "content",
        "tool_calls",
        "tool_call_id",
        "refusal",
        "reasoning_content",
    ];
    const BLOCK_ARRAYS: &'static [&'static str] = &["content", "tool_calls"];

    fn import_message(value: &Value, path: &str) -> Result<Message> {
        import_message(value, path)
    }

    fn parse_block(array_key: &str, block: &Value) -> Option<Vec<Part>> {
        let part = if array_key == "tool_calls" {
            parse_tool_call(block, "block")
        } else {
            parse_content_part(block, "block")
        };
        part.ok().map(|p| vec![p])
    }

    fn block_keys(_kind: &str) -> &'static [&'static str] {
        &["id", "type", "function"]
    }

    fn build(message: &Message, originals: &mut Originals<'_>) -> Vec<Value> {
        match message.role {
            Role::System => {
                let role = match message.original.as_ref().and_then(|o| o.get("role")) {
                    Some(Value::String(r)) if r == "developer" => "developer",
                    _ => "system",
                };
                vec![json!({ "role": role, "content": joined_text(&message.parts) })]
            }
            Role::User => {
                vec![json!({ "role": "user", "content": content(&message.parts, originals) })]
            }
            Role::Assistant => vec![build_assistant(message, originals)],
            Role::Tool => build_tool_results(message),
        }
    }
}

/// One `tool` message per result. The API takes only text in a `tool` message: a result's images
/// and files go into one `user` message after the tool messages (each introduced by the call id),
/// and the tool message says where they are.
fn build_tool_results(message: &Message) -> Vec<Value> {
    let mut out = Vec::new();
    let mut attached: Vec<Value> = Vec::new();
    for part in &message.parts {
        let Part::ToolResult { id, output, .. } = part else {
            continue;
        };
        let (text, media): (Vec<&Part>, Vec<&Part>) =
            output.iter().partition(|p| matches!(p, Part::Text { .. }));
        let mut body: Vec<String> = text
            .iter()
            .filter_map(|p| match p {
                Part::Text { text } => Some(text.clone()),
                _ => None,
            })
            .collect();
        if !media.is_empty() {
            body.push(format!(
                "[{} attachment(s) of this result follow in the next user message]",
                media.len()
            ));
            attached.push(
                json!({ "type": "text", "text": format!("Attachments of tool result {id}:") }),
            );
            attached.extend(media.into_iter().map(build_part));
        }
        out.push(json!({ "role": "tool", "tool_call_id": id, "content": body.join("\n") }));
    }
    if !attached.is_empty() {
        out.push(json!({ "role": "user", "content": attached }));
    }
    out
}

/// A string when all parts are text, else an array of parts.
fn content(parts: &[Part], originals: &mut Originals<'_>) -> Value {
    if all_text(parts) {
        return Value::String(joined_text(parts));
    }
    Value::Array(
        parts
            .iter()
            .map(|p| originals.block_for(p, || build_part(p), &[]))
            .collect(),
    )
}

fn build_part(part: &Part) -> Value {
    match part {
        Part::Text { text } => json!({ "type": "text", "text": text }),
        Part::Image {
            source,
            detail,
            media_type,
            ..
        } => match url_of(source)
            .map(str::to_string)
            .or_else(|| inline_of(source).map(|d| data_url(media_type.as_deref(), d)))
        {
            Some(url) => {
                let mut inner = Map::new();
                inner.insert("url".into(), Value::String(url));
                if let Some(d) = detail {
                    inner.insert("detail".into(), Value::String(d.clone()));
                }
                json!({ "type": "image_url", "image_url": inner })
            }
            None => json!({ "type": "text", "text": MEDIA_OMITTED }),
        },
        Part::File {
            source: crate::core::message::ImageSource::FileId(id),
            ..
        } => json!({ "type": "file", "file": { "file_id": id } }),
        Part::File { text: Some(t), .. } => json!({ "type": "text", "text": t }),
        Part::File {
            source: crate::core::message::ImageSource::Inline(data),
            media_type,
            name,
            ..
        } => {
            let mut file = Map::new();
            file.insert(
                "file_data".into(),
                Value::String(data_url(media_type.as_deref(), data)),
            );
            if let Some(n) = name {
                file.insert("filename".into(), Value::String(n.clone()));
            }
            json!({ "type": "file", "file": file })
        }
        Part::Other { value, .. } => value.clone(),
        _ => json!({ "type": "text", "text": MEDIA_OMITTED }),
    }
}

fn build_assistant(message: &Message, originals: &mut Originals<'_>) -> Value {
    let mut obj = Map::new();
    obj.insert("role".into(), Value::String("assistant".into()));
    let reasoning: Vec<&str> = message
        .parts
        .iter()
        .filter_map(|p| match p {
            Part::Reasoning { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    let visible: Vec<Part> = message
        .parts
        .iter()
        .filter(|p| !matches!(p, Part::ToolCall { .. } | Part::Reasoning { .. }))
        .cloned()
        .collect();
    let calls: Vec<Value> = message
        .parts
        .iter()
        .filter(|p| matches!(p, Part::ToolCall { .. }))
        .map(|p| originals.block_for(p, || build_tool_call(p), &["id", "type", "function"]))
        .collect();
    let content_value = if visible.is_empty() {
        Value::Null
    } else {
        content(&visible, originals)
    };
    obj.insert("content".into(), content_value);
    if !reasoning.is_empty() {
        obj.insert(
            "reasoning_content".into(),
            Value::String(reasoning.join("\n")),
        );
    }
    if !calls.is_empty() {
        obj.insert("tool_calls".into(), Value::Array(calls));
    }
    Value::Object(obj)
}

fn build_tool_call(part: &Part) -> Value {
    match part {
        Part::ToolCall { id, name, input } => json!({
            "id": id,
            "type": "function",
            "function": { "name": name, "arguments": arguments_string(input) },
        }),
        _ => Value::Null,
    }
}
