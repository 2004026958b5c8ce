//! One call of the caller's `summarize` function: it receives an `AbortSignal` that aborts on
//! timeout or when the caller's own signal aborts, its answer may be a value or a promise of one,
//! and every timer and listener is removed afterwards (a pending timer would keep Node alive).
//! Also: awaiting a hook for at most `timeoutMs` ([`settle`]), and the re-entry guard that refuses
//! `compact()`/`prepare()` from inside the handle's own summarizer or hook ([`Reentry`]).

use crate::core::error::{Error, ErrorCode};
use js_sys::{Function, Object, Promise, Reflect};
use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

/// How one call ended, other than with an answer.
pub enum CallError {
    /// The caller's signal aborted (its reason).
    Aborted(JsValue),
    /// No answer within the timeout.
    Timeout,
    /// The function threw or its promise rejected (with this value).
    Failed(JsValue),
}

fn global_fn(name: &str) -> Option<Function> {
    Reflect::get(&js_sys::global(), &JsValue::from_str(name))
        .ok()?
        .dyn_into::<Function>()
        .ok()
}

/// Whether `signal` (an `AbortSignal`, or undefined) has aborted.
pub fn is_aborted(signal: &JsValue) -> bool {
    !signal.is_undefined()
        && !signal.is_null()
        && Reflect::get(signal, &JsValue::from_str("aborted"))
            .ok()
            .and_then(|v| v.as_bool())
            .unwrap_or(false)
}

/// The reason of an aborted signal.
pub fn reason(signal: &JsValue) -> JsValue {
    Reflect::get(signal, &JsValue::from_str("reason")).unwrap_or(JsValue::UNDEFINED)
}

fn listen(signal: &JsValue, listener: &Function, add: bool) {
    let method = if add {
        "addEventListener"
    } else {
        "removeEventListener"
    };
    if let Ok(f) = Reflect::get(signal, &JsValue::from_str(method)) {
        if let Ok(f) = f.dyn_into::<Function>() {
            let _ = f.call2(signal, &JsValue::from_str("abort"), listener);
        }
    }
}

/// A promise that resolves after `ms` milliseconds.
fn sleep(ms: u64) -> Promise {
    Promise::new(&mut |resolve, _| {
        if let Some(set_timeout) = global_fn("setTimeout") {
            let _ = set_timeout.call2(&JsValue::UNDEFINED, &resolve, &JsValue::from_f64(ms as f64));
        }
    })
}

fn clear(timer: JsValue) {
    if let Some(clear_timeout) = global_fn("clearTimeout") {
        let _ = clear_timeout.call1(&JsValue::UNDEFINED, &timer);
    }
}

/// Waits `ms` milliseconds unless `signal` aborts first (then `Err` with its reason).
pub async fn pause(ms: u64, signal: &JsValue) -> Result<(), JsValue> {
    if ms == 0 {
        return if is_aborted(signal) {
            Err(reason(signal))
        } else {
            Ok(())
        };
    }
    let _ = JsFuture::from(sleep(ms)).await;
    if is_aborted(signal) {
        Err(reason(signal))
    } else {
        Ok(())
    }
}

/// Calls `summarize(request)` once: sets `request.signal`, races the answer against the timeout
/// and the caller's signal, and cleans up.
pub async fn call_once(
    summarize: &Function,
    request: &Object,
    timeout_ms: u64,
    caller_signal: &JsValue,
    reentry: &Reentry,
) -> Result<JsValue, CallError> {
    if is_aborted(caller_signal) {
        return Err(CallError::Aborted(reason(caller_signal)));
    }
    let controller = global_fn("AbortController")
        .and_then(|c| Reflect::construct(&c, &js_sys::Array::new()).ok())
        .unwrap_or(JsValue::UNDEFINED);
    let signal =
        Reflect::get(&controller, &JsValue::from_str("signal")).unwrap_or(JsValue::UNDEFINED);
    let _ = Reflect::set(request, &JsValue::from_str("signal"), &signal);
    let abort_controller = |why: &JsValue| {
        if let Ok(f) = Reflect::get(&controller, &JsValue::from_str("abort"))
            .and_then(|f| f.dyn_into::<Function>())
        {
            let _ = f.call1(&controller, why);
        }
    };

    let answer = match reentry.call1(summarize, request) {
        Ok(value) => Promise::resolve(&value),
        Err(thrown) => return Err(CallError::Failed(thrown)),
    };
    let timed_out = JsValue::from(Object::new());
    let aborted = JsValue::from(Object::new());
    let (timeout, timer_id) = timer(timeout_ms, &timed_out);
    let listener: Rc<Cell<Option<Function>>> = Rc::new(Cell::new(None));
    let listener_slot = Rc::clone(&listener);
    let on_abort = Promise::new(&mut |resolve, _| {
        if caller_signal.is_object() {
            let bound: Function = resolve
                .bind1(&JsValue::UNDEFINED, &aborted)
                .unchecked_into();
            listen(caller_signal, &bound, true);
            listener_slot.set(Some(bound));
        }
    });
    let race = Promise::race(&js_sys::Array::of3(&answer, &timeout, &on_abort));
    let outcome = JsFuture::from(race).await;
    if let Some(t) = timer_id.take() {
        clear(t);
    }
    if let Some(l) = listener.take() {
        listen(caller_signal, &l, false);
    }
    match outcome {
        Ok(v) if v == timed_out => {
            let why = Error::new(
                ErrorCode::Timeout,
                format!("the summarizer did not answer within {timeout_ms} ms"),
            );
            abort_controller(&super::error::to_js(&why, None));
            Err(CallError::Timeout)
        }
        Ok(v) if v == aborted => {
            let why = reason(caller_signal);
            abort_controller(&why);
            Err(CallError::Aborted(why))
        }
        Ok(v) => Ok(v),
        Err(e) => Err(CallError::Failed(e)),
    }
}

/// An `AbortController` for one batch of parallel calls: it aborts when the caller's signal does
/// (until [`Batch::close`]), and can be aborted when one call of the batch fails, so its siblings
/// stop at once.
pub struct Batch {
    controller: JsValue,
    caller: JsValue,
    forward: Option<Closure<dyn FnMut()>>,
}

impl Batch {
    /// A batch linked to `caller` (an `AbortSignal` or undefined).
    pub fn new(caller: &JsValue) -> Batch {
        let controller = global_fn("AbortController")
            .and_then(|c| Reflect::construct(&c, &js_sys::Array::new()).ok())
            .unwrap_or(JsValue::UNDEFINED);
        let mut batch = Batch {
            controller,
            caller: caller.clone(),
            forward: None,
        };
        if is_aborted(caller) {
            batch.abort(&reason(caller));
        } else if caller.is_object() {
            let (controller, signal) = (batch.controller.clone(), caller.clone());
            let forward = Closure::<dyn FnMut()>::new(move || {
                if let Ok(f) = Reflect::get(&controller, &JsValue::from_str("abort"))
                    .and_then(|f| f.dyn_into::<Function>())
                {
                    let _ = f.call1(&controller, &reason(&signal));
                }
            });
            listen(caller, forward.as_ref().unchecked_ref(), true);
            batch.forward = Some(forward);
        }
        batch
    }

    /// The batch's signal, given to every call of the batch.
    pub fn signal(&self) -> JsValue {
        Reflect::get(&self.controller, &JsValue::from_str("signal")).unwrap_or(JsValue::UNDEFINED)
    }

    /// Aborts every call of the batch.
    pub fn abort(&self, why: &JsValue) {
        if let Ok(f) = Reflect::get(&self.controller, &JsValue::from_str("abort"))
            .and_then(|f| f.dyn_into::<Function>())
        {
            let _ = f.call1(&self.controller, why);
        }
    }

    /// Unlinks the batch from the caller's signal.
    pub fn close(self) {
        if let Some(f) = &self.forward {
            listen(&self.caller, f.as_ref().unchecked_ref(), false);
        }
    }
}

/// What the caller passed as the second argument of `compact`, `maybeCompact` or a session's
/// `compact`/`prepare`: the instructions and signal each summarizer call gets, and `force`.
pub struct CallOptions {
    pub instructions: Option<String>,
    pub signal: JsValue,
    pub force: bool,
}

pub fn call_options(value: &JsValue) -> CallOptions {
    let get = |k: &str| {
        if value.is_object() {
            Reflect::get(value, &JsValue::from_str(k)).unwrap_or(JsValue::UNDEFINED)
        } else {
            JsValue::UNDEFINED
        }
    };
    CallOptions {
        instructions: get("instructions").as_string(),
        signal: get("signal"),
        force: get("force").as_bool().unwrap_or(false),
    }
}

/// Counts the calls into the caller's code (the summarizer, the hooks) that a handle is making
/// right now, so that a `compact()` or `prepare()` that such code makes on the same handle before
/// it returns is refused at once instead of waiting for itself.
#[derive(Clone, Default)]
pub struct Reentry(Rc<Cell<u32>>);

impl Reentry {
    /// Calls `f(arg)` counted.
    pub fn call1(&self, f: &Function, arg: &JsValue) -> Result<JsValue, JsValue> {
        self.0.set(self.0.get().saturating_add(1));
        let value = f.call1(&JsValue::UNDEFINED, arg);
        self.0.set(self.0.get().saturating_sub(1));
        value
    }

    /// `CONFLICT` when called from inside the handle's own summarizer or hook.
    pub fn check(&self, method: &str) -> Result<(), JsValue> {
        if self.0.get() == 0 {
            return Ok(());
        }
        Err(super::error::to_js(
            &Error::new(
                ErrorCode::Conflict,
                format!(
                    "{method}() was called from inside this object's own summarizer or hook: it \
                     would wait for the compaction that is waiting for it; call it after the \
                     compaction settles"
                ),
            ),
            None,
        ))
    }
}

/// What a hook's answer came to within the time limit.
pub enum Settled {
    /// Its value, or the promise's value.
    Value(JsValue),
    /// It threw, or its promise rejected.
    Failed(JsValue),
    /// Its promise did not settle within the limit.
    TimedOut,
}

/// Awaits `value` (a hook's return value, perhaps a promise) for at most `timeout_ms`, so that a
/// hook that never settles cannot hang the compaction or the calls queued behind it.
pub async fn settle(value: JsValue, timeout_ms: u64) -> Settled {
    let Some(promise) = value.dyn_ref::<Promise>() else {
        return Settled::Value(value);
    };
    let timed_out = JsValue::from(Object::new());
    let (timeout, timer_id) = timer(timeout_ms, &timed_out);
    let race = Promise::race(&js_sys::Array::of2(promise, &timeout));
    let outcome = JsFuture::from(race).await;
    if let Some(t) = timer_id.take() {
        clear(t);
    }
    match outcome {
        Ok(v) if v == timed_out => Settled::TimedOut,
        Ok(v) => Settled::Value(v),
        Err(e) => Settled::Failed(e),
    }
}

/// A promise that resolves to `value` after `timeout_ms`, and the slot holding its timer's id (to
/// clear it once the race is decided: a pending timer would keep Node alive).
fn timer(timeout_ms: u64, value: &JsValue) -> (Promise, Rc<Cell<Option<JsValue>>>) {
    let id: Rc<Cell<Option<JsValue>>> = Rc::new(Cell::new(None));
    let slot = Rc::clone(&id);
    let promise = Promise::new(&mut |resolve, _| {
        if let (Some(set_timeout), Ok(bound)) = (
            global_fn("setTimeout"),
            resolve
                .bind1(&JsValue::UNDEFINED, value)
                .dyn_into::<Function>(),
        ) {
            if let Ok(t) = set_timeout.call2(
                &JsValue::UNDEFINED,
                &bound,
                &JsValue::from_f64(timeout_ms as f64),
            ) {
                slot.set(Some(t));
            }
        }
    });
    (promise, id)
}
