//! `format: "auto"`: deciding the format of a message array by unambiguous markers.
//!
//! Strong markers (first found per format wins):
//! - openai: `tool_calls`, `tool_call_id`, `function_call`, `refusal`, role `developer`, parts
//!   `image_url` / `input_audio` / `refusal`, a `file` part with a `file` object;
//! - anthropic: blocks `tool_use`, `tool_result`, `redacted_thinking`, `document`,
//!   `server_tool_use`, `*_tool_result`, `image` with `source`, `thinking` with `signature`,
//!   `cache_control` on a block;
//! - ai-sdk: parts `tool-call`, `tool-result`, `reasoning`, `image` with `image`, `file` with
//!   `data`, `providerOptions`, a `tool` message with array content and no `tool_call_id`;
//! - pi: roles `toolResult`, `bashExecution`, `custom`, `hookMessage`, `branchSummary`,
//!   `compactionSummary`; blocks `toolCall`, `image` with `mimeType`, `thinking` with
//!   `thinkingSignature`; `stopReason` on a message.
//!
//! - langchain: decided first, by any message with a LangChain `type` (`human`, `ai`, `system`,
//!   `tool`, ...) and no `role`.
//!
//! Strong markers of two formats: `INVALID_INPUT` naming both markers and their paths.
//! No strong marker: pi when some message has a numeric `timestamp` (pi's own field), else
//! `ai-sdk`. Without markers the array holds only text in shapes the AI SDK, OpenAI and Anthropic
//! adapters read identically and build identically (`{ role, content: string }`), so the choice
//! does not change the output.

use serde_json::{Map, Value};

use crate::core::error::{Error, Result};

use super::json_path::{as_array, field, index};
use super::Format;

/// A marker found: the format it marks, where, and what it is.
struct Marker {
    format: Format,
    path: String,
    what: String,
}

/// Detects the format of `messages` (see the module documentation for the rules).
pub fn detect(messages: &Value) -> Result<Format> {
    let items = as_array(messages, "messages")?;
    // LangChain messages have a `type` and no `role`, unlike every other format's.
    if items.iter().any(super::langchain::is_langchain_message) {
        return Ok(Format::LangChain);
    }
    let mut found: Vec<Marker> = Vec::new();
    let mut pi_timestamp = false;
    for (i, message) in items.iter().enumerate() {
        let Some(obj) = message.as_object() else {
            continue;
        };
        let path = index("messages", i);
        if matches!(obj.get("timestamp"), Some(Value::Number(_))) {
            pi_timestamp = true;
        }
        message_markers(obj, &path, &mut found);
        for key in ["content"] {
            if let Some(Value::Array(blocks)) = obj.get(key) {
                let content_path = field(&path, key);
                for (j, block) in blocks.iter().enumerate() {
                    if let Some(b) = block.as_object() {
                        block_markers(b, &index(&content_path, j), &mut found);
                        // Anthropic tool results nest blocks.
                        if let Some(Value::Array(inner)) = b.get("content") {
                            let inner_path = field(&index(&content_path, j), "content");
                            for (k, ib) in inner.iter().enumerate() {
                                if let Some(ib) = ib.as_object() {
                                    block_markers(ib, &index(&inner_path, k), &mut found);
                                }
                            }
                        }
                    }
                }
            }
        }
        if let Some(first) = found.first() {
            if let Some(other) = found.iter().find(|m| m.format != first.format) {
                return Err(Error::invalid_input(
                    other.path.clone(),
                    format!(
                        "ambiguous message format: {} at {} marks \"{}\" but {} at {} marks \"{}\"; pass the format explicitly",
                        first.what,
                        first.path,
                        first.format.as_str(),
                        other.what,
                        other.path,
                        other.format.as_str()
                    ),
                ));
            }
        }
    }
    Ok(match found.first() {
        Some(m) => m.format,
        None if pi_timestamp => Format::Pi,
        None => Format::AiSdk,
    })
}

fn push(found: &mut Vec<Marker>, format: Format, path: String, what: String) {
    // One marker per format is enough to decide and to explain.
    if !found.iter().any(|m| m.format == format) {
        found.push(Marker { format, path, what });
    }
}

fn message_markers(obj: &Map<String, Value>, path: &str, found: &mut Vec<Marker>) {
    for key in ["tool_calls", "tool_call_id", "function_call", "refusal"] {
        if obj.get(key).is_some_and(|v| !v.is_null()) {
            push(
                found,
                Format::OpenAi,
                field(path, key),
                format!("field \"{key}\""),
            );
        }
    }
    if obj.contains_key("providerOptions") {
        push(
            found,
            Format::AiSdk,
            field(path, "providerOptions"),
            "field \"providerOptions\"".into(),
        );
    }
    if obj.contains_key("stopReason") {
        push(
            found,
            Format::Pi,
            field(path, "stopReason"),
            "field \"stopReason\"".into(),
        );
    }
    let role = obj.get("role").and_then(Value::as_str).unwrap_or("");
    let role_path = field(path, "role");
    match role {
        "developer" => push(
            found,
            Format::OpenAi,
            role_path,
            "role \"developer\"".into(),
        ),
        "toolResult" | "bashExecution" | "custom" | "hookMessage" | "branchSummary"
        | "compactionSummary" => push(found, Format::Pi, role_path, format!("role \"{role}\"")),
        "tool"
            if !obj.contains_key("tool_call_id")
                && obj.get("content").is_some_and(Value::is_array) =>
        {
            push(
                found,
                Format::AiSdk,
                role_path,
                "role \"tool\" without tool_call_id".into(),
            )
        }
        _ => {}
    }
}

fn block_markers(b: &Map<String, Value>, path: &str, found: &mut Vec<Marker>) {
    let kind = b.get("type").and_then(Value::as_str).unwrap_or("");
    let type_path = field(path, "type");
    let what = format!("block type \"{kind}\"");
    match kind {
        "image_url" | "input_audio" | "refusal" => push(found, Format::OpenAi, type_path, what),
        "file" if b.get("file").is_some_and(Value::is_object) => push(
            found,
            Format::OpenAi,
            type_path,
            "block \"file\" with \"file\"".into(),
        ),
        "file" if b.contains_key("data") => push(
            found,
            Format::AiSdk,
            type_path,
            "block \"file\" with \"data\"".into(),
        ),
        "tool-call" | "tool-result" | "reasoning" | "redacted-reasoning" => {
            push(found, Format::AiSdk, type_path, what)
        }
        "tool_use" | "tool_result" | "redacted_thinking" | "document" | "server_tool_use" => {
            push(found, Format::Anthropic, type_path, what)
        }
        k if k.ends_with("_tool_result") => push(found, Format::Anthropic, type_path, what),
        "toolCall" => push(found, Format::Pi, type_path, what),
        "image" if b.contains_key("image") => push(
            found,
            Format::AiSdk,
            type_path,
            "block \"image\" with \"image\"".into(),
        ),
        "image" if b.contains_key("source") => push(
            found,
            Format::Anthropic,
            type_path,
            "block \"image\" with \"source\"".into(),
        ),
        "image" if b.contains_key("mimeType") => push(
            found,
            Format::Pi,
            type_path,
            "block \"image\" with \"mimeType\"".into(),
        ),
        "thinking" if b.contains_key("signature") => push(
            found,
            Format::Anthropic,
            field(path, "signature"),
            "block \"thinking\" with \"signature\"".into(),
        ),
        "thinking" if b.contains_key("thinkingSignature") => push(
            found,
            Format::Pi,
            field(path, "thinkingSignature"),
            "block \"thinking\" with \"thinkingSignature\"".into(),
        ),
        _ => {}
    }
    if b.contains_key("cache_control") {
        push(
            found,
            Format::Anthropic,
            field(path, "cache_control"),
            "field \"cache_control\"".into(),
        );
    }
    if b.contains_key("providerOptions") {
        push(
            found,
            Format::AiSdk,
            field(path, "providerOptions"),
            "field \"providerOptions\"".into(),
        );
    }
}
