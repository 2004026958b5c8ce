//! Messages of one format written in another (`convertMessages`), and messages read in a given or
//! detected format ([`import_in`]).
//!
//! Within one format, conversion is the identity: every message comes back as it was. Across
//! formats the messages are rebuilt from the core's model, with what the model alone does not keep:
//! - inline media (base64 images and files) is carried over (the import keeps the payload);
//! - a tool result's tool name, which OpenAI's tool messages lack, is taken from its call;
//! - tool results carried in a user message (Anthropic) become a tool message of their own, ahead
//!   of the message's other content, for the formats that have tool messages.
//!
//! Blocks of a kind the package does not know (`Part::Other`) belong to their format and are left
//! out; the count is returned so that the caller can say so.
//!
//! A tool call that a later message follows without its result (an aborted turn) is answered with a
//! synthetic error result, as pi does before sending such a history: providers reject unanswered
//! calls (the AI SDK throws `MissingToolResultsError`). The calls of the last assistant message
//! are pending, not unanswered, and stay as they are. [`ConvertOptions::answer_unanswered`] off
//! leaves every call as it is; the answered ids are returned.

use std::collections::HashMap;

use serde_json::Value;

use crate::core::error::{Error, Result};
use crate::core::message::{Message, Part, Role};
use crate::core::repair::answer_unanswered;

use super::media::keeping_inline_data;
use super::{detect, Codec, Format};

/// The result of a conversion.
#[derive(Debug)]
pub struct Converted {
    /// The format the messages were read in (detected when not given).
    pub from: Format,
    /// The messages in the target format.
    pub messages: Vec<Value>,
    /// Blocks of a kind only the source format knows, left out.
    pub dropped_blocks: usize,
    /// Ids of the calls answered with a synthetic error result, in call order.
    pub answered: Vec<String>,
}

/// How [`convert_with`] treats the history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConvertOptions {
    /// Answer unanswered tool calls with a synthetic error result (see the module documentation).
    pub answer_unanswered: bool,
}

impl Default for ConvertOptions {
    fn default() -> Self {
        ConvertOptions {
            answer_unanswered: true,
        }
    }
}

/// `convertMessages`' `{ from?, to }` (options already checked for unknown keys): the source
/// format (`None`: detect it) and the target. Errors name the field (`options.to`...).
pub fn parse_formats(options: &Value) -> Result<(Option<Format>, Format)> {
    let name = |key: &str| -> Result<Option<Format>> {
        match options.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Format::parse(s)
                .map_err(|e| Error::invalid_option(format!("options.{key}"), e.message)),
            Some(_) => Err(Error::invalid_option(
                format!("options.{key}"),
                "a format name: \"ai-sdk\", \"openai\", \"anthropic\" or \"pi\"",
            )),
        }
    };
    let from = name("from")?;
    let to = name("to")?.ok_or_else(|| {
        Error::invalid_option(
            "options.to",
            "convertMessages needs the target format: { to: \"ai-sdk\" | \"openai\" | \"anthropic\" | \"pi\" }",
        )
    })?;
    Ok((from, to))
}

impl ConvertOptions {
    /// `convertMessages`' `unansweredCalls` (`"answer"`, the default, or `"keep"`).
    pub fn parse(options: &Value) -> Result<ConvertOptions> {
        let answer_unanswered =
            match options.get("unansweredCalls") {
                None | Some(Value::Null) => true,
                Some(Value::String(s)) if s == "answer" => true,
                Some(Value::String(s)) if s == "keep" => false,
                Some(_) => return Err(Error::invalid_option(
                    "options.unansweredCalls",
                    "unansweredCalls is \"answer\" (a synthetic error result for each) or \"keep\"",
                )),
            };
        Ok(ConvertOptions { answer_unanswered })
    }
}

/// Reads `messages` (a JSON array) in `format`, or in the format detected from them when `None`:
/// the format and the messages in the core's model (what every call that takes messages does).
pub fn import_in(messages: &Value, format: Option<Format>) -> Result<(Format, Vec<Message>)> {
    let format = match format {
        Some(f) => f,
        None => detect(messages)?,
    };
    Ok((format, format.import(messages)?))
}

/// Converts `messages` (a JSON array in `from`, or the detected format) to `to`, answering
/// unanswered calls.
pub fn convert(messages: &Value, from: Option<Format>, to: Format) -> Result<Converted> {
    convert_with(messages, from, to, ConvertOptions::default())
}

/// Converts `messages` (a JSON array in `from`, or the detected format) to `to`.
pub fn convert_with(
    messages: &Value,
    from: Option<Format>,
    to: Format,
    options: ConvertOptions,
) -> Result<Converted> {
    let from = match from {
        Some(f) => f,
        None => detect(messages)?,
    };
    let answer = |messages: Vec<Message>| {
        if options.answer_unanswered {
            answer_unanswered(messages)
        } else {
            (messages, Vec::new())
        }
    };
    if from == to {
        let (imported, answered) = answer(from.import(messages)?);
        return Ok(Converted {
            from,
            messages: to.export(&imported),
            dropped_blocks: 0,
            answered,
        });
    }
    let imported = keeping_inline_data(|| from.import(messages))?;
    let mut dropped_blocks = 0;
    let mut names: HashMap<String, String> = HashMap::new();
    let mut portable = Vec::with_capacity(imported.len());
    for mut message in imported {
        message.original = None;
        dropped_blocks += strip_foreign(&mut message.parts);
        for part in &mut message.parts {
            match part {
                Part::ToolCall { id, name, .. } => {
                    names.insert(id.clone(), name.clone());
                }
                Part::ToolResult { id, name, .. } if name.is_none() => {
                    *name = names.get(id).cloned();
                }
                _ => {}
            }
        }
        if message.parts.is_empty() {
            continue;
        }
        portable.extend(split_results(message, to));
    }
    let (portable, answered) = answer(portable);
    Ok(Converted {
        from,
        messages: to.export(&portable),
        dropped_blocks,
        answered,
    })
}

/// Removes the blocks only the source format knows (also inside tool results); returns how many.
fn strip_foreign(parts: &mut Vec<Part>) -> usize {
    let before = parts.len();
    parts.retain(|p| !matches!(p, Part::Other { .. }));
    let mut dropped = before - parts.len();
    for part in parts.iter_mut() {
        if let Part::ToolResult { output, .. } = part {
            dropped += strip_foreign(output);
        }
    }
    dropped
}

/// A user message carrying tool results, for a format with tool messages: the results as a tool
/// message, then the rest of the user message (if any).
fn split_results(message: Message, to: Format) -> Vec<Message> {
    let carries = message.role == Role::User
        && message
            .parts
            .iter()
            .any(|p| matches!(p, Part::ToolResult { .. }));
    if !carries || to == Format::Anthropic {
        return vec![message];
    }
    let (results, rest): (Vec<Part>, Vec<Part>) = message
        .parts
        .iter()
        .cloned()
        .partition(|p| matches!(p, Part::ToolResult { .. }));
    let mut tool = message.clone();
    tool.role = Role::Tool;
    tool.parts = results.into();
    tool.summary = false;
    let mut out = vec![tool];
    if !rest.is_empty() {
        let mut user = message;
        user.parts = rest.into();
        out.push(user);
    }
    out
}
