//! Compactions of a `Session`: `compact()` (waits for one already running), and `prepare()`, the
//! render pipeline before a request (it first waits for a compaction running in the foreground,
//! then does what the core's [`on_pressure`] says: compact at the trigger, or start a background
//! compaction past the background threshold; then renders). Every compaction is the core's step machine ([`crate::core::pipeline::Job`]), run
//! by the runner the `Compactor` shares ([`super::runner`]): trigger gate, breaker, `onFailure`
//! and the extractive fallback, continuation. A compaction works on a snapshot and commits with
//! the core's rule, so the conversation may go on while the summary is written.

use std::rc::Rc;

use js_sys::{Array, Function, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::call::call_options;
use super::convert::to_js;
use super::error::to_js as error_to_js;
use super::options::estimator_for;
use super::runner::{run as run_job, summarize_once, Context, Host, Ran};
use super::session::{snapshot_originals, Inner, Session};
use crate::core::error::Error;
use crate::core::message::Part;
use crate::core::pipeline::{
    on_pressure, Compacted, Input, Job, Kind, Pipeline, Prepare, NOTHING_TO_COMPACT,
};
use crate::core::plan::Plan;
use crate::core::prepare::{prepare_floored, History};
use crate::core::prune::{Style, TtlOptions};
use crate::core::session::{notes, Outcome, Pressure, Snapshot};
use crate::core::summary::SummaryMode;
use crate::formats::{Codec, Format};
use std::cell::RefMut;

/// A promise with its resolve function: marks a running compaction.
struct Running {
    resolve: Function,
}

impl Running {
    /// Installs a running marker in the session (the caller checked that none is running).
    fn install(inner: &Inner, background: bool) -> Running {
        let mut resolve = None;
        let promise = Promise::new(&mut |res, _| resolve = Some(res));
        let mut state = inner.state.borrow_mut();
        state.running = Some(promise);
        state.running_background = background;
        Running {
            resolve: resolve.unwrap_or_else(|| Function::new_no_args("")),
        }
    }

    fn finish(self, inner: &Inner) {
        let mut state = inner.state.borrow_mut();
        state.running = None;
        state.running_background = false;
        drop(state);
        let _ = self.resolve.call0(&JsValue::UNDEFINED);
    }
}

/// Condenses the memory block's oldest notes when they are due (seed 004: 10 of 15).
async fn compact_notes(inner: &Rc<Inner>, options: &JsValue) -> Result<(), JsValue> {
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
        return Ok(());
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
        return Ok(());
    }
    let call = call_options(options);
    let max = inner.options.settings.plan.summary_tokens;
    let summary = summarize_once(
        &inner.options,
        &inner.callbacks,
        &inner.reentry,
        "memory",
        notes::NOTES_SYSTEM,
        &prompt,
        max,
        &call.signal,
    )
    .await?;
    let mut state = inner.state.borrow_mut();
    if let Some(core) = state.core.as_mut() {
        // Notes added meanwhile are newer: the oldest `count` are still the ones summarized.
        core.compact_notes(summary, count);
    }
    Ok(())
}

/// Waits until no compaction runs (`foreground_only`: a background one may go on).
async fn idle(inner: &Inner, foreground_only: bool) {
    loop {
        let running = {
            let state = inner.state.borrow();
            state
                .running
                .clone()
                .filter(|_| !(foreground_only && state.running_background))
        };
        match running {
            Some(p) => {
                let _ = JsFuture::from(p).await;
            }
            None => return,
        }
    }
}

fn unchanged(inner: &Inner, tokens: usize, warning: &str) -> Result<JsValue, JsValue> {
    let result = to_js(&serde_json::json!({
        "compacted": false, "summary": null, "tokensBefore": tokens, "tokensAfter": tokens,
        "round": 0, "splitTurn": false, "digest": null, "warnings": [warning], "entryId": null,
    }));
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

/// One compaction (the running marker is installed by the caller and finished here).
async fn run(
    inner: Rc<Inner>,
    running: Running,
    options: JsValue,
    kind: Kind,
) -> Result<JsValue, JsValue> {
    let outcome = run_inner(&inner, &options, kind).await;
    running.finish(&inner);
    outcome
}

/// One compaction as the core's pipeline decides it: the trigger gate, the breaker, `onFailure`
/// and the extractive fallback are the `Compactor`'s, on the session's snapshot.
async fn run_inner(inner: &Rc<Inner>, options: &JsValue, kind: Kind) -> Result<JsValue, JsValue> {
    let call = call_options(options);
    let (snapshot, originals, format, budget) = {
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
    let estimate = |t: &str| estimator.counter.count(t);
    let job = Job::new(Input {
        kind,
        should_compact: prepared.decision.should_compact || call.force,
        tokens_before,
        messages: &snapshot.messages,
        plan: &plan,
        options: &inner.options,
        estimator: &estimator,
        estimate: &estimate,
        round,
        instructions: call.instructions.clone(),
        state: previous_state.as_ref(),
        summarizer: inner.callbacks.summarize.is_some(),
        // The continue message, when the style has one, is appended to the log after the commit.
        continues: false,
        warn_repeat: false,
    });
    let host = Commit {
        inner,
        snapshot: &snapshot,
        originals: &originals,
        plan: &plan,
        format,
        kind,
    };
    let cx = Context {
        options: &inner.options,
        callbacks: &inner.callbacks,
        reentry: &inner.reentry,
        estimator: &estimator,
        all: &originals,
        format,
        call: &call,
        state: previous_state.as_ref(),
        conversation: seen.as_ref(),
        tokens_before,
    };
    match run_job(job, &host, &cx).await? {
        Ran::Committed(result) => Ok(result),
        Ran::Unchanged(warning) => unchanged(inner, tokens_before, &warning),
    }
}

/// The session as the runner's host: its pipeline, and the log entry of a committed compaction.
struct Commit<'a> {
    inner: &'a Rc<Inner>,
    snapshot: &'a Snapshot,
    originals: &'a Array,
    plan: &'a Plan,
    format: Format,
    kind: Kind,
}

impl Host for Commit<'_> {
    fn pipeline(&self) -> RefMut<'_, Pipeline> {
        RefMut::map(self.inner.state.borrow_mut(), |s| &mut s.pipeline)
    }

    fn failed(&self, error: &JsValue) {
        if self.kind == Kind::Background {
            // Said once by the next `prepare()`, whatever the policy made of it.
            self.inner.state.borrow_mut().background_error = Some(error.clone());
        }
    }

    fn commit(&self, done: Compacted) -> Result<JsValue, JsValue> {
        let (inner, plan, format) = (self.inner, self.plan, self.format);
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
                .commit(self.snapshot, plan, &outcome)
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

#[wasm_bindgen]
impl Session {
    /// Compacts now; waits for a compaction already running first.
    pub fn compact(&self, options: JsValue) -> Promise {
        if let Err(e) = super::convert::check_keys(&options, &["instructions", "signal", "force"]) {
            return Promise::reject(&e);
        }
        if let Err(e) = self.inner.reentry.check("compact") {
            return Promise::reject(&e);
        }
        super::heap::headroom();
        let inner = Rc::clone(&self.inner);
        // Marked as running at once when nothing runs, so `isCompacting` holds right after the call.
        let idle_now = inner.state.borrow().running.is_none();
        let now = idle_now.then(|| Running::install(&inner, false));
        wasm_bindgen_futures::future_to_promise(async move {
            let running = match now {
                Some(r) => r,
                None => {
                    idle(&inner, false).await;
                    Running::install(&inner, false)
                }
            };
            run(inner, running, options, Kind::Manual).await
        })
    }

    /// The render pipeline before a request: compaction at the trigger (or `force`), a background
    /// compaction past the background threshold, then the render.
    pub fn prepare(&self, options: JsValue) -> Promise {
        let allowed = [
            "instructions",
            "signal",
            "force",
            "now",
            "cacheControl",
            "reservedCachePoints",
            "background",
        ];
        if let Err(e) = super::convert::check_keys(&options, &allowed) {
            return Promise::reject(&e);
        }
        if let Err(e) = self.inner.reentry.check("prepare") {
            return Promise::reject(&e);
        }
        super::heap::headroom();
        let now = Reflect::get(&options, &JsValue::from_str("now")).unwrap_or(JsValue::UNDEFINED);
        if !now.is_undefined() && !now.as_f64().is_some_and(f64::is_finite) {
            return Promise::reject(&error_to_js(
                &Error::invalid_option("now", "now must be a finite time in milliseconds"),
                None,
            ));
        }
        // `background: false`: no background compaction from this call (a store-backed session
        // starts its own under the store's lease).
        let background = match Reflect::get(&options, &JsValue::from_str("background")) {
            Ok(v) if v.is_undefined() => true,
            Ok(v) => match v.as_bool() {
                Some(b) => b,
                None => {
                    return Promise::reject(&error_to_js(
                        &Error::invalid_option("background", "must be a boolean"),
                        None,
                    ))
                }
            },
            Err(_) => true,
        };
        let inner = Rc::clone(&self.inner);
        wasm_bindgen_futures::future_to_promise(async move {
            let force = call_options(&options).force;
            // Seed 003's first render step: hide tool results older than the cache lifetime.
            if let Some(Style::Ttl(ttl)) =
                inner.options.settings.plan.prune.as_ref().map(|p| &p.style)
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
            // Seed 004: a request waits for a compaction running in the foreground (one in
            // the background is what lets requests go on).
            idle(&inner, true).await;
            let pressure = {
                let state = inner.state.borrow();
                state.core.as_ref().map(|c| c.pressure().1)
            };
            match on_pressure(pressure, force, background) {
                Prepare::Compact {
                    kind,
                    unless_relieved,
                } => {
                    // A background compaction may bring it under the trigger: wait for it first.
                    idle(&inner, false).await;
                    let still = {
                        let state = inner.state.borrow();
                        state.core.as_ref().map(|c| c.pressure().1)
                    };
                    if !unless_relieved || still == Some(Pressure::Hard) {
                        let running = Running::install(&inner, false);
                        run(Rc::clone(&inner), running, options.clone(), kind).await?;
                    }
                }
                Prepare::Background if inner.state.borrow().running.is_none() => {
                    let running = Running::install(&inner, true);
                    let bg = Rc::clone(&inner);
                    let opts = options.clone();
                    wasm_bindgen_futures::spawn_local(async move {
                        let outcome = run(Rc::clone(&bg), running, opts, Kind::Background).await;
                        if let Err(error) = outcome {
                            bg.state.borrow_mut().background_error = Some(error);
                        }
                    });
                }
                Prepare::Background | Prepare::Render => {}
            }
            compact_notes(&inner, &options).await?;
            let result = inner.render(&options)?;
            // A background compaction that failed changed nothing; say so once.
            let failed = inner.state.borrow_mut().background_error.take();
            if let Some(error) = failed {
                super::convert::set(&result, "backgroundError", &error);
            }
            Ok(result)
        })
    }
}
