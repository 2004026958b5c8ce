//! `Session`: the stateful timeline of api.md. Messages cross into Rust once, at `append`; the
//! session keeps them with their token counts, and the caller's own objects for rendering. The log,
//! the live context, compaction commits and branching are the core's (`core::session`); this file
//! only converts values and runs the summarizer's promises.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::Array;
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

use crate::formats::Codec;

use super::convert::{get, set, to_js};
use super::error::{throw, to_js as error_to_js};
use super::options::{estimator_for, split_options, Callbacks};
use crate::core::error::{Error, ErrorCode};
use crate::core::estimate::Usage;
use crate::core::message::Message;
use crate::core::options::Options;
use crate::core::report::calibration_json;
use crate::core::session::cache_points::{RenderOptions, RENDER_KEYS};
use crate::core::session::options::SessionOptions;
use crate::core::session::{self as core_session, Config, EntryKind, Source};
use crate::formats::{cache_control as anthropic, session_log, Format};

/// What a `Session` holds; shared with its in-flight compactions.
pub struct Inner {
    pub options: Options,
    pub session_options: SessionOptions,
    pub callbacks: Callbacks,
    pub state: RefCell<State>,
}

/// Mutable state, borrowed briefly and never across an `.await`.
pub struct State {
    /// `None` until the format is known (the first `append` detects it unless `format` is set).
    pub core: Option<core_session::Session>,
    /// The caller's object of each log entry (undefined until rendered, for loaded logs).
    pub originals: Vec<JsValue>,
    /// A compaction is running (`js/driver.mjs` says when; it keeps what waits for it).
    pub running: bool,
    /// The breaker and the count of compactions: the core's pipeline decides every compaction.
    pub pipeline: crate::core::pipeline::Pipeline,
    /// The outcome of the latest background compaction, if it failed.
    pub background_error: Option<JsValue>,
    /// The tag of new entry ids when a store shares the log (`session_store.rs`).
    pub id_tag: Option<String>,
}

/// The stateful timeline (see api.md). Construct with `new Session(options)`.
#[wasm_bindgen(skip_typescript)]
pub struct Session {
    pub(crate) inner: Rc<Inner>,
}

/// `cacheControl` a boolean and `reservedCachePoints` a whole number from 0 to 4, when given.
/// The render options of `options` (its other keys are the caller's to check).
fn render_options(options: &JsValue) -> Result<RenderOptions, JsValue> {
    let mut json = serde_json::Map::new();
    for key in RENDER_KEYS {
        let value = get(options, key);
        if !value.is_undefined() {
            let v = super::plain::to_json(&value, key, super::plain::Kind::Options, key)?;
            json.insert(key.to_string(), v);
        }
    }
    throw(RenderOptions::read(&Value::Object(json)))
}

/// A fresh session id: 16 hex digits.
fn fresh_id() -> String {
    let a = (js_sys::Math::random() * 4_294_967_296.0) as u64;
    let b = (js_sys::Math::random() * 4_294_967_296.0) as u64;
    format!("{:016x}", (a << 32) | b)
}

impl Inner {
    pub fn config(&self) -> Result<Config, JsValue> {
        Ok(Config {
            settings: self.options.settings.clone(),
            estimator: estimator_for(&self.options)?,
            background_tokens: self
                .session_options
                .background_tokens(&self.options.settings.budget),
            calibration: crate::core::estimate::Learned::new(self.options.profile.error),
            self_calibration: self.options.self_calibration,
        })
    }

    fn with_core(state: &State) -> Result<&core_session::Session, JsValue> {
        state.core.as_ref().ok_or_else(|| {
            error_to_js(
                &Error::invalid_input("session", "the session is empty"),
                None,
            )
        })
    }

    /// The session's format.
    fn format(&self, state: &State) -> Option<Format> {
        state
            .core
            .as_ref()
            .and_then(|c| Format::parse(&c.header().format).ok().flatten())
            .or(self.options.format)
    }

    /// The caller's object for log entry `i` (made from the logged message when not at hand).
    fn original(&self, state: &mut State, i: usize, format: Format) -> JsValue {
        if let Some(v) = state.originals.get(i) {
            if !v.is_undefined() {
                return v.clone();
            }
        }
        let value = state
            .core
            .as_ref()
            .and_then(|c| c.log().get(i))
            .and_then(|e| e.message())
            .map(|m| match &m.original {
                Some(o) => to_js(o),
                None => format
                    .export(std::slice::from_ref(m))
                    .first()
                    .map(to_js)
                    .unwrap_or(JsValue::NULL),
            })
            .unwrap_or(JsValue::NULL);
        if state.originals.len() <= i {
            state.originals.resize(i + 1, JsValue::UNDEFINED);
        }
        if let Some(slot) = state.originals.get_mut(i) {
            *slot = value.clone();
        }
        value
    }

    /// The live context as the caller's objects (summary and altered messages exported anew).
    pub fn rendered(&self, state: &mut State) -> Result<Array, JsValue> {
        let out = Array::new();
        let Some(format) = self.format(state) else {
            return Ok(out);
        };
        let (items, memory): (Vec<(usize, Option<Message>)>, _) = match &state.core {
            Some(c) => (
                c.view()
                    .items
                    .iter()
                    .map(|it| (it.entry, it.altered.clone()))
                    .collect(),
                c.memory().map(|(at, m)| (at, m.clone())),
            ),
            None => return Ok(out),
        };
        for (entry, altered) in items {
            match altered {
                None => {
                    out.push(&self.original(state, entry, format));
                }
                Some(m) => {
                    for value in format.export(std::slice::from_ref(&m)) {
                        out.push(&to_js(&value));
                    }
                }
            }
        }
        // The memory block, where the core places it (seed 004).
        if let Some((at, m)) = memory {
            for value in format.export(std::slice::from_ref(&m)) {
                out.splice(u32::try_from(at).unwrap_or(u32::MAX), 0, &to_js(&value));
            }
        }
        Ok(out)
    }

    /// `{ messages, tokens, cachePoints, summaryIndex }`; in Anthropic format the cache points
    /// become `cache_control` markers (at most 4 per request with those already present).
    pub fn render(&self, options: &JsValue) -> Result<JsValue, JsValue> {
        let render_options = render_options(options)?;
        // Taken under the borrow; the markers below read the caller's objects (their getters may
        // call back into this session), so the borrow ends first.
        let (messages, tokens, points, summary_index, format) = {
            let mut state = self.state.borrow_mut();
            let messages = self.rendered(&mut state)?;
            let (tokens, points, summary_index) = match &state.core {
                Some(c) => (c.tokens(), c.cache_points(), c.summary_index()),
                None => (0, Vec::new(), None),
            };
            let format = self.format(&state);
            (messages, tokens, points, summary_index, format)
        };
        let mut marked: Vec<usize> = Vec::new();
        if format == Some(Format::Anthropic) && render_options.cache_control {
            let existing: usize = messages
                .iter()
                .map(|m| {
                    super::plain::to_json(&m, "messages", super::plain::Kind::Input, "the message")
                        .map(|v| anthropic::count_cache_markers(&v))
                        .unwrap_or(0)
                })
                .sum();
            for index in render_options.marked(&points, existing, anthropic::MAX_CACHE_BREAKPOINTS)
            {
                let i = u32::try_from(index).unwrap_or(u32::MAX);
                let Ok(value) = super::plain::to_json(
                    &messages.get(i),
                    "messages",
                    super::plain::Kind::Input,
                    "the message",
                ) else {
                    continue;
                };
                messages.set(i, to_js(&anthropic::with_cache_marker(&value)));
                marked.push(index);
            }
        }
        let result = to_js(&json!({
            "tokens": tokens,
            "cachePoints": points.iter().map(|p| json!({"index": p.index, "kind": p.kind.as_str()})).collect::<Vec<_>>(),
            "summaryIndex": summary_index,
            "format": format.map(Format::as_str),
        }));
        set(result.unchecked_ref(), "messages", &messages);
        Ok(result)
    }

    /// Converts and appends messages; returns their ids.
    fn append(&self, value: &JsValue) -> Result<Array, JsValue> {
        let list: Array = if Array::is_array(value) {
            super::plain::snapshot(value, "messages")?
        } else if value.is_object() {
            Array::of1(value)
        } else {
            return throw(Err(Error::invalid_input(
                "messages",
                "append takes a message or an array of messages",
            )));
        };
        let json: Vec<Value> = list
            .iter()
            .enumerate()
            .map(|(i, m)| {
                super::plain::to_json(
                    &m,
                    &format!("messages[{i}]"),
                    super::plain::Kind::Stored,
                    "the message",
                )
            })
            .collect::<Result<_, _>>()?;
        let mut state = self.state.borrow_mut();
        // Given, or shown by the messages logged so far; else detected: plain text alone is
        // taken as `ai-sdk` provisionally, and the first append that shows the format decides
        // it (`core::session::provisional`).
        let decided = state.core.as_ref().is_none_or(|c| c.format_decided());
        let mut provisional = false;
        // The appended message that decides the format of a provisional session.
        let mut decide = None;
        let format = match self.format(&state) {
            Some(f) if decided || self.options.format.is_some() => f,
            None if json.is_empty() => return Ok(Array::new()),
            known => {
                let d = throw(crate::formats::detect::detect_messages_decided(
                    &json.iter().collect::<Vec<_>>(),
                ))?;
                match (known, d.decided, state.core.as_mut()) {
                    (Some(f), false, _) => f,
                    (_, false, _) => {
                        provisional = true;
                        d.format
                    }
                    (_, true, Some(_)) => {
                        decide = Some(d.at.unwrap_or(0));
                        d.format
                    }
                    (_, true, None) => d.format,
                }
            }
        };
        let import = crate::formats::message_importer(format);
        super::heap::headroom();
        // A message whose format records no time is stamped with the time it was appended
        // (written in its log entry), so that cache-lifetime pruning can age it.
        #[allow(clippy::cast_possible_truncation)]
        let now = js_sys::Date::now() as i64;
        let messages: Vec<Message> = json
            .iter()
            .enumerate()
            .map(|(i, v)| {
                import(v, &format!("messages[{i}]")).map(|mut m| {
                    m.timestamp.get_or_insert(now);
                    m
                })
            })
            .collect::<Result<_, _>>()
            .map_err(|e| error_to_js(&e, None))?;
        if let (Some(at), Some(core)) = (decide, state.core.as_mut()) {
            // After the messages read: a refusal changes nothing.
            throw(core.decide_format(format.as_str(), at, &import))?;
        }
        if state.core.is_none() {
            let id = self.session_options.id.clone().unwrap_or_else(fresh_id);
            let mut core =
                core_session::Session::new(self.config()?, id, format.as_str().to_string());
            core.set_id_tag(state.id_tag.clone());
            if provisional {
                core.set_provisional();
            }
            state.core = Some(core);
        }
        super::heap::headroom();
        let ids = match state.core.as_mut() {
            Some(c) => c.append(messages),
            None => Vec::new(),
        };
        let len = state.core.as_ref().map_or(0, |c| c.log().len());
        let first = len.saturating_sub(ids.len());
        state.originals.resize(first, JsValue::UNDEFINED);
        for m in list.iter() {
            state.originals.push(m);
        }
        Ok(ids.iter().map(|id| JsValue::from_str(id)).collect())
    }
}

pub fn state_for(core: Option<core_session::Session>, options: &Options) -> RefCell<State> {
    let len = core.as_ref().map_or(0, |c| c.log().len());
    RefCell::new(State {
        core,
        originals: vec![JsValue::UNDEFINED; len],
        running: false,
        pipeline: crate::core::pipeline::Pipeline::new(options),
        background_error: None,
        id_tag: None,
    })
}

fn parse_options(options: &JsValue) -> Result<(Options, SessionOptions, Callbacks), JsValue> {
    let (json, callbacks) = split_options(options)?;
    let (options, session_options) = throw(core_session::options::parse(json))?;
    Ok((options, session_options, callbacks))
}

#[wasm_bindgen]
impl Session {
    /// Validates the options up front (`INVALID_OPTIONS` naming the key).
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<Session, JsValue> {
        let (options, session_options, callbacks) = parse_options(&options)?;
        Ok(Session {
            inner: Rc::new(Inner {
                state: state_for(None, &options),
                options,
                session_options,
                callbacks,
            }),
        })
    }

    /// Reads a log written by `toJSONL` (or `flush`) by the core loader's rules: a torn last line
    /// is left out (`tornLine`) unless `strict`; `""` is an empty session. Bad lines are
    /// `INVALID_INPUT` naming the line. `text` may be an iterable of strings (pieces cut
    /// anywhere), read a piece at a time.
    #[wasm_bindgen(js_name = fromJSONL)]
    pub fn from_jsonl(
        #[wasm_bindgen(unchecked_param_type = "string | Iterable<string>")] text: JsValue,
        options: JsValue,
    ) -> Result<Session, JsValue> {
        let (options, session_options, callbacks) = parse_options(&options)?;
        let inner = Inner {
            state: state_for(None, &options),
            options,
            session_options,
            callbacks,
        };
        let config = inner.config()?;
        let load = core_session::loader::LoadOptions {
            strict: inner.session_options.strict,
            map: Some(crate::core::surrogates::escapes_to_marks),
        };
        let mut reader =
            core_session::loader::LogReader::new(load, |header: &core_session::Header| {
                let format = Format::parse(&header.format)?.ok_or_else(|| {
                    Error::invalid_input("lines[0].format", "the header must name a message format")
                })?;
                Ok(crate::formats::message_importer(format))
            });
        super::pieces::for_each_piece(&text, "text", |piece| throw(reader.push(piece.as_bytes())))?;
        // An empty log (what an empty session writes) is an empty session.
        let core = throw(reader.finish())?
            .map(|loaded| core_session::Session::from_loaded(config, loaded));
        let inner = Inner {
            state: state_for(core, &inner.options),
            ..inner
        };
        Ok(Session {
            inner: Rc::new(inner),
        })
    }

    /// Imports a pi or Claude Code session file, honouring the compactions the agent recorded.
    /// `read`: `{ strict?, onWarning? }` (an incomplete last line is left out with a warning
    /// unless `strict`). `text` may be an iterable of strings (pieces cut anywhere), read a piece
    /// at a time.
    #[wasm_bindgen(js_name = fromSessionFile)]
    pub fn from_session_file(
        #[wasm_bindgen(unchecked_param_type = "string | Iterable<string>")] text: JsValue,
        #[wasm_bindgen(unchecked_param_type = "\"pi\" | \"claude-code\"")] source: JsValue,
        options: JsValue,
        read: JsValue,
    ) -> Result<Session, JsValue> {
        let source = super::convert::text_arg(&source, "source")?;
        let (options, session_options, callbacks) = parse_options(&options)?;
        let read = super::session_file::read_args(&read, "read", &["strict", "onWarning"])?;
        let imported = super::session_file::import_pieces(&text, &source, "source", read.options)?;
        super::session_file::report(&imported.warnings, read.on_warning.as_ref());
        let inner = Inner {
            state: state_for(None, &options),
            options,
            session_options,
            callbacks,
        };
        let core = throw(session_log::session_from_imported_owned(
            imported,
            inner.config()?,
            inner.session_options.id.clone(),
        ))?;
        let inner = Inner {
            state: state_for(Some(core), &inner.options),
            ..inner
        };
        Ok(Session {
            inner: Rc::new(inner),
        })
    }

    /// Appends a message or an array of messages; returns their entry ids. Costs O(new messages).
    pub fn append(&self, messages: JsValue) -> Result<Array, JsValue> {
        self.inner.append(&messages)
    }

    /// Records the provider's usage of the latest response; the count up to the latest assistant
    /// message is taken from it. Returns the entry id.
    #[wasm_bindgen(js_name = recordUsage)]
    pub fn record_usage(&self, usage: JsValue) -> Result<String, JsValue> {
        let value = super::plain::to_json(&usage, "usage", super::plain::Kind::Options, "usage")?;
        let usage = throw(Usage::parse(&value, "usage"))?;
        let mut state = self.inner.state.borrow_mut();
        let core = state.core.as_mut().ok_or_else(|| {
            error_to_js(
                &Error::invalid_input(
                    "usage",
                    "record usage after appending the messages it belongs to",
                ),
                None,
            )
        })?;
        Ok(core.record_usage(usage))
    }

    /// `{ shouldCompact, tokens, threshold, reason, background }` in O(1).
    pub fn check(&self) -> JsValue {
        let state = self.inner.state.borrow();
        match &state.core {
            Some(c) => {
                let (d, pressure) = c.pressure();
                to_js(&json!({
                    "shouldCompact": d.should_compact,
                    "tokens": c.tokens(),
                    "tokensError": c.tokens_error(),
                    "threshold": d.threshold,
                    "reason": d.reason,
                    "background": pressure == core_session::Pressure::Soft,
                    "calibration": calibration_json(
                        c.calibration(),
                        self.inner.options.profile.name,
                    ),
                }))
            }
            None => {
                let d = self.inner.options.settings.trigger.evaluate(
                    &crate::core::trigger::TriggerInput::new(
                        &[],
                        0,
                        self.inner.options.settings.budget,
                    ),
                );
                let learned = crate::core::estimate::Learned::new(self.inner.options.profile.error);
                let calibration = calibration_json(&learned, self.inner.options.profile.name);
                to_js(
                    &json!({"shouldCompact": false, "tokens": 0, "tokensError": 0, "threshold": d.threshold, "reason": d.reason, "background": false, "calibration": calibration}),
                )
            }
        }
    }

    /// The live context: `{ messages, tokens, cachePoints, summaryIndex, format }`.
    pub fn render(&self, options: JsValue) -> Result<JsValue, JsValue> {
        super::convert::check_keys(&options, &RENDER_KEYS)?;
        self.inner.render(&options)
    }

    /// The whole log as JSONL.
    #[wasm_bindgen(js_name = toJSONL)]
    pub fn to_jsonl(&self) -> String {
        let state = self.inner.state.borrow();
        state
            .core
            .as_ref()
            .map(|c| super::convert::json_text_out(c.to_jsonl()))
            .unwrap_or_default()
    }

    /// A part of `toJSONL()`: `{ text, next }`, the header (when `from` is 0) and the lines of
    /// entries `from..` up to about `maxBytes` (1 MiB when not given; at least one line), and
    /// the entry the next part starts at (`null`: the log is written).
    #[wasm_bindgen(js_name = toJSONLPart)]
    pub fn to_jsonl_part(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] from: JsValue,
        #[wasm_bindgen(unchecked_param_type = "number | undefined")] max_bytes: JsValue,
    ) -> Result<JsValue, JsValue> {
        let count = |value: &JsValue, path: &str| -> Result<Option<usize>, JsValue> {
            match value.as_f64() {
                None if value.is_undefined() => Ok(None),
                Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= 9_007_199_254_740_991.0 => {
                    Ok(Some(n as usize))
                }
                _ => throw(Err(Error::invalid_input(
                    path,
                    format!("{path} must be a non-negative integer"),
                ))),
            }
        };
        let from = count(&from, "from")?.unwrap_or(0);
        let max_bytes = count(&max_bytes, "maxBytes")?.unwrap_or(1 << 20);
        let state = self.inner.state.borrow();
        let (text, next) = state
            .core
            .as_ref()
            .map(|c| c.jsonl_part(from, max_bytes))
            .unwrap_or_default();
        let out = js_sys::Object::new();
        set(
            &out,
            "text",
            &JsValue::from_str(&super::convert::json_text_out(text)),
        );
        set(
            &out,
            "next",
            &next.map_or(JsValue::NULL, |n| JsValue::from_f64(n as f64)),
        );
        Ok(out.into())
    }

    /// The JSONL lines written since the previous `flush` (the header the first time): append
    /// them to a file, which then never needs rewriting.
    pub fn flush(&self) -> String {
        let mut state = self.inner.state.borrow_mut();
        state
            .core
            .as_mut()
            .map(|c| super::convert::json_text_out(c.take_new_lines()))
            .unwrap_or_default()
    }

    /// A new session from entry `entryId` (a message, a compaction...): before a compaction it
    /// undoes it; after one it keeps it; `null` branches before the first entry (an empty
    /// context). The original is unchanged.
    pub fn branch(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string | null")] entry_id: JsValue,
    ) -> Result<Session, JsValue> {
        let entry_id = match entry_id.is_null() {
            true => None,
            false => Some(super::convert::text_arg(&entry_id, "entryId")?),
        };
        let entry_id = entry_id.as_deref();
        let state = self.inner.state.borrow();
        let core = Inner::with_core(&state)?;
        let at = entry_id.and_then(|id| core.position(id));
        let branched = throw(core.branch_at(entry_id, fresh_id()))?;
        let mut originals: Vec<JsValue> = state
            .originals
            .iter()
            .take(at.map_or(0, |i| i + 1))
            .cloned()
            .collect();
        originals.resize(branched.log().len(), JsValue::UNDEFINED);
        let inner = Inner {
            options: self.inner.options.clone(),
            session_options: SessionOptions {
                id: None,
                ..self.inner.session_options.clone()
            },
            callbacks: self.inner.callbacks.clone(),
            state: RefCell::new(State {
                core: Some(branched),
                originals,
                running: false,
                pipeline: crate::core::pipeline::Pipeline::new(&self.inner.options),
                background_error: None,
                id_tag: None,
            }),
        };
        Ok(Session {
            inner: Rc::new(inner),
        })
    }

    /// Every entry: `{ id, parentId, type }`, oldest first; a compaction entry also carries its
    /// `summary`, `firstKeptEntryId`, `tokensBefore`, `tokensAfter` and `round`.
    pub fn entries(&self) -> JsValue {
        let state = self.inner.state.borrow();
        let list: Vec<Value> = state
            .core
            .as_ref()
            .map(|c| c.log().iter().map(core_session::Entry::listing).collect())
            .unwrap_or_default();
        to_js(&list)
    }

    /// Adds a note to the memory block; returns its entry id. Once there are 15 notes,
    /// `prepare()` condenses the oldest 10 into the block's summary.
    #[wasm_bindgen(js_name = addNote)]
    pub fn add_note(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    ) -> Result<String, JsValue> {
        let text = super::convert::text_arg(&text, "text")?;
        let mut state = self.inner.state.borrow_mut();
        let core = state.core.as_mut().ok_or_else(|| {
            error_to_js(
                &Error::invalid_input("note", "add notes after the first message"),
                None,
            )
        })?;
        Ok(core.add_note(text))
    }

    /// The memory block: `{ summary, notes, text }` (`text` is what to put in the system prompt).
    pub fn memory(&self) -> JsValue {
        let state = self.inner.state.borrow();
        let block = state.core.as_ref().map(|c| c.notes()).unwrap_or_default();
        to_js(&json!({"summary": block.summary, "notes": block.notes, "text": block.text()}))
    }

    /// Grows with every change of the log.
    #[wasm_bindgen(getter)]
    pub fn version(&self) -> f64 {
        let state = self.inner.state.borrow();
        state.core.as_ref().map_or(0.0, |c| c.version() as f64)
    }

    /// True while a compaction (foreground or background) is running.
    #[wasm_bindgen(getter, js_name = isCompacting)]
    pub fn is_compacting(&self) -> bool {
        self.inner.state.borrow().running
    }

    /// The torn last line `fromJSONL` left out, `{ line, error }`, or `undefined`.
    #[wasm_bindgen(getter, js_name = tornLine)]
    pub fn torn_line(&self) -> JsValue {
        let state = self.inner.state.borrow();
        match state
            .core
            .as_ref()
            .and_then(|c| c.load_report().torn_line.clone())
        {
            Some((line, error)) => to_js(&json!({"line": line, "error": error})),
            None => JsValue::UNDEFINED,
        }
    }

    /// The session's id.
    #[wasm_bindgen(getter)]
    pub fn id(&self) -> Option<String> {
        let state = self.inner.state.borrow();
        state.core.as_ref().map(|c| c.header().id.clone())
    }

    /// The trap guard's copy of the log (js/guard.mjs; the rule is `core::session::copy`): the
    /// lines it lacks, up to about `byteLimit` bytes, as one string: a JSON line `{ from, count,
    /// more, stored, headerStored, livePending }`, the header line, then the lines; `""` when the
    /// copy is up to date. A string only: nothing is made in JS during the call. Not API.
    #[wasm_bindgen(js_name = __logSince, skip_typescript)]
    pub fn log_since(&self, byte_limit: u32) -> String {
        let mut state = self.inner.state.borrow_mut();
        let Some(copy) = state
            .core
            .as_mut()
            .and_then(|c| c.log_since(byte_limit as usize))
        else {
            return String::new();
        };
        let m = copy.marks;
        let mut out = format!(
            "{{\"from\":{},\"count\":{},\"more\":{},\"stored\":{},\"headerStored\":{},\"livePending\":{}}}\n",
            copy.from, copy.count, copy.more, m.stored, m.header_stored, m.live_pending
        );
        out.push_str(&copy.header);
        out.push('\n');
        out.push_str(&copy.lines);
        super::convert::json_text_out(out)
    }
}

/// The source of each snapshot message as the caller's object (summaries exported anew).
pub fn snapshot_originals(
    inner: &Inner,
    state: &mut State,
    snapshot: &core_session::Snapshot,
    format: Format,
) -> Array {
    let positions: Vec<Option<usize>> = snapshot
        .sources
        .iter()
        .map(|s| match s {
            Source::Entry(id) => state.core.as_ref().and_then(|c| c.position(id)),
            Source::Summary(_) => None,
        })
        .collect();
    let out = Array::new();
    for (k, pos) in positions.into_iter().enumerate() {
        match pos {
            Some(i) => {
                out.push(&inner.original(state, i, format));
            }
            None => {
                let value = snapshot
                    .messages
                    .get(k)
                    .and_then(|m| format.export(std::slice::from_ref(m)).into_iter().next())
                    .map(|v| to_js(&v))
                    .unwrap_or(JsValue::NULL);
                out.push(&value);
            }
        }
    }
    out
}

/// True when the entry at `i` is a compaction entry.
pub fn is_compaction(state: &State, i: usize) -> bool {
    state
        .core
        .as_ref()
        .and_then(|c| c.log().get(i))
        .is_some_and(|e| matches!(e.kind, EntryKind::Compaction(_)))
}

/// A `CONFLICT` error.
pub fn conflict(message: &str) -> JsValue {
    error_to_js(&Error::new(ErrorCode::Conflict, message), None)
}
