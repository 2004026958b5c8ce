//! The one message model every format converts to and from.
//!
//! A [`Message`] is a role, a list of [`Part`]s and a few markers. It keeps the caller's own
//! object in [`Message::original`] (as its JSON text, [`Original`]) so that a message the package
//! does not change is handed back exactly as it came in, unknown fields included.

mod image;
mod original;
mod part;
mod parts;
mod time;

pub use image::{image_dimensions, ImageSize};
pub use original::Original;
pub use part::{ImageSource, Part};
pub use parts::Parts;
pub use time::{format_iso8601_millis, parse_iso8601_millis};

/// Who speaks. `Tool` is a message whose purpose is to carry tool results (OpenAI and AI SDK
/// `"tool"`, pi `"toolResult"`); Anthropic carries tool results in `User` messages instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

impl Role {
    /// A lower-case name for transcripts and error messages (`"system"`, `"user"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }
}

/// One message of a conversation, independent of the format it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    /// Who speaks.
    pub role: Role,
    /// The content, in order (shared between clones, copied on change: [`Parts`]).
    pub parts: Parts,
    /// A synthetic summary (inserted by this package or by a peer such as pi or Claude Code).
    pub summary: bool,
    /// Never summarized away.
    pub pinned: bool,
    /// Milliseconds since the Unix epoch, when the format records it.
    pub timestamp: Option<i64>,
    /// The caller's message exactly as given (its JSON text); exporters return it verbatim while
    /// the message is unchanged and keep its other fields when it changed.
    pub original: Option<Original>,
}

impl Message {
    /// A new message without an original (e.g. a summary built by the package).
    pub fn new(role: Role, parts: Vec<Part>) -> Self {
        Message {
            role,
            parts: Parts::from(parts),
            summary: false,
            pinned: false,
            timestamp: None,
            original: None,
        }
    }

    /// A new message holding one text part.
    pub fn text(role: Role, text: impl Into<String>) -> Self {
        Message::new(role, vec![Part::text(text)])
    }

    /// Ids of the tool calls this message makes, in order.
    pub fn tool_call_ids(&self) -> Vec<&str> {
        self.parts
            .iter()
            .filter_map(|p| match p {
                Part::ToolCall { id, .. } => Some(id.as_str()),
                _ => None,
            })
            .collect()
    }

    /// Ids of the tool results this message carries, in order.
    pub fn tool_result_ids(&self) -> Vec<&str> {
        self.parts
            .iter()
            .filter_map(|p| match p {
                Part::ToolResult { id, .. } => Some(id.as_str()),
                _ => None,
            })
            .collect()
    }

    /// True when the message carries at least one tool result (a `Tool` message, or an Anthropic
    /// `user` message with `tool_result` blocks). Cut points must not fall right before such a
    /// message, or the result would be separated from its call.
    pub fn is_tool_result_carrier(&self) -> bool {
        self.role == Role::Tool || self.parts.iter().any(Part::is_tool_result)
    }

    /// True when the message makes at least one tool call.
    pub fn has_tool_calls(&self) -> bool {
        self.parts
            .iter()
            .any(|p| matches!(p, Part::ToolCall { .. }))
    }

    /// True for a user message typed by a person: role `User`, no tool results, not a summary.
    /// Turns start at such messages.
    pub fn is_user_turn_start(&self) -> bool {
        self.role == Role::User && !self.summary && !self.parts.iter().any(Part::is_tool_result)
    }

    /// Characters of text the message holds (text, reasoning, tool inputs as JSON, tool outputs),
    /// excluding images and files. Counted in Unicode scalar values.
    pub fn text_len(&self) -> usize {
        self.parts.iter().map(Part::text_len).sum()
    }

    /// All plain text of the message (text parts only, not reasoning or tool data), joined by
    /// newlines.
    pub fn plain_text(&self) -> String {
        let texts: Vec<&str> = self
            .parts
            .iter()
            .filter_map(|p| match p {
                Part::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        texts.join("\n")
    }
}
