//! Message formats (AI SDK, OpenAI, Anthropic, pi, Claude Code) converted to and from the core's model.
//!
//! Every importer takes the caller's JSON, never panics, and reports bad input as
//! `INVALID_INPUT` with the path of the offending field. Every exporter returns a message the
//! package did not change as the caller's object, exactly.

pub mod ai_sdk;
pub mod anthropic;
pub mod cache_control;
pub mod claude_code;
pub mod detect;
pub mod json_path;
pub mod media;
pub mod openai;
pub mod pi;
pub mod pi_session;
pub mod reuse;
pub mod session;
pub mod session_log;

use serde_json::Value;

use crate::core::error::{Error, Result};
use crate::core::message::Message;

pub use detect::detect;
pub use session::{CompactionRecord, EntryRef, ImportedSession, SessionSource};

/// A message format of the caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// Vercel AI SDK v5 `ModelMessage`.
    AiSdk,
    /// OpenAI chat completions.
    OpenAi,
    /// Anthropic messages API.
    Anthropic,
    /// pi agent messages.
    Pi,
}

impl Format {
    /// The name as the API spells it (`"ai-sdk"`, `"openai"`, `"anthropic"`, `"pi"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Format::AiSdk => "ai-sdk",
            Format::OpenAi => "openai",
            Format::Anthropic => "anthropic",
            Format::Pi => "pi",
        }
    }

    /// Parses a format name; `"auto"` gives `None` (detect from the messages).
    pub fn parse(name: &str) -> Result<Option<Format>> {
        match name {
            "ai-sdk" => Ok(Some(Format::AiSdk)),
            "openai" => Ok(Some(Format::OpenAi)),
            "anthropic" => Ok(Some(Format::Anthropic)),
            "pi" => Ok(Some(Format::Pi)),
            "auto" => Ok(None),
            other => Err(Error::invalid_option(
                "format",
                format!(
                    "unknown format \"{other}\" (expected \"ai-sdk\", \"openai\", \"anthropic\", \"pi\" or \"auto\")"
                ),
            )),
        }
    }

    /// Imports `messages` (a JSON array) in this format; known summaries (and the answers to
    /// known summary questions) are marked.
    pub fn import(self, messages: &Value) -> Result<Vec<Message>> {
        let mut out = match self {
            Format::AiSdk => ai_sdk::import(messages),
            Format::OpenAi => openai::import(messages),
            Format::Anthropic => anthropic::import(messages),
            Format::Pi => pi::import(messages),
        }?;
        crate::core::summary::Recognizer::standard().pair_answers(&mut out);
        Ok(out)
    }

    /// Exports messages in this format (see each adapter's `export`).
    pub fn export(self, messages: &[Message]) -> Vec<Value> {
        match self {
            Format::AiSdk => ai_sdk::export(messages),
            Format::OpenAi => openai::export(messages),
            Format::Anthropic => anthropic::export(messages),
            Format::Pi => pi::export(messages),
        }
    }
}

/// Imports `messages` in the named format (`"auto"` detects it) and returns the format used.
pub fn import_named(messages: &Value, format: &str) -> Result<(Format, Vec<Message>)> {
    let format = match Format::parse(format)? {
        Some(f) => f,
        None => detect(messages)?,
    };
    Ok((format, format.import(messages)?))
}
