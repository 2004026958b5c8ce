//! Free functions over message arrays: `validateMessages`, `factRetention`, `repairMessages`,
//! `trimMessages`, `importSession` and `convertMessages`; their results are built as plain data by
//! the core and the formats (`core::report`, `formats::call_results`).

use super::convert::{get, incoming, outgoing, set, to_js};
use super::error::throw;
use super::on_demand::OnDemandMessages;
use super::plain::Kind;
use super::tokens::exact;
use crate::core::estimate::{Counter, Estimator};
use crate::core::message::Part;
use crate::core::options::trim::parse_trim;
use crate::core::report;
use crate::core::trim::{self, trim_estimated, trim_history};
use crate::core::validate::validate;
use crate::formats::call_results::{import_result, repair_result};
use crate::formats::convert::{convert_with, parse_formats, ConvertOptions};
use crate::formats::session_file::import_text;
use crate::formats::Format;
use serde_json::json;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// A JS value declared as `MessageFormat` (`js/types/options.d.ts`); checked at run time.
    #[wasm_bindgen(typescript_type = "MessageFormat")]
    pub type FormatArg;
}

/// The `format` argument ([`Format::parse_arg`]).
fn format_arg(format: Option<FormatArg>) -> Result<Option<Format>, JsValue> {
    let name = format.map(|f| f.as_string());
    throw(Format::parse_arg(name.as_ref().map(Option::as_deref)))
}

/// LangChain's `trimMessages` options that have no meaning here, refused by name.
pub(super) fn refuse_langchain_only(options: &JsValue) -> Result<(), JsValue> {
    let given = |key: &str| !get(options, key).is_undefined();
    throw(trim::refuse_langchain_only(&given))
}

/// The kept messages of a trim: the caller's objects, or the kept parts of a partial message.
/// Messages are converted and counted only as the trimming rules read them (see
/// [`super::on_demand`]); an array that is not plain data is converted whole.
#[wasm_bindgen(js_name = trimMessages, skip_typescript)]
pub fn trim_messages(
    #[wasm_bindgen(unchecked_param_type = "readonly object[]")] messages: JsValue,
    #[wasm_bindgen(unchecked_param_type = "TrimOptions")] options: JsValue,
) -> Result<JsValue, JsValue> {
    refuse_langchain_only(&options)?;
    let json = super::plain::to_json(&options, "options", Kind::Options, "options")?;
    let (options, tokenizer, format) = throw(parse_trim(&json))?;
    let Some(on_demand) = OnDemandMessages::new(&messages, format)? else {
        // An array that is not plain data: converted whole, then trimmed.
        let incoming = incoming(&messages, format)?;
        let estimator = Estimator::new(Counter::of(exact(tokenizer)?));
        let trimmed = throw(trim_estimated(&incoming.messages, &estimator, &options))?;
        return Ok(outgoing(&incoming, &trimmed.rendered(&incoming.messages)).into());
    };
    let estimator = Estimator::new(Counter::of(exact(tokenizer)?));
    let cost = |p: &Part| estimator.part_tokens(p);
    let kept = throw(trim_history(&on_demand.source(&estimator), &cost, &options))?;
    Ok(on_demand.output(&kept).into())
}

/// Violations of tool-call pairing and summary placement: `[{ kind, path, message, part, id, detail }]`
/// (empty when the history is valid). A call in the last assistant message still awaiting its
/// result is not a violation.
#[wasm_bindgen(js_name = validateMessages, skip_typescript)]
pub fn validate_messages(
    #[wasm_bindgen(unchecked_param_type = "readonly object[]")] messages: JsValue,
    format: Option<FormatArg>,
) -> Result<JsValue, JsValue> {
    let incoming = incoming(&messages, format_arg(format)?)?;
    Ok(to_js(&report::violations(&validate(&incoming.messages))))
}

/// What `summary` keeps of the facts of `messages` (files, commands, errors, user requests, pending
/// tasks; core `summary::retention`): `{ total, kept, recall, kinds }`, each kind
/// `{ total, kept, missing }`.
#[wasm_bindgen(js_name = factRetention, skip_typescript)]
pub fn fact_retention(
    #[wasm_bindgen(unchecked_param_type = "readonly object[]")] messages: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] summary: JsValue,
    format: Option<FormatArg>,
) -> Result<JsValue, JsValue> {
    let incoming = incoming(&messages, format_arg(format)?)?;
    let summary = super::convert::text_arg(&summary, "summary")?;
    Ok(to_js(&report::fact_retention(&incoming.messages, &summary)))
}

/// A repaired copy: orphan results removed, interrupted calls answered with an error result,
/// duplicate ids renamed. `{ messages, actions }`; valid input comes back deep-equal.
#[wasm_bindgen(js_name = repairMessages, skip_typescript)]
pub fn repair_messages(
    #[wasm_bindgen(unchecked_param_type = "readonly object[]")] messages: JsValue,
    format: Option<FormatArg>,
) -> Result<JsValue, JsValue> {
    let incoming = incoming(&messages, format_arg(format)?)?;
    let repaired = repair_result(incoming.format, incoming.messages);
    let binaries = incoming.binaries.as_ref();
    let out: js_sys::Array = (repaired.messages.iter())
        .map(|value| super::plain::with_binaries(value, binaries, &JsValue::UNDEFINED))
        .collect();
    let result = to_js(&repaired.fields);
    set(&result, "messages", &out);
    Ok(result)
}

/// Imports a pi or Claude Code session file (JSONL text): `{ format, messages, history,
/// compactions, warnings }` where `messages` is what the agent would send now (the latest recorded
/// summary and what follows it) and `history` every message of the file, both in the file's message
/// format; `warnings` names an incomplete last line left out (`{ strict: true }` refuses it).
#[wasm_bindgen(js_name = importSession, skip_typescript)]
pub fn import_session(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    #[wasm_bindgen(unchecked_param_type = "\"pi\" | \"claude-code\"")] kind: JsValue,
    options: JsValue,
) -> Result<JsValue, JsValue> {
    let text = super::convert::json_text_arg(&text, "text")?;
    let kind = super::convert::text_arg(&kind, "kind")?;
    let read = super::session_file::read_args(&options, "options", &["strict"])?;
    let session = throw(import_text(&text, &kind, "kind", read.options))?;
    let result = import_result(&session);
    let history = js_sys::Array::from(&to_js(&result.history));
    // The live context shares the history's objects where it can: they are converted once.
    let mut messages = js_sys::Array::from(&to_js(&result.head));
    if let Some(start) = result.shared_from {
        let from = u32::try_from(start).unwrap_or(u32::MAX);
        messages = messages.concat(&history.slice(from, history.length()));
    }
    let out = to_js(&result.fields);
    set(&out, "messages", &messages);
    set(&out, "history", &history);
    Ok(out)
}

/// Messages of one format written in another (see `formats::convert`). The array has a
/// non-enumerable `answeredCalls`: the ids of the calls given a synthetic error result.
#[wasm_bindgen(js_name = convertMessages, skip_typescript)]
pub fn convert_messages(messages: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    super::convert::check_keys(&options, &["from", "to", "unansweredCalls"])?;
    let json = super::plain::to_json(&options, "options", Kind::Options, "options")?;
    let (from, to) = throw(parse_formats(&json))?;
    super::convert::require_array(&messages, "messages")?;
    let input = super::plain::to_json(&messages, "messages", Kind::Stored, "messages")?;
    let convert_options = throw(ConvertOptions::parse(&json))?;
    let converted = throw(convert_with(&input, from, to, convert_options))?;
    let out = to_js(&converted.messages);
    // Non-enumerable, as a descriptor of `value` alone defines it.
    let descriptor = to_js(&json!({ "value": converted.answered }));
    let key = JsValue::from_str("answeredCalls");
    let target: &js_sys::Object = out.unchecked_ref();
    js_sys::Object::define_property(target, &key, descriptor.unchecked_ref());
    Ok(out)
}
