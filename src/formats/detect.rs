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
//!
//! That last choice is provisional ([`Detected::decided`] is false): a handle that keeps reading
//! messages (a `Compactor`, a `Session`) takes such an array as `ai-sdk` for now and decides with
//! the first messages that show their format (a marker, LangChain's `type`, pi's `timestamp`).

use serde_json::{Map, Value};

use crate::core::error::{Error, Result};

use super::json_path::{as_array, field, index};
use super::Format;

/// A marker found: the format it marks, where (and in which message), and what it is.
struct Marker {
    format: Format,
    message: usize,
    path: String,
    what: String,
}

/// A detected format, and whether the messages showed it (`false`: nothing marked a format, and
/// `ai-sdk` is taken provisionally).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Detected {
    pub format: Format,
    pub decided: bool,
    /// The index of the first message that showed it (`None` when undecided).
    pub at: Option<usize>,
}

/// Detects the format of `messages` (see the module documentation for the rules).
pub fn detect(messages: &Value) -> Result<Format> {
    detect_decided(messages).map(|d| d.format)
}

/// [`detect`], saying whether the messages showed their format.
pub fn detect_decided(messages: &Value) -> Result<Detected> {
    let items: Vec<(usize, &Value)> = as_array(messages, "messages")?.iter().enumerate().collect();
    detect_indexed_decided(&items)
}

/// [`detect`] over the messages of an array given one by one (`messages[i]` in paths is the
/// `i`th). Of each message it reads only which fields it has, its `role` and `type` strings, the
/// fields of the blocks of its `content` array and of their own `content` arrays, and those
/// blocks' `type` strings; of any other value, only its kind (string, number, object...).
/// `trimMessages` sends it no more than that (the shapes of `onDemand` in `src/wasm/plain.rs`).
pub fn detect_messages(messages: &[&Value]) -> Result<Format> {
    detect_messages_decided(messages).map(|d| d.format)
}

/// [`detect_messages`], saying whether the messages showed their format.
pub fn detect_messages_decided(messages: &[&Value]) -> Result<Detected> {
    let indexed: Vec<(usize, &Value)> = messages.iter().copied().enumerate().collect();
    detect_indexed_decided(&indexed)
}

/// [`detect_messages`] over messages paired with their index in the array, in order. A message
/// whose shape (what detection reads) repeats an earlier one's may be left out: it finds no
/// marker the earlier one did not, so the format, and an error's markers and paths, are the same.
pub fn detect_indexed(messages: &[(usize, &Value)]) -> Result<Format> {
    detect_indexed_decided(messages).map(|d| d.format)
}

/// [`detect_indexed_decided`] over the shapes the on-demand view of a message array gives
/// (`onDemand` in `js/snippets/plain.js`): `shapes`, the JSON array of the distinct shapes, and
/// `order[i]`, the shape of message `i` (shapes are numbered in the order they first appear).
/// `None` when the text does not parse (it held a lone surrogate): detect from the whole array.
pub fn detect_shapes(shapes: &str, order: &[u32]) -> Option<Result<Detected>> {
    let Ok(Value::Array(shapes)) = serde_json::from_str::<Value>(shapes) else {
        return None;
    };
    // Each distinct shape once, at the first message that has it.
    let mut first: Vec<(usize, &Value)> = Vec::with_capacity(shapes.len());
    for (i, &k) in order.iter().enumerate() {
        if k as usize == first.len() {
            first.push((i, shapes.get(k as usize).unwrap_or(&Value::Null)));
        }
    }
    Some(detect_indexed_decided(&first))
}

/// [`detect_indexed`], saying whether the messages showed their format.
pub fn detect_indexed_decided(messages: &[(usize, &Value)]) -> Result<Detected> {
    let decided = |format, at| Detected {
        format,
        decided: true,
        at: Some(at),
    };
    // LangChain messages have a `type` and no `role`, unlike every other format's.
    if let Some((i, _)) = messages
        .iter()
        .find(|(_, m)| super::langchain::is_langchain_message(m))
    {
        return Ok(decided(Format::LangChain, *i));
    }
    let mut found: Vec<Marker> = Vec::new();
    let mut pi_timestamp = None;
    for &(i, message) in messages {
        let Some(obj) = message.as_object() else {
            continue;
        };
        // Paths are built only for the markers recorded.
        let path = || index("messages", i);
        if matches!(obj.get("timestamp"), Some(Value::Number(_))) {
            pi_timestamp = pi_timestamp.or(Some(i));
        }
        let before = found.len();
        message_markers(obj, &path, &mut found);
        if let Some(Value::Array(blocks)) = obj.get("content") {
            for (j, block) in blocks.iter().enumerate() {
                if let Some(b) = block.as_object() {
                    let block_path = || index(&field(&path(), "content"), j);
                    block_markers(b, &block_path, &mut found);
                    // Anthropic tool results nest blocks.
                    if let Some(Value::Array(inner)) = b.get("content") {
                        for (k, ib) in inner.iter().enumerate() {
                            if let Some(ib) = ib.as_object() {
                                let inner_path = || index(&field(&block_path(), "content"), k);
                                block_markers(ib, &inner_path, &mut found);
                            }
                        }
                    }
                }
            }
        }
        for m in found.iter_mut().skip(before) {
            m.message = i;
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
    Ok(match (found.first(), pi_timestamp) {
        (Some(m), _) => decided(m.format, m.message),
        (None, Some(i)) => decided(Format::Pi, i),
        (None, None) => Detected {
            format: Format::AiSdk,
            decided: false,
            at: None,
        },
    })
}

/// Records a marker of `format` unless one is recorded: one per format is enough to decide and to
/// explain. The path and the description are built only then.
fn push(
    found: &mut Vec<Marker>,
    format: Format,
    path: impl FnOnce() -> String,
    what: impl FnOnce() -> String,
) {
    if !found.iter().any(|m| m.format == format) {
        found.push(Marker {
            format,
            message: 0,
            path: path(),
            what: what(),
        });
    }
}

fn message_markers(obj: &Map<String, Value>, path: &dyn Fn() -> String, found: &mut Vec<Marker>) {
    for key in ["tool_calls", "tool_call_id", "function_call", "refusal"] {
        if obj.get(key).is_some_and(|v| !v.is_null()) {
            push(
                found,
                Format::OpenAi,
                || field(&path(), key),
                || format!("field \"{key}\""),
            );
        }
    }
    if obj.contains_key("providerOptions") {
        push(
            found,
            Format::AiSdk,
            || field(&path(), "providerOptions"),
            || "field \"providerOptions\"".into(),
        );
    }
    if obj.contains_key("stopReason") {
        push(
            found,
            Format::Pi,
            || field(&path(), "stopReason"),
            || "field \"stopReason\"".into(),
        );
    }
    let role = obj.get("role").and_then(Value::as_str).unwrap_or("");
    let role_path = || field(&path(), "role");
    match role {
        "developer" => push(found, Format::OpenAi, role_path, || {
            "role \"developer\"".into()
        }),
        "toolResult" | "bashExecution" | "custom" | "hookMessage" | "branchSummary"
        | "compactionSummary" => push(found, Format::Pi, role_path, || format!("role \"{role}\"")),
        "tool"
            if !obj.contains_key("tool_call_id")
                && obj.get("content").is_some_and(Value::is_array) =>
        {
            push(found, Format::AiSdk, role_path, || {
                "role \"tool\" without tool_call_id".into()
            })
        }
        _ => {}
    }
}

fn block_markers(b: &Map<String, Value>, path: &dyn Fn() -> String, found: &mut Vec<Marker>) {
    let kind = b.get("type").and_then(Value::as_str).unwrap_or("");
    let type_path = || field(&path(), "type");
    let what = || format!("block type \"{kind}\"");
    match kind {
        "image_url" | "input_audio" | "refusal" => push(found, Format::OpenAi, type_path, what),
        "file" if b.get("file").is_some_and(Value::is_object) => {
            push(found, Format::OpenAi, type_path, || {
                "block \"file\" with \"file\"".into()
            })
        }
        "file" if b.contains_key("data") => push(found, Format::AiSdk, type_path, || {
            "block \"file\" with \"data\"".into()
        }),
        "tool-call" | "tool-result" | "reasoning" | "redacted-reasoning" => {
            push(found, Format::AiSdk, type_path, what)
        }
        "tool_use" | "tool_result" | "redacted_thinking" | "document" | "server_tool_use" => {
            push(found, Format::Anthropic, type_path, what)
        }
        k if k.ends_with("_tool_result") => push(found, Format::Anthropic, type_path, what),
        "toolCall" => push(found, Format::Pi, type_path, what),
        "image" if b.contains_key("image") => push(found, Format::AiSdk, type_path, || {
            "block \"image\" with \"image\"".into()
        }),
        "image" if b.contains_key("source") => push(found, Format::Anthropic, type_path, || {
            "block \"image\" with \"source\"".into()
        }),
        "image" if b.contains_key("mimeType") => push(found, Format::Pi, type_path, || {
            "block \"image\" with \"mimeType\"".into()
        }),
        "thinking" if b.contains_key("signature") => push(
            found,
            Format::Anthropic,
            || field(&path(), "signature"),
            || "block \"thinking\" with \"signature\"".into(),
        ),
        "thinking" if b.contains_key("thinkingSignature") => push(
            found,
            Format::Pi,
            || field(&path(), "thinkingSignature"),
            || "block \"thinking\" with \"thinkingSignature\"".into(),
        ),
        _ => {}
    }
    if b.contains_key("cache_control") {
        push(
            found,
            Format::Anthropic,
            || field(&path(), "cache_control"),
            || "field \"cache_control\"".into(),
        );
    }
    if b.contains_key("providerOptions") {
        push(
            found,
            Format::AiSdk,
            || field(&path(), "providerOptions"),
            || "field \"providerOptions\"".into(),
        );
    }
}
