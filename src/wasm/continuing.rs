//! The "continue the conversation" fields of a summary request (`mode`, `instruction`,
//! `conversation`): the caller's messages in their own format as the model last saw them (the
//! caller's very objects, except an Anthropic message that gains the cache marker the core's rule
//! places), and the summary instruction to send after them. The mode of each request is the core's
//! [`request_mode`]: the transcript for a piece that is not the whole history, or when the
//! conversation, the instruction and the answer would not fit the window.

use js_sys::{Array, Object};
use wasm_bindgen::prelude::*;

use super::convert::set;
use super::plain::{to_js, to_json, Kind};
use crate::core::options::Options;
use crate::core::summary::continuation::{instruction, request_mode, SummaryMode};
use crate::core::summary::job::{PieceRequest, Purpose};
use crate::formats::continuation::continuing_messages;
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
        let originals: Vec<JsValue> = all.iter().collect();
        let json = originals
            .iter()
            .map(|m| to_json(m, "messages", Kind::Input, "the message").ok())
            .collect::<Option<Vec<_>>>()?;
        // The instruction message the rule appends is left out: each request has its own.
        let mut out = continuing_messages(&json, format, "", 0);
        out.truncate(json.len());
        // Messages the rule left as they were go as the caller's own objects.
        let conversation = originals
            .into_iter()
            .zip(json.iter().zip(&out))
            .map(|(original, (before, after))| {
                if before == after {
                    original
                } else {
                    to_js(after)
                }
            })
            .collect();
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
    let mut mode = SummaryMode::Transcript;
    if let Some(c) = continuing {
        let settings = &options.settings;
        let text = instruction(
            &settings.templates,
            piece.previous_summary.is_some(),
            piece.instructions.as_deref(),
            piece.max_tokens,
            piece.round,
        );
        mode = request_mode(
            settings.summary_mode,
            piece.purpose == Purpose::History,
            settings.budget.context_window,
            settings.budget.system_tokens,
            c.tokens,
            count(&text),
            piece.max_tokens,
        );
        if mode == SummaryMode::Continue {
            set(obj, "instruction", &JsValue::from_str(&text));
            set(
                obj,
                "conversation",
                &c.conversation.slice(0, c.conversation.length()),
            );
        }
    }
    set(obj, "mode", &JsValue::from_str(mode.as_str()));
}
