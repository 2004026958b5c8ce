//! Message formats (AI SDK, OpenAI, Anthropic, pi, Claude Code) converted to and from the core's model.
//!
//! Every importer takes the caller's JSON, never panics, and reports bad input as
//! `INVALID_INPUT` with the path of the offending field. Every exporter returns a message the
//! package did not change as the caller's object, exactly.

pub mod ai_sdk;
pub mod anthropic;
pub mod cache_control;
pub mod call_results;
pub mod claude_code;
pub mod continuation;
pub mod continuing_conversation;
pub mod convert;
pub mod detect;
pub mod json_path;
pub mod langchain;
pub mod media;
pub mod memo_line;
pub mod openai;
pub mod outgoing;
pub mod pi;
pub mod pi_session;
pub mod reuse;
pub mod session;
pub mod session_compaction;
pub mod session_context;
pub mod session_file;
pub mod session_handle;
pub mod session_input;
pub mod session_lines;
pub mod session_log;
pub mod session_objects;

use serde_json::Value;

use crate::core::error::Result;
use crate::core::message::Message;

pub use detect::detect;
pub use session::{CompactionRecord, EntryRef, ImportedSession, SessionSource};

pub use crate::core::format::Format;

/// Converting messages of a [`Format`] to and from the core's model.
pub trait Codec {
    /// Imports `messages` (a JSON array) in this format; a known summary at the head of the array
    /// (and the answer to a known summary question there) is marked
    /// ([`crate::core::summary::Recognizer::mark_leading`]).
    fn import(self, messages: &Value) -> Result<Vec<Message>>;
    /// Exports messages in this format (see each adapter's `export`).
    fn export(self, messages: &[Message]) -> Vec<Value>;
}

impl Codec for Format {
    fn import(self, messages: &Value) -> Result<Vec<Message>> {
        let mut out = match self {
            Format::AiSdk => ai_sdk::import(messages),
            Format::OpenAi => openai::import(messages),
            Format::Anthropic => anthropic::import(messages),
            Format::Pi => pi::import(messages),
            Format::LangChain => langchain::import(messages),
        }?;
        crate::core::summary::Recognizer::standard().mark_leading(&mut out);
        Ok(out)
    }

    fn export(self, messages: &[Message]) -> Vec<Value> {
        match self {
            Format::AiSdk => ai_sdk::export(messages),
            Format::OpenAi => openai::export(messages),
            Format::Anthropic => anthropic::export(messages),
            Format::Pi => pi::export(messages),
            Format::LangChain => langchain::export(messages),
        }
    }
}

/// The importer of one message of `format` (errors name the message by `path`).
pub fn message_importer(format: Format) -> fn(&Value, &str) -> Result<Message> {
    match format {
        Format::AiSdk => ai_sdk::import_message,
        Format::OpenAi => openai::import_message,
        Format::Anthropic => anthropic::import_message,
        Format::Pi => pi::import_message,
        Format::LangChain => langchain::import_message,
    }
}

/// The last step of every importer: a user message makes no tool call and a system message holds
/// text only (a provider would reject the one, and the other's blocks could not be rebuilt).
/// Summaries are marked by their position in the array ([`Codec::import`]), not here. `INVALID_INPUT` names the part (its index among the message's
/// parts, which is its index in `content` when the content is an array).
pub(crate) fn settle(message: Message, path: &str) -> Result<Message> {
    use crate::core::error::Error;
    use crate::core::message::{Part, Role};
    let misplaced = match message.role {
        Role::User => message
            .parts
            .iter()
            .position(|p| matches!(p, Part::ToolCall { .. }))
            .map(|i| (i, "a user message cannot make a tool call (tool calls belong in assistant messages)")),
        Role::System => message
            .parts
            .iter()
            .position(|p| !matches!(p, Part::Text { .. }))
            .map(|i| (i, "a system message holds text only")),
        _ => None,
    };
    if let Some((i, why)) = misplaced {
        return Err(Error::invalid_input(format!("{path}.content[{i}]"), why));
    }
    Ok(message)
}

/// Imports `messages` in the named format (`"auto"` detects it) and returns the format used.
pub fn import_named(messages: &Value, format: &str) -> Result<(Format, Vec<Message>)> {
    let format = match Format::parse(format)? {
        Some(f) => f,
        None => detect(messages)?,
    };
    Ok((format, format.import(messages)?))
}
