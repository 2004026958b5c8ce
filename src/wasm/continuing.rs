//! The "continue the conversation" fields of a summary request (`mode`, `instruction`,
//! `conversation`): the caller's messages in their own format as the model last saw them (the
//! caller's very objects, except an Anthropic message that gains the cache marker the core's rule
//! places: `formats::continuation::conversation`), and the summary instruction to send
//! after them. The conversation, the mode and the instruction of each request are the core's
//! (`formats::continuing_conversation`).

use js_sys::{Array, Object};
use wasm_bindgen::prelude::*;

use super::convert::set;
use super::plain::{to_js, to_json, Kind};
use crate::core::options::Options;
use crate::core::summary::job::PieceRequest;
use crate::formats::Format;

/// The conversation of a compaction's continuing requests, built once per compaction.
pub type Continuing = crate::formats::continuing_conversation::Continuing<Array>;

/// The conversation of `all` (the caller's messages, in `format`); `None` when the options ask
/// for the transcript, or when a message cannot be read as JSON (the transcript then).
pub fn continuing(
    options: &Options,
    all: &Array,
    format: Format,
    tokens: usize,
) -> Option<Continuing> {
    let json = |m: &JsValue| to_json(m, "messages", Kind::Input, "the message").ok();
    let values = all.iter().collect();
    Continuing::of(&options.settings, values, json, to_js, format, tokens)
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
    let (mode, sent) = Continuing::request(continuing, &options.settings, piece, count);
    if let Some((text, conversation)) = sent {
        set(obj, "instruction", &JsValue::from_str(&text));
        set(
            obj,
            "conversation",
            &conversation.slice(0, conversation.length()),
        );
    }
    set(obj, "mode", &JsValue::from_str(mode.as_str()));
}
