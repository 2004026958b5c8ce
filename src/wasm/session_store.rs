//! The steps a store-backed `Session` (js/stored-session.mjs) runs: what the store does not hold
//! yet, marking it stored, and merging lines other writers stored. The rules are the core's
//! (`core::session::shared`); this file converts values and keeps the caller's objects of the
//! log's entries in step with the merged log. Not API: the names start with `__`.

use std::collections::HashMap;

use js_sys::Array;
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

use super::convert::to_js;
use super::error::{throw, to_js as error_to_js};
use super::session::Session;
use crate::core::error::Error;
use crate::core::session::{self as core_session, LiveSet};
use crate::formats::Format;

fn live_json(live: &LiveSet) -> Value {
    json!({"from": live.from, "carry": live.carry})
}

/// JSON text from the store with lone-surrogate escapes read as the core's marks.
fn marked(text: String) -> String {
    match crate::core::surrogates::escapes_to_marks(&text) {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(m) => m,
    }
}

fn strings(value: &JsValue, what: &str) -> Result<Vec<String>, JsValue> {
    if !Array::is_array(value) {
        return throw(Err(Error::invalid_input(
            what,
            "must be an array of strings",
        )));
    }
    Array::from(value)
        .iter()
        .enumerate()
        .map(|(i, v)| {
            v.as_string().ok_or_else(|| {
                error_to_js(
                    &Error::invalid_input(format!("{what}[{i}]"), "must be a string"),
                    None,
                )
            })
        })
        .collect()
}

#[wasm_bindgen]
impl Session {
    /// Tags the ids of new entries, so that writers sharing the log never make the same id.
    #[wasm_bindgen(js_name = __storeAttach, skip_typescript)]
    pub fn store_attach(&self, tag: String) {
        let mut state = self.inner.state.borrow_mut();
        state.id_tag = Some(tag.clone());
        if let Some(core) = state.core.as_mut() {
            core.set_id_tag(Some(tag));
        }
    }

    /// `{ header?, lines: [{ id, line }], live? }`: what the store does not hold yet.
    #[wasm_bindgen(js_name = __storePending, skip_typescript)]
    pub fn store_pending(&self) -> JsValue {
        let state = self.inner.state.borrow();
        let Some(core) = state.core.as_ref() else {
            return to_js(&json!({"lines": []}));
        };
        let pending = core.pending();
        let lines: Vec<Value> = pending
            .entries
            .iter()
            .map(|e| json!({"id": e.id, "line": super::convert::json_text_out(e.line().into_owned())}))
            .collect();
        let mut out = json!({ "lines": lines });
        if let Value::Object(obj) = &mut out {
            if let Some(h) = pending.header {
                obj.insert(
                    "header".into(),
                    json!(super::convert::json_text_out(h.to_string())),
                );
            }
            if let Some(live) = &pending.live {
                obj.insert("live".into(), live_json(live));
                obj.insert("liveEpoch".into(), json!(pending.live_epoch));
            }
        }
        to_js(&out)
    }

    /// Records that the store holds the header and the first `count` pending lines (and the
    /// live set of change `live_epoch`, when given).
    #[wasm_bindgen(js_name = __storeMarked, skip_typescript)]
    pub fn store_marked(&self, count: u32, live_epoch: Option<f64>) {
        let mut state = self.inner.state.borrow_mut();
        if let Some(core) = state.core.as_mut() {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            core.mark_stored(count as usize, live_epoch.map(|e| e as u64));
        }
    }

    /// After an instance reset (js/guard.mjs): the session read back from the old one's log
    /// again has `entries` pending lines, and a pending header and live set when asked.
    #[wasm_bindgen(js_name = __storeRestore, skip_typescript)]
    pub fn store_restore(&self, entries: u32, header: bool, live: bool) {
        let mut state = self.inner.state.borrow_mut();
        if let Some(core) = state.core.as_mut() {
            core.restore_pending(entries as usize, header, live);
        }
    }

    /// Merges the lines other writers stored after this session's (`header` is the store's):
    /// `{ merged, dropped: [{ id, type }] }`.
    #[wasm_bindgen(js_name = __storeMerge, skip_typescript)]
    pub fn store_merge(&self, header: String, lines: JsValue) -> Result<JsValue, JsValue> {
        // Stored lines hold lone surrogates as the `\udXXX` escapes `JSON.stringify` writes.
        let header = marked(header);
        let lines: Vec<String> = strings(&lines, "lines")?.into_iter().map(marked).collect();
        let mut state = self.inner.state.borrow_mut();
        let format = match state.core.as_ref() {
            Some(c) => throw(Format::parse(&c.header().format))?,
            None => throw(Format::parse(
                &core_session::Header::read(&header)
                    .map_err(|e| error_to_js(&e, None))?
                    .format,
            ))?,
        }
        .ok_or_else(|| {
            error_to_js(
                &Error::invalid_input("header.format", "the header must name a message format"),
                None,
            )
        })?;
        let import = crate::formats::message_importer(format);
        if state.core.is_none() {
            // Nothing appended here yet: the session is what the store holds.
            let mut text = header;
            for l in &lines {
                text.push('\n');
                text.push_str(l);
            }
            let mut core = throw(core_session::Session::from_jsonl(
                &text,
                self.inner.config()?,
                &import,
            ))?;
            core.set_id_tag(state.id_tag.clone());
            state.originals = vec![JsValue::UNDEFINED; core.log().len()];
            state.core = Some(core);
            return Ok(to_js(&json!({"merged": lines.len(), "dropped": []})));
        }
        let state = &mut *state;
        let Some(core) = state.core.as_mut() else {
            return Ok(JsValue::NULL);
        };
        // The caller's objects of pending entries move with them.
        let stored = core.stored();
        let originals = &state.originals;
        let moved: HashMap<String, JsValue> = core
            .log()
            .iter()
            .enumerate()
            .skip(stored)
            .filter_map(|(i, e)| Some((e.id.clone(), originals.get(i)?.clone())))
            .collect();
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let merged = throw(core.merge_remote(&header, &refs, &import))?;
        let log_len = core.log().len();
        let ids: Vec<String> = core
            .log()
            .iter()
            .skip(stored)
            .map(|e| e.id.clone())
            .collect();
        state.originals.truncate(stored);
        state.originals.resize(stored, JsValue::UNDEFINED);
        for id in ids {
            let value = moved.get(&id).cloned().unwrap_or(JsValue::UNDEFINED);
            state.originals.push(value);
        }
        state.originals.resize(log_len, JsValue::UNDEFINED);
        let dropped: Vec<Value> = merged
            .dropped
            .iter()
            .map(|(id, kind)| json!({"id": id, "type": kind}))
            .collect();
        Ok(to_js(&json!({"merged": merged.merged, "dropped": dropped})))
    }
}
