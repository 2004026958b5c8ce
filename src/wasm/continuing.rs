//! The "continue the conversation" fields of a summary request (`mode`, `instruction`,
//! `conversation`): the caller's messages in their own format as the model last saw them (the
//! caller's very objects, except an Anthropic message that gains the cache marker the core's rule
//! places: `formats::continuation::conversation`), and the summary instruction to send
//! after them. The mode and the instruction of each request are the core's
//! (`core::summary::continuation::piece_mode`).

use js_sys::{Array, Object};
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::convert::set;
use super::plain::{to_js, to_json, Kind};
use crate::core::options::Options;
use crate::core::summary::continuation::{piece_mode, SummaryMode};
use crate::core::summary::job::PieceRequest;
use crate::formats::continuation::conversation;
use crate::formats::Format;

/// The conversation of a compaction's continuing requests, built once per compaction.
pub struct Continuing {
    /// The caller's messages, ready to send before the instruction.
    conversation: Array,
    /// Their estimated tokens.
    tokens: usize,
}

impl Continuing {
    /// The conversation of `all` (the caller's messages, in `format`); `None` when the options
    /// ask for the transcript, or when a message cannot be read as JSON (the transcript then).
    pub fn of(options: &Options, all: &Array, format: Format, tokens: usize) -> Option<Self> {
        if options.settings.summary_mode != SummaryMode::Continue {
            return None;
        }
        let json = |m: &JsValue| to_json(m, "messages", Kind::Input, "the message").ok();
        let values = conversation(all.iter().collect(), json, to_js::<Value>, format)?;
        let conversation = values.into_iter().collect();
        Some(Continuing {
            conversation,
            tokens,
        })
    }
}

/// Sets `mode` on a piece's request, and for a continuing one `instruction` and `conversation`;
/// `count` estimates a text's tokens.
pub fn set_mode(
    obj: &Object,
    piece: &PieceRequest,
    options: &Options,
    continuing: Option<&Continuing>,
    count: &dyn Fn(&str) -> usize,
) {
    let tokens = continuing.map(|c| c.tokens);
    let (mode, instruction) = piece_mode(&options.settings, piece, tokens, count);
    if let (Some(text), Some(c)) = (instruction, continuing) {
        set(obj, "instruction", &JsValue::from_str(&text));
        let conversation = c.conversation.slice(0, c.conversation.length());
        set(obj, "conversation", &conversation);
    }
    set(obj, "mode", &JsValue::from_str(mode.as_str()));
}
