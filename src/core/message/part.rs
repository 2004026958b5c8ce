//! The content parts of a message.

use serde_json::Value;

/// Where an image's or file's bytes are. Base64 data is not kept when messages are imported for
/// counting and compaction: only its length, so that memory stays small and estimators use a
/// per-provider rule instead of the base64 length. Only a conversion between formats keeps it
/// ([`ImageSource::Inline`]), to write it in the other format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ImageSource {
    /// Inline data, `len` characters of base64 (or bytes, for binary arrays).
    Base64 { len: usize },
    /// Inline data kept for a conversion between formats: the base64 payload (no `data:` prefix).
    Inline(String),
    /// A URL (http, https or any other scheme except `data:`).
    Url(String),
    /// A provider-side file id.
    FileId(String),
    /// Not known (e.g. an object the format does not describe).
    Unknown,
}

/// One piece of message content.
#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    /// Plain text.
    Text { text: String },
    /// An image. `width`/`height` are known when the format says so or the inline data's header
    /// could be read; `detail` is OpenAI's `low`/`high`/`auto`.
    Image {
        media_type: Option<String>,
        source: ImageSource,
        width: Option<u32>,
        height: Option<u32>,
        detail: Option<String>,
    },
    /// A file or document (PDF, audio, text document...). `text` holds the document's own text
    /// when the format gives it inline as text (Anthropic `text` documents).
    File {
        media_type: Option<String>,
        name: Option<String>,
        source: ImageSource,
        text: Option<String>,
    },
    /// Model reasoning. For redacted reasoning `text` holds the provider's opaque payload: it
    /// counts toward the context but is never meaningful to show.
    Reasoning { text: String, redacted: bool },
    /// A call of a tool. `input` is the parsed arguments (OpenAI's argument string parsed as JSON;
    /// a string that is not JSON is kept as a JSON string).
    ToolCall {
        id: String,
        name: String,
        input: Value,
    },
    /// The result of a tool call. `output` holds text, image and file parts.
    ToolResult {
        id: String,
        name: Option<String>,
        output: Vec<Part>,
        is_error: bool,
    },
    /// A block of a kind the model does not describe (e.g. Anthropic server tool results, OpenAI
    /// audio). `value` is the block itself, kept for estimation and transcripts.
    Other { kind: String, value: Value },
}

impl Part {
    /// A text part.
    pub fn text(text: impl Into<String>) -> Self {
        Part::Text { text: text.into() }
    }

    /// True for a tool result.
    pub fn is_tool_result(&self) -> bool {
        matches!(self, Part::ToolResult { .. })
    }

    /// True for a tool call or a tool result.
    pub fn is_tool_data(&self) -> bool {
        matches!(self, Part::ToolCall { .. } | Part::ToolResult { .. })
    }

    /// Characters of text in the part: text, reasoning, a tool call's name and JSON input, a tool
    /// result's text output, an unknown block's JSON. Images and binary files count zero.
    pub fn text_len(&self) -> usize {
        match self {
            Part::Text { text } => text.chars().count(),
            Part::Reasoning { text, .. } => text.chars().count(),
            Part::Image { .. } => 0,
            Part::File { text, .. } => text.as_ref().map_or(0, |t| t.chars().count()),
            Part::ToolCall { name, input, .. } => name.chars().count() + json_len(input),
            Part::ToolResult { output, .. } => output.iter().map(Part::text_len).sum(),
            Part::Other { value, .. } => json_len(value),
        }
    }
}

/// Characters of a JSON value's compact serialization (a string counts its own characters).
fn json_len(value: &Value) -> usize {
    match value {
        Value::String(s) => s.chars().count(),
        other => other.to_string().chars().count(),
    }
}
