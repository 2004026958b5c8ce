//! `Session`: the stateful timeline of api.md, as a handle. Messages cross into Rust once, at
//! `append`; the handle keeps the caller's object of each log entry, so that untouched messages
//! render as the very same objects (`formats::session_objects`). The log, the live context, the
//! format decision, compaction commits, branching, the handle's state and every result are the
//! core's (`core::session`, `formats::session_input`, `formats::session_handle`); this file
//! converts values.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::Array;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::convert::{get, set, text_arg, to_js};
use super::error::throw;
use super::options::{estimator_for, split_options, Callbacks};
use super::plain::{to_json, Kind as Plain};
use crate::core::options::Options;
use crate::core::session::cache_points::{RenderOptions, RENDER_KEYS};
use crate::core::session::options::SessionOptions;
use crate::core::session::{self as core_session, results, Config};
use crate::formats::session_file::AgentReader;
use crate::formats::session_handle::{self, HandleState};
use crate::formats::session_input as input;
use crate::formats::session_log;
use crate::formats::session_objects::Make;

/// What a `Session` holds; shared with its in-flight compactions.
pub struct Inner {
    pub options: Options,
    pub session_options: SessionOptions,
    pub callbacks: Callbacks,
    pub state: RefCell<State>,
}
super::driven::owner!(Inner);

/// Mutable state, borrowed briefly and never across an `.await` or a call into caller code
/// (`formats::session_handle`).
pub type State = HandleState<JsValue>;

/// The stateful timeline (see api.md). Construct with `new Session(options)`.
#[wasm_bindgen(skip_typescript)]
pub struct Session {
    pub(crate) inner: Rc<Inner>,
}

/// How the caller's object of a message is made when the handle has none
/// (`formats::session_objects`).
pub const MAKE: Make<'static, JsValue> = Make {
    original: &super::plain::original_to_js,
    exported: &to_js::<Value>,
};

/// A fresh session id ([`session_handle::fresh_id`]).
fn fresh_id() -> String {
    session_handle::fresh_id(js_sys::Math::random(), js_sys::Math::random())
}

impl Inner {
    /// A handle's state for `options` with nothing logged.
    fn new(options: &JsValue) -> Result<Inner, JsValue> {
        let (json, callbacks) = split_options(options)?;
        let (options, session_options) = throw(core_session::options::parse(json))?;
        Ok(Inner {
            state: RefCell::new(State::new(None, &options)),
            options,
            session_options,
            callbacks,
        })
    }

    /// The same handle state around `core`.
    fn with(self, core: Option<core_session::Session>) -> Session {
        let state = RefCell::new(State::new(core, &self.options));
        Session {
            inner: Rc::new(Inner { state, ..self }),
        }
    }

    /// The configuration of the session's core (an exact encoding must be loaded).
    pub fn config(&self) -> Result<Config, JsValue> {
        let estimator = estimator_for(&self.options)?;
        Ok(self.session_options.config(&self.options, estimator))
    }

    /// `{ messages, tokens, cachePoints, summaryIndex, format }`; in Anthropic format the cache
    /// points become `cache_control` markers (`formats::session_objects::render`).
    pub fn render(&self, options: &JsValue) -> Result<JsValue, JsValue> {
        let mut json = serde_json::Map::new();
        for key in RENDER_KEYS {
            let value = get(options, key);
            if !value.is_undefined() {
                json.insert(key.into(), to_json(&value, key, Plain::Options, key)?);
            }
        }
        let render_options = throw(RenderOptions::read(&Value::Object(json)))?;
        // Taken under the borrow; the markers read the caller's objects (their getters may call
        // back into this session), so the borrow ends first.
        let mut render = self.state.borrow_mut().render(self.options.format, &MAKE);
        let read = |m: &JsValue| to_json(m, "messages", Plain::Input, "the message").ok();
        render.mark(&render_options, read, &MAKE);
        let result = to_js(&render.result);
        let messages: Array = render.messages.into_iter().collect();
        set(&result, "messages", &messages);
        Ok(result)
    }
}

#[wasm_bindgen]
impl Session {
    /// Validates the options up front (`INVALID_OPTIONS` naming the key).
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<Session, JsValue> {
        Ok(Inner::new(&options)?.with(None))
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
        let inner = Inner::new(&options)?;
        let config = inner.config()?;
        let reader = input::log_reader(inner.session_options.strict);
        // An empty log (what an empty session writes) is an empty session.
        let loaded = super::pieces::read_pieces(&text, "text", reader)?;
        Ok(inner.with(loaded.map(|l| core_session::Session::from_loaded(config, l))))
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
        let source = text_arg(&source, "source")?;
        let inner = Inner::new(&options)?;
        let read = super::session_file::read_args(&read, "read", &["strict", "onWarning"])?;
        let reader = throw(AgentReader::new(&source, "source", read.options))?;
        let imported = super::pieces::read_pieces(&text, "text", reader)?;
        super::session_file::report(&imported.warnings, read.on_warning.as_ref());
        let id = inner.session_options.id.clone();
        let core = session_log::session_from_imported_owned(imported, inner.config()?, id);
        Ok(inner.with(Some(throw(core)?)))
    }

    /// Appends a message or an array of messages; returns their entry ids. Costs O(new messages).
    pub fn append(&self, messages: JsValue) -> Result<Array, JsValue> {
        let list: Array = if Array::is_array(&messages) {
            super::plain::snapshot(&messages, "messages")?
        } else if messages.is_object() {
            Array::of1(&messages)
        } else {
            return throw(Err(results::not_messages()));
        };
        let json: Vec<Value> = list
            .iter()
            .enumerate()
            .map(|(i, m)| to_json(&m, &format!("messages[{i}]"), Plain::Stored, "the message"))
            .collect::<Result<_, _>>()?;
        let inner = &self.inner;
        let mut state = inner.state.borrow_mut();
        let (given, now) = (inner.options.format, js_sys::Date::now());
        let id = || inner.session_options.id.clone().unwrap_or_else(fresh_id);
        let fresh = state.fresh(json.len(), given, || inner.config(), id)?;
        let grow = super::heap::headroom;
        let ids = state.append(&json, list.iter().collect(), fresh, given, now, &grow);
        let ids = throw(ids)?;
        Ok(ids.iter().map(|id| JsValue::from_str(id)).collect())
    }

    /// Records the provider's usage of the latest response; the count up to the latest assistant
    /// message is taken from it. Returns the entry id.
    #[wasm_bindgen(js_name = recordUsage)]
    pub fn record_usage(&self, usage: JsValue) -> Result<String, JsValue> {
        let usage = to_json(&usage, "usage", Plain::Options, "usage")?;
        let mut state = self.inner.state.borrow_mut();
        throw(results::record_usage(state.core.as_mut(), &usage))
    }

    /// `{ shouldCompact, tokens, threshold, reason, background, calibration }` in O(1).
    pub fn check(&self) -> JsValue {
        let state = self.inner.state.borrow();
        to_js(&results::check(state.core.as_ref(), &self.inner.options))
    }

    /// The live context: `{ messages, tokens, cachePoints, summaryIndex, format }`.
    pub fn render(&self, options: JsValue) -> Result<JsValue, JsValue> {
        super::convert::check_keys(&options, &RENDER_KEYS)?;
        self.inner.render(&options)
    }

    /// The whole log as JSONL.
    #[wasm_bindgen(js_name = toJSONL)]
    pub fn to_jsonl(&self) -> String {
        self.inner.state.borrow().to_jsonl()
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
        let number = |v: &JsValue| (!v.is_undefined()).then(|| v.as_f64().unwrap_or(f64::NAN));
        let state = self.inner.state.borrow();
        let part = results::jsonl_part(state.core.as_ref(), number(&from), number(&max_bytes));
        let (text, out) = throw(part)?;
        let out = to_js(&out);
        set(&out, "text", &JsValue::from_str(&text));
        Ok(out)
    }

    /// The JSONL lines written since the previous `flush` (the header the first time): append
    /// them to a file, which then never needs rewriting.
    pub fn flush(&self) -> String {
        self.inner.state.borrow_mut().flush()
    }

    /// A new session from entry `entryId` (a message, a compaction...): before a compaction it
    /// undoes it; after one it keeps it; `null` branches before the first entry (an empty
    /// context). The original is unchanged.
    pub fn branch(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string | null")] entry_id: JsValue,
    ) -> Result<Session, JsValue> {
        let entry_id = (!entry_id.is_null()).then(|| text_arg(&entry_id, "entryId"));
        let entry_id = entry_id.transpose()?;
        let state = self.inner.state.borrow();
        let branched = state.branch(entry_id.as_deref(), fresh_id(), &self.inner.options);
        let inner = Inner {
            options: self.inner.options.clone(),
            session_options: self.inner.session_options.for_branch(),
            callbacks: self.inner.callbacks.clone(),
            state: RefCell::new(throw(branched)?),
        };
        Ok(Session {
            inner: Rc::new(inner),
        })
    }

    /// Every entry: `{ id, parentId, type }`, oldest first; a compaction entry also carries its
    /// `summary`, `firstKeptEntryId`, `tokensBefore`, `tokensAfter` and `round`.
    pub fn entries(&self) -> JsValue {
        to_js(&results::entries(self.inner.state.borrow().core.as_ref()))
    }

    /// Adds a note to the memory block; returns its entry id. Once there are 15 notes,
    /// `prepare()` condenses the oldest 10 into the block's summary.
    #[wasm_bindgen(js_name = addNote)]
    pub fn add_note(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    ) -> Result<String, JsValue> {
        let text = text_arg(&text, "text")?;
        let mut state = self.inner.state.borrow_mut();
        throw(results::add_note(state.core.as_mut(), text))
    }

    /// The memory block: `{ summary, notes, text }` (`text` is what to put in the system prompt).
    pub fn memory(&self) -> JsValue {
        to_js(&results::memory(self.inner.state.borrow().core.as_ref()))
    }

    /// Grows with every change of the log.
    #[wasm_bindgen(getter)]
    pub fn version(&self) -> f64 {
        self.inner.state.borrow().version()
    }

    /// True while a compaction (foreground or background) is running.
    #[wasm_bindgen(getter, js_name = isCompacting)]
    pub fn is_compacting(&self) -> bool {
        self.inner.state.borrow().running
    }

    /// The torn last line `fromJSONL` left out, `{ line, error }`, or `undefined`.
    #[wasm_bindgen(getter, js_name = tornLine)]
    pub fn torn_line(&self) -> JsValue {
        let torn = results::torn_line(self.inner.state.borrow().core.as_ref());
        torn.map_or(JsValue::UNDEFINED, |t| to_js(&t))
    }

    /// The session's id.
    #[wasm_bindgen(getter)]
    pub fn id(&self) -> Option<String> {
        let state = self.inner.state.borrow();
        state.core.as_ref().map(|c| c.header().id.clone())
    }

    /// The trap guard's copy of the log (js/guard.mjs; the rule is `core::session::copy`): the
    /// lines it lacks, up to about `byteLimit` bytes, as one string ([`core_session::LogCopy`]);
    /// `""` when the copy is up to date. A string only: nothing is made in JS during the call.
    /// Not API.
    #[wasm_bindgen(js_name = __logSince, skip_typescript)]
    pub fn log_since(&self, byte_limit: u32) -> String {
        self.inner.state.borrow_mut().log_since(byte_limit as usize)
    }
}
