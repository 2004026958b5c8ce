//! Free functions over message arrays: `validateMessages`, `repairMessages`, `trimMessages`,
//! `importSession`.

use super::convert::{incoming, outgoing, to_js};
use super::error::throw;
use super::on_demand::OnDemandMessages;
use super::types::FormatArg;
use crate::core::error::Error;
use crate::core::estimate::{Counter, Estimator};
use crate::core::message::Message;
use crate::core::message::Part;
use crate::core::options::trim::parse_trim;
use crate::core::options::Tokenizer;
use crate::core::render::{Origin, Rendered};
use crate::core::repair::{repair, RepairAction};
use crate::core::trim::{trim, trim_history, TrimOptions, Trimmed};
use crate::core::validate::validate;
use crate::formats::Format;
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

use crate::formats::Codec;

fn format_arg(format: Option<FormatArg>) -> Result<Option<Format>, JsValue> {
    match format.map(|f| f.as_string()) {
        None => Ok(None),
        Some(Some(name)) => {
            throw(Format::parse(&name).map_err(|e| Error::invalid_input("format", e.message)))
        }
        Some(None) => throw(Err(Error::invalid_input(
            "format",
            "format must be a string",
        ))),
    }
}

/// LangChain's `trimMessages` options that have no meaning here, refused by name (a function
/// value would otherwise fail the conversion with an unreadable message).
pub(super) fn refuse_langchain_only(options: &JsValue) -> Result<(), JsValue> {
    if !options.is_object() {
        return Ok(());
    }
    let why = [
        (
            "tokenCounter",
            "tokenCounter is not supported: tokens are counted by the package; choose tokenizer: \"heuristic\" (default), \"o200k_base\" or \"cl100k_base\"",
        ),
        (
            "textSplitter",
            "textSplitter is not supported: with allowPartial, whole content blocks are kept",
        ),
    ];
    for (key, message) in why {
        let value = js_sys::Reflect::get(options, &JsValue::from_str(key)).unwrap_or_default();
        if !value.is_undefined() {
            return throw(Err(Error::invalid_option(key, message)));
        }
    }
    Ok(())
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
    let json = super::plain::to_json(&options, "options", super::plain::Kind::Options, "options")?;
    let (trim_options, tokenizer, format) = throw(parse_trim(&json))?;
    let Some(on_demand) = OnDemandMessages::new(&messages, format)? else {
        return trim_whole(&messages, &trim_options, tokenizer, format);
    };
    let estimator = Estimator::new(counter(tokenizer)?);
    let cost = |p: &Part| estimator.part_tokens(p);
    let kept = throw(trim_history(
        &on_demand.source(&estimator),
        &cost,
        &trim_options,
    ))?;
    Ok(on_demand.output(&kept).into())
}

/// `trimMessages` on an array converted whole (one that is not plain data).
fn trim_whole(
    messages: &JsValue,
    trim_options: &TrimOptions,
    tokenizer: Tokenizer,
    format: Option<Format>,
) -> Result<JsValue, JsValue> {
    let incoming = incoming(messages, format)?;
    let estimator = Estimator::new(counter(tokenizer)?);
    let tokens = estimator.estimate_all(&incoming.messages).per_message;
    let cost = |p: &Part| estimator.part_tokens(p);
    let trimmed = throw(trim(&incoming.messages, &tokens, &cost, trim_options))?;
    let rendered = kept_messages(&incoming.messages, &trimmed);
    Ok(outgoing(&incoming, &rendered).into())
}

fn counter(tokenizer: Tokenizer) -> Result<Counter, JsValue> {
    Ok(match tokenizer {
        Tokenizer::Heuristic => Counter::Heuristic,
        Tokenizer::Exact(name) => Counter::Exact(super::tokens::encoding(name)?),
    })
}

/// The messages a trim keeps: the input's (by index), or the kept parts of a partial one.
pub(super) fn kept_messages(messages: &[Message], trimmed: &Trimmed) -> Vec<Rendered> {
    trimmed
        .kept
        .iter()
        .filter_map(|k| {
            let original = messages.get(k.index)?;
            let origin = match k.parts {
                None => Origin::Input(k.index),
                Some(_) => Origin::Changed(k.index),
            };
            Some(Rendered {
                message: k.select(original),
                origin,
            })
        })
        .collect()
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
    let list: Vec<Value> = validate(&incoming.messages)
        .into_iter()
        .map(|v| json!({"kind": v.kind.as_str(), "path": v.path(), "message": v.message, "part": v.part, "id": v.id, "detail": v.detail}))
        .collect();
    Ok(to_js(&list))
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
    let all: Vec<usize> = (0..incoming.messages.len()).collect();
    let digest = crate::core::summary::Digest::extract(&incoming.messages, &all);
    let r = crate::core::summary::retention::Retention::of(&digest, &summary);
    let kinds: serde_json::Map<String, Value> = r
        .kinds
        .iter()
        .map(|k| {
            let kept = k.total - k.missing.len();
            (
                k.kind.to_string(),
                json!({"total": k.total, "kept": kept, "missing": k.missing}),
            )
        })
        .collect();
    Ok(to_js(
        &json!({"total": r.total(), "kept": r.kept(), "recall": r.recall(), "kinds": kinds}),
    ))
}

/// A repaired copy: orphan results removed, interrupted calls answered with an error result,
/// duplicate ids renamed. `{ messages, actions }`; valid input comes back deep-equal.
#[wasm_bindgen(js_name = repairMessages, skip_typescript)]
pub fn repair_messages(
    #[wasm_bindgen(unchecked_param_type = "readonly object[]")] messages: JsValue,
    format: Option<FormatArg>,
) -> Result<JsValue, JsValue> {
    let incoming = incoming(&messages, format_arg(format)?)?;
    let repaired = repair(incoming.messages);
    let actions: Vec<Value> = repaired
        .actions
        .iter()
        .map(|a| match a {
            RepairAction::RemovedResult { message, id, reason, .. } => json!({"action": "removed-result", "message": message, "id": id, "reason": reason.as_str()}),
            RepairAction::RemovedMessage { message } => json!({"action": "removed-message", "message": message}),
            RepairAction::RenamedCall { message, from, to, .. } => json!({"action": "renamed-call", "message": message, "from": from, "to": to}),
            RepairAction::RenamedResult { message, from, to, .. } => json!({"action": "renamed-result", "message": message, "from": from, "to": to}),
            RepairAction::AddedResults { after_message, ids, .. } => json!({"action": "added-results", "after": after_message, "ids": ids}),
            RepairAction::ClearedSummary { message } => json!({"action": "cleared-summary", "message": message}),
        })
        .collect();
    let out = js_sys::Array::new();
    for value in incoming.format.export(&repaired.messages) {
        out.push(&super::plain::with_binaries(
            &value,
            incoming.binaries.as_ref(),
            &JsValue::UNDEFINED,
        ));
    }
    let result = to_js(&json!({ "actions": actions }));
    super::convert::set(&result, "messages", &out);
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
    let session = super::session_file::import(&text, &kind, "kind", read.options)?;
    let compactions: Vec<Value> = session
        .compactions
        .iter()
        .map(|c| {
            let first_kept_id = c.first_kept_entry_id.clone().or_else(|| {
                c.first_kept_message
                    .and_then(|i| session.entries.get(i))
                    .and_then(|e| e.id.clone())
            });
            json!({"line": c.line, "id": c.id, "summary": c.summary, "tokensBefore": c.tokens_before, "trigger": c.trigger, "firstKeptEntryId": first_kept_id, "firstKeptIndex": c.first_kept_message, "atMessage": c.at_message, "summaryIndex": c.summary_message})
        })
        .collect();
    let format = session.format;
    let history_values = format.export(&session.messages);
    let history = js_sys::Array::from(&to_js(&history_values));
    // The live context is the history from a point on, after a summary when the file recorded a
    // compaction: its messages are the same objects as the history's (when each message is one
    // value in the format), converted once.
    let (head, start) = session.context_parts();
    let messages = if history_values.len() == session.messages.len() {
        let head: Vec<Message> = head.into_iter().collect();
        let head = js_sys::Array::from(&to_js(&format.export(&head)));
        let from = u32::try_from(start.min(session.messages.len())).unwrap_or(u32::MAX);
        head.concat(&history.slice(from, history.length()))
    } else {
        js_sys::Array::from(&to_js(&format.export(&session.context())))
    };
    let out = js_sys::Object::new();
    for (key, value) in [
        ("format", JsValue::from_str(format.as_str())),
        ("messages", messages.into()),
        ("history", history.into()),
        ("compactions", to_js(&compactions)),
        ("warnings", to_js(&session.warnings)),
    ] {
        js_sys::Reflect::set(&out, &JsValue::from_str(key), &value)?;
    }
    Ok(out.into())
}

/// Messages of one format written in another (see `formats::convert`). The array has a
/// non-enumerable `answeredCalls`: the ids of the calls given a synthetic error result.
#[wasm_bindgen(js_name = convertMessages, skip_typescript)]
pub fn convert_messages(messages: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    super::convert::check_keys(&options, &["from", "to", "unansweredCalls"])?;
    let json = super::plain::to_json(&options, "options", super::plain::Kind::Options, "options")?;
    let name = |key: &str| -> Result<Option<Format>, JsValue> {
        match json.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => throw(
                Format::parse(s)
                    .map_err(|e| Error::invalid_option(format!("options.{key}"), e.message)),
            ),
            Some(_) => throw(Err(Error::invalid_option(
                format!("options.{key}"),
                "a format name: \"ai-sdk\", \"openai\", \"anthropic\" or \"pi\"",
            ))),
        }
    };
    let from = name("from")?;
    let Some(to) = name("to")? else {
        return throw(Err(Error::invalid_option(
            "options.to",
            "convertMessages needs the target format: { to: \"ai-sdk\" | \"openai\" | \"anthropic\" | \"pi\" }",
        )));
    };
    if !js_sys::Array::is_array(&messages) {
        return throw(Err(Error::invalid_input(
            "messages",
            "messages must be an array",
        )));
    }
    let input = super::plain::to_json(
        &messages,
        "messages",
        super::plain::Kind::Stored,
        "messages",
    )?;
    let answer_unanswered = match json.get("unansweredCalls") {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) if s == "answer" => true,
        Some(Value::String(s)) if s == "keep" => false,
        Some(_) => {
            return throw(Err(Error::invalid_option(
                "options.unansweredCalls",
                "unansweredCalls is \"answer\" (a synthetic error result for each) or \"keep\"",
            )))
        }
    };
    let converted = throw(crate::formats::convert::convert_with(
        &input,
        from,
        to,
        crate::formats::convert::ConvertOptions { answer_unanswered },
    ))?;
    let out = to_js(&converted.messages);
    let descriptor = js_sys::Object::new();
    js_sys::Reflect::set(
        &descriptor,
        &JsValue::from_str("value"),
        &to_js(&converted.answered),
    )?;
    js_sys::Object::define_property(
        out.unchecked_ref::<js_sys::Object>(),
        &JsValue::from_str("answeredCalls"),
        &descriptor,
    );
    Ok(out)
}
