//! Compactions of a `Session`, the synchronous parts that `js/driver.mjs` strings together for
//! `compact()` (waits for one already running) and `prepare()` (the render pipeline before a
//! request: it waits for a compaction running in the foreground, then does what the core's
//! [`on_pressure`] says: compact at the trigger, or start a background compaction past the
//! background threshold; then condenses the memory block's notes when due and renders). Every
//! compaction is the core's step machine ([`crate::core::pipeline::Job`]: trigger gate, breaker,
//! `onFailure` and the extractive fallback, continuation) handed to JS as a [`Driven`] handle; a
//! memory block's request is the core's [`Once`]. A compaction works on a snapshot and commits
//! with the core's rule, so the conversation may go on while the summary is written.

use std::rc::Rc;

use js_sys::{Array, Reflect};
use serde_json::json;
use wasm_bindgen::prelude::*;

use super::compact::call_options;
use super::convert::{get, to_js};
use super::driven::{Driven, Host, Owner, Requests};
use super::error::to_js as error_to_js;
use super::options::estimator_for;
use super::session::{snapshot_originals, Inner, Session};
use crate::core::error::Error;
use crate::core::message::Part;
use crate::core::pipeline::{
    on_pressure, Compacted, Input, Job, Kind, Once, Prepare, NOTHING_TO_COMPACT,
};
use crate::core::prepare::{prepare_floored, History};
use crate::core::prune::{Style, TtlOptions};
use crate::core::session::{notes, Outcome, Pressure, Snapshot};
use crate::core::summary::SummaryMode;
use crate::formats::{Codec, Format};

/// The memory block's oldest notes when they are due (seed 004: 10 of 15): condensed at once
/// without a model, or the request for the summarizer as a [`Driven`] handle.
fn compact_notes(inner: &Rc<Inner>, options: &JsValue) -> JsValue {
    let due = {
        let state = inner.state.borrow();
        state.core.as_ref().and_then(|c| {
            let block = c.notes();
            block.due().map(|notes| {
                (
                    notes::notes_prompt(block.summary.as_deref(), notes),
                    notes.len(),
                )
            })
        })
    };
    let Some((prompt, count)) = due else {
        return JsValue::UNDEFINED;
    };
    if inner.options.extractive || inner.callbacks.summarize.is_none() {
        // No model: the notes themselves, after the previous summary, within the budget.
        let mut state = inner.state.borrow_mut();
        if let Some(core) = state.core.as_mut() {
            let block = core.notes();
            let notes = block.notes.get(..count).unwrap_or_default();
            let max_chars = inner.options.settings.plan.summary_tokens.saturating_mul(4);
            let summary = notes::extractive_summary(block.summary.as_deref(), notes, max_chars);
            core.compact_notes(summary, count);
        }
        return JsValue::UNDEFINED;
    }
    let max = inner.options.settings.plan.summary_tokens;
    let once = Once::new(&inner.options, notes::NOTES_SYSTEM, &prompt, max);
    let host = Notes {
        inner: Rc::clone(inner),
        count,
    };
    Driven::once(once, Box::new(host), call_options(options).signal).into()
}

/// The session as the host of a memory block's request.
struct Notes {
    inner: Rc<Inner>,
    count: usize,
}

impl Host for Notes {
    fn owner(&self) -> &dyn Owner {
        &*self.inner
    }

    fn answered(&self, summary: String) {
        let mut state = self.inner.state.borrow_mut();
        if let Some(core) = state.core.as_mut() {
            // Notes added meanwhile are newer: the oldest `count` are still the ones summarized.
            core.compact_notes(summary, self.count);
        }
    }
}

fn unchanged(inner: &Inner, tokens: usize, warning: &str) -> Result<JsValue, JsValue> {
    let mut json = crate::core::report::unchanged(tokens, warning);
    if let Some(fields) = json.as_object_mut() {
        fields.insert("entryId".into(), serde_json::Value::Null);
    }
    let result = to_js(&json);
    let mut state = inner.state.borrow_mut();
    let messages = inner.rendered(&mut state)?;
    super::convert::set(&result, "messages", &messages);
    super::convert::set(&result, "removed", &Array::new());
    Ok(result)
}

/// The session's rendered messages for `options` (a continuing request's conversation); `None`
/// when they cannot be rendered (the request then carries the stored messages).
fn seen_conversation(inner: &Inner, options: &JsValue) -> Option<Array> {
    let rendered = inner.render(options).ok()?;
    Reflect::get(&rendered, &JsValue::from_str("messages"))
        .ok()
        .map(JsCast::unchecked_into)
}

/// One compaction as the core's pipeline decides it (the trigger gate, the breaker, `onFailure`
/// and the extractive fallback are the `Compactor`'s, on the session's snapshot): the result of
/// one that changes nothing, or the [`Driven`] compaction.
fn start(inner: &Rc<Inner>, options: &JsValue, kind: Kind) -> Result<JsValue, JsValue> {
    let call = call_options(options);
    let (mut snapshot, originals, format, budget) = {
        let mut state = inner.state.borrow_mut();
        let Some(core) = state.core.as_ref() else {
            drop(state);
            return unchanged(inner, 0, NOTHING_TO_COMPACT);
        };
        let snapshot = core.snapshot();
        let budget = core.budget();
        let format = Format::parse(&core.header().format)
            .ok()
            .flatten()
            .unwrap_or(Format::AiSdk);
        let originals = snapshot_originals(inner, &mut state, &snapshot, format);
        (snapshot, originals, format, budget)
    };
    // The conversation as the model last saw it, for a continuing request: the context as
    // `render()`/`prepare()` give it (pruned parts replaced, cache markers placed by the call's
    // render options).
    let seen = (inner.options.settings.summary_mode == SummaryMode::Continue)
        .then(|| seen_conversation(inner, options))
        .flatten();
    // The budget the session's check uses (the margin of `safetyMargin: "auto"` included).
    let mut settings = inner.options.settings.clone();
    settings.budget = budget;
    let estimator = estimator_for(&inner.options)?;
    let cost = |p: &Part| estimator.part_tokens(p);
    let prepared = prepare_floored(
        &settings,
        &History {
            messages: &snapshot.messages,
            tokens: &snapshot.tokens,
            total: snapshot.total,
            part_cost: &cost,
        },
        snapshot.floor,
        call.force,
    )
    .map_err(|e| error_to_js(&e, None))?;
    let tokens_before = snapshot.total;
    let plan = prepared.plan;
    let round = snapshot.round(
        &plan,
        &crate::core::summary::Recognizer::with(&inner.options.settings.summary),
    );
    let previous_state = snapshot.previous.as_ref().and_then(|c| c.state.clone());
    let mut requests = Requests::new(originals.clone(), format, tokens_before);
    requests.conversation = seen;
    requests.state = previous_state.clone();
    let job = Job::new(Input {
        kind,
        should_compact: prepared.decision.should_compact || call.force,
        tokens_before,
        // Taken, not copied: the commit gives them back to the snapshot.
        messages: std::mem::take(&mut snapshot.messages),
        plan,
        options: inner.options.clone(),
        estimator,
        round,
        instructions: call.instructions.clone(),
        state: previous_state,
        summarizer: inner.callbacks.summarize.is_some(),
        // The continue message, when the style has one, is appended to the log after the commit.
        continues: false,
        warn_repeat: false,
    });
    let host = Commit {
        inner: Rc::clone(inner),
        snapshot,
        originals,
        format,
        kind,
    };
    Ok(Driven::job(job, Box::new(host), requests, call.signal).into())
}

/// The session as the host of a driven compaction: its pipeline, and the log entry of a
/// committed compaction.
struct Commit {
    inner: Rc<Inner>,
    snapshot: Snapshot,
    originals: Array,
    format: Format,
    kind: Kind,
}

impl Host for Commit {
    fn owner(&self) -> &dyn Owner {
        &*self.inner
    }

    fn unchanged(&self, tokens: usize, warning: &str) -> Result<JsValue, JsValue> {
        unchanged(&self.inner, tokens, warning)
    }

    fn failed(&self, error: &JsValue) {
        if self.kind == Kind::Background {
            // Said once by the next `prepare()`, whatever the policy made of it.
            self.inner.state.borrow_mut().background_error = Some(error.clone());
        }
    }

    fn commit(&mut self, input: &mut Input, done: Compacted) -> Result<JsValue, JsValue> {
        // The messages the job took from the snapshot, back for the commit's checks.
        self.snapshot.messages = std::mem::take(&mut input.messages);
        let (inner, plan, format) = (&self.inner, &input.plan, self.format);
        let outcome = Outcome {
            summary: done.summary.clone(),
            tokens_after: done.tokens_after,
            round: done.round,
            digest: done.digest.clone(),
            state: done.state.clone(),
            timestamp: Some(js_sys::Date::now() as i64),
        };
        let entry_id = {
            let mut state = inner.state.borrow_mut();
            let core = state
                .core
                .as_mut()
                .ok_or_else(|| error_to_js(&Error::invalid_input("session", "empty"), None))?;
            let id = core
                .commit(&self.snapshot, plan, &outcome)
                .map_err(|e| error_to_js(&e, None))?;
            // Logged in the session's format, as if the caller had appended it.
            let continued = self
                .kind
                .continues()
                .then(|| core.continue_message())
                .flatten()
                .and_then(|m| format.export(std::slice::from_ref(&m)).pop())
                .and_then(|value| {
                    crate::formats::message_importer(format)(&value, "continue").ok()
                });
            if let Some(message) = continued {
                core.append(vec![message]);
                let len = core.log().len();
                state.originals.resize(len, JsValue::UNDEFINED);
            }
            id
        };
        let removed: Array = done
            .removed
            .iter()
            .map(|&i| self.originals.get(u32::try_from(i).unwrap_or(u32::MAX)))
            .collect();
        let mut result = done.result();
        if let Some(fields) = result.as_object_mut() {
            fields.insert("entryId".into(), entry_id.into());
            fields.insert("state".into(), outcome.state.clone().into());
        }
        let result = to_js(&result);
        let messages = {
            let mut state = inner.state.borrow_mut();
            inner.rendered(&mut state)?
        };
        super::convert::set(&result, "messages", &messages);
        super::convert::set(&result, "removed", &removed);
        Ok(result)
    }
}

/// A kind of compaction as `js/driver.mjs` names it.
fn kind_of(name: &str) -> Kind {
    match name {
        "automatic" => Kind::Automatic,
        "forced" => Kind::Forced,
        "background" => Kind::Background,
        _ => Kind::Manual,
    }
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Manual => "manual",
        Kind::Automatic => "automatic",
        Kind::Forced => "forced",
        Kind::Background => "background",
    }
}

#[wasm_bindgen]
impl Session {
    /// Checks the options of `compact()` (`method` "compact") or `prepare()`; for `prepare()`
    /// returns `{ force, background }` (`background: false`: no background compaction from
    /// this call; a store-backed session starts its own under the store's lease).
    #[wasm_bindgen(js_name = __checkCall)]
    pub fn check_call(&self, options: JsValue, method: &str) -> Result<JsValue, JsValue> {
        if method == "compact" {
            super::convert::check_keys(&options, &["instructions", "signal", "force"])?;
            super::heap::headroom();
            return Ok(JsValue::UNDEFINED);
        }
        let allowed = [
            "instructions",
            "signal",
            "force",
            "now",
            "cacheControl",
            "reservedCachePoints",
            "background",
        ];
        super::convert::check_keys(&options, &allowed)?;
        super::heap::headroom();
        let now = get(&options, "now");
        if !now.is_undefined() && !now.as_f64().is_some_and(f64::is_finite) {
            return Err(error_to_js(
                &Error::invalid_option("now", "now must be a finite time in milliseconds"),
                None,
            ));
        }
        let background = get(&options, "background");
        let background = if background.is_undefined() {
            true
        } else {
            background.as_bool().ok_or_else(|| {
                error_to_js(
                    &Error::invalid_option("background", "must be a boolean"),
                    None,
                )
            })?
        };
        let force = call_options(&options).force;
        Ok(to_js(&json!({"force": force, "background": background})))
    }

    /// Seed 003's first render step: hides tool results older than the cache lifetime.
    #[wasm_bindgen(js_name = __pruneTtl)]
    pub fn prune_ttl(&self, options: JsValue) {
        let inner = &self.inner;
        if let Some(Style::Ttl(ttl)) = inner.options.settings.plan.prune.as_ref().map(|p| &p.style)
        {
            let now = Reflect::get(&options, &JsValue::from_str("now"))
                .ok()
                .and_then(|v| v.as_f64())
                .unwrap_or_else(js_sys::Date::now);
            #[allow(clippy::cast_possible_truncation)]
            let ttl = TtlOptions {
                now: now as i64,
                ..ttl.clone()
            };
            if let Some(core) = inner.state.borrow_mut().core.as_mut() {
                core.prune_ttl(&ttl);
            }
        }
    }

    /// What `prepare()` does now ([`on_pressure`]): `{ action: "compact", kind, unlessRelieved }`,
    /// `{ action: "background" }` or `{ action: "render" }`.
    #[wasm_bindgen(js_name = __onPressure)]
    pub fn pressure(&self, force: bool, background: bool) -> JsValue {
        let pressure = self
            .inner
            .state
            .borrow()
            .core
            .as_ref()
            .map(|c| c.pressure().1);
        to_js(&match on_pressure(pressure, force, background) {
            Prepare::Compact {
                kind,
                unless_relieved,
            } => {
                json!({"action": "compact", "kind": kind_name(kind), "unlessRelieved": unless_relieved})
            }
            Prepare::Background => json!({"action": "background"}),
            Prepare::Render => json!({"action": "render"}),
        })
    }

    /// The context is past the trigger.
    #[wasm_bindgen(js_name = __pastTrigger)]
    pub fn past_trigger(&self) -> bool {
        let state = self.inner.state.borrow();
        state.core.as_ref().map(|c| c.pressure().1) == Some(Pressure::Hard)
    }

    /// Starts a compaction of `kind` ("manual", "automatic", "forced", "background"): its
    /// result when it changes nothing, or the `__Driven` compaction.
    #[wasm_bindgen(js_name = __compact)]
    pub fn start_compaction(&self, options: JsValue, kind: &str) -> Result<JsValue, JsValue> {
        start(&self.inner, &options, kind_of(kind))
    }

    /// The memory block's notes when due: condensed now (`undefined`), or the request as a
    /// `__Driven` handle.
    #[wasm_bindgen(js_name = __compactNotes)]
    pub fn notes(&self, options: JsValue) -> JsValue {
        compact_notes(&self.inner, &options)
    }

    /// Marks a compaction as running (`isCompacting`) or over.
    #[wasm_bindgen(js_name = __setRunning)]
    pub fn set_running(&self, running: bool) {
        self.inner.state.borrow_mut().running = running;
    }

    /// The error of a background compaction that failed, said once by the next `prepare()`.
    #[wasm_bindgen(js_name = __backgroundFailed)]
    pub fn background_failed(&self, error: JsValue) {
        self.inner.state.borrow_mut().background_error = Some(error);
    }

    /// The end of `prepare()`: the render, with the error of a background compaction that
    /// failed since the last one (it changed nothing).
    #[wasm_bindgen(js_name = __render)]
    pub fn prepared(&self, options: JsValue) -> Result<JsValue, JsValue> {
        let result = self.inner.render(&options)?;
        let failed = self.inner.state.borrow_mut().background_error.take();
        if let Some(error) = failed {
            super::convert::set(&result, "backgroundError", &error);
        }
        Ok(result)
    }
}
