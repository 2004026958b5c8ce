//! `__Driven`: one compaction (or a memory block's single request) handed to JS as a handle, so
//! that `js/driver.mjs` carries out its steps and the module holds no closure. `next(event)` takes
//! what happened (plain JS: `undefined`, or `{ kind, call?, value? }`) and returns the next step as
//! plain data (the core's [`Step`] serialized, plus the caller's values it names: `errorValue`,
//! `reasonValue`, `request`, `messages`, and `result` or `error` when done). Steps that need no
//! JS (raising an error, checking the signal, the commit) are taken here, in the same call. The
//! caller's values (answers, thrown errors, abort reasons) are kept here and named by id; what a
//! report means is the core's ([`Machine::event`]), which asks the value what it needs.

use std::cell::RefMut;

use js_sys::{Array, JsString, Object};
use wasm_bindgen::prelude::*;

use super::continuing::{continuing, set_mode, Continuing};
use super::convert::{at, get, set, to_js};
use super::error::to_js as error_to_js;
use super::options::Callbacks;
use super::plain::{check_shape, error_message, Kind};
use crate::core::options::FUNCTION_KEYS;
use crate::core::pipeline::{
    Compacted, Event, Input, Job, Kept, Machine, Once, Outcome, Pipeline, ReportedValue, Seen,
    StateField, Step, ValueId,
};
use crate::core::report;
use crate::core::summary::job::PieceRequest;
use crate::formats::Format;

/// What a driven compaction reads of the handle it runs for: its callbacks and its pipeline
/// (borrowed only while the core takes a step, never while JS runs). The options are the job's.
pub trait Owner {
    fn callbacks(&self) -> &Callbacks;
    fn pipeline(&self) -> RefMut<'_, Pipeline>;
}

/// Makes a handle's `Inner`, which holds `callbacks` and a `state` with the `pipeline`, an
/// [`Owner`]: invoked next to each (`identity.rs`, `session.rs`).
macro_rules! owner {
    ($inner:ty) => {
        impl $crate::wasm::driven::Owner for $inner {
            fn callbacks(&self) -> &$crate::wasm::options::Callbacks {
                &self.callbacks
            }
            fn pipeline(&self) -> std::cell::RefMut<'_, $crate::core::pipeline::Pipeline> {
                std::cell::RefMut::map(self.state.borrow_mut(), |s| &mut s.pipeline)
            }
        }
    };
}
pub(crate) use owner;

/// The handle a compaction runs for: it gives only what differs between handles (the commit, the
/// result of a call that changed nothing, what a failure or an answer does to it).
pub trait Host {
    /// The handle's state.
    fn owner(&self) -> &dyn Owner;
    /// Makes the compaction the handle's: the call's result, or the error to reject with. It may
    /// take the messages back from `input` (the job no longer reads them).
    fn commit(&mut self, _input: &mut Input, _done: Compacted) -> Result<JsValue, JsValue> {
        Ok(JsValue::UNDEFINED)
    }
    /// The result of a call that changed nothing, with `warning`.
    fn unchanged(&self, _tokens: usize, _warning: &str) -> Result<JsValue, JsValue> {
        Ok(JsValue::UNDEFINED)
    }
    /// A failure of the compaction is about to be reported.
    fn failed(&self, _error: &JsValue) {}
    /// The answer of a single request ([`Once`]).
    fn answered(&self, _text: String) {}
}

/// What a summarizer request shows besides the piece and the job's input (its workstream state):
/// the caller's messages and their format, the conversation as the model saw it.
pub struct Requests {
    /// The caller's objects, index-aligned with the job's messages.
    pub all: Array,
    pub format: Format,
    pub conversation: Option<Array>,
    /// Built on the first request (`None` inside: the transcript mode).
    continuing: Option<Option<Continuing>>,
}

impl Requests {
    pub fn new(all: Array, format: Format) -> Requests {
        Requests {
            all,
            format,
            conversation: None,
            continuing: None,
        }
    }
}

/// One compaction or request, driven from JS (see the module documentation).
#[wasm_bindgen(js_name = __Driven, skip_typescript)]
pub struct Driven {
    machine: Machine,
    host: Box<dyn Host>,
    requests: Option<Requests>,
    signal: JsValue,
    values: Values,
    result: JsValue,
}

impl Driven {
    /// A compaction of `job` for `host`, under the caller's `signal`.
    pub fn job(job: Job, host: Box<dyn Host>, requests: Requests, signal: JsValue) -> Driven {
        Driven::of(Machine::job(job), host, Some(requests), signal)
    }

    /// A single request for `host` (its answer goes to [`Host::answered`]).
    pub fn once(once: Once, host: Box<dyn Host>, signal: JsValue) -> Driven {
        Driven::of(Machine::once(once), host, None, signal)
    }

    fn of(
        machine: Machine,
        host: Box<dyn Host>,
        requests: Option<Requests>,
        signal: JsValue,
    ) -> Driven {
        Driven {
            machine,
            host,
            requests,
            signal,
            values: Values::default(),
            result: JsValue::UNDEFINED,
        }
    }

    /// The core's event for what JS says happened (`{ kind, call?, value? }`).
    fn event(&mut self, event: &JsValue) -> Event {
        let kind = get(event, "kind").as_string().unwrap_or_default();
        let mut value = Reported {
            values: &mut self.values,
            value: get(event, "value"),
        };
        (self.machine).event(&kind, get(event, "call").as_f64(), &mut value)
    }

    /// The summarizer's request object for `piece`.
    fn request(&mut self, piece: &PieceRequest) -> Object {
        let (memory, input) = (self.requests.is_none(), self.machine.input());
        let state = input.and_then(|i| i.state.as_ref());
        let obj: Object = to_js(&report::summary_request(piece, state, memory)).unchecked_into();
        let (Some(r), Some(input)) = (self.requests.as_mut(), input) else {
            return obj;
        };
        let messages = piece.message_indices.iter().map(|&i| at(&r.all, i));
        set(&obj, "messages", &messages.collect::<Array>());
        let continuing = r.continuing.get_or_insert_with(|| {
            let all = r.conversation.as_ref().unwrap_or(&r.all);
            continuing(&input.options, all, r.format, input.tokens_before)
        });
        let count = |t: &str| input.estimator.counter.count(t);
        set_mode(&obj, piece, &input.options, continuing.as_ref(), &count);
        obj
    }

    /// The step as plain data, with the caller's values it names.
    fn hand_out(&mut self, step: Step) -> Result<JsValue, JsValue> {
        let data = to_js(&step);
        if let Some((key, id)) = step.value_field() {
            set(&data, key, &self.values.get(id));
        }
        match step {
            Step::Report {
                error,
                failure: true,
                ..
            } => self.host.failed(&self.values.get(error)),
            Step::Before { .. } => {
                if let Some(r) = &self.requests {
                    set(&data, "messages", &r.all);
                }
            }
            Step::Call { request, .. } => {
                let request = self.request(&request);
                set(&data, "request", &request);
            }
            Step::Done(Outcome::Committed) => set(&data, "result", &self.result),
            Step::Done(Outcome::Unchanged(warning)) => {
                let tokens = self.machine.tokens_before();
                set(&data, "result", &self.host.unchanged(tokens, &warning)?);
            }
            Step::Done(Outcome::Answered(text)) => self.host.answered(text),
            _ => {}
        }
        Ok(data)
    }
}

#[wasm_bindgen(js_class = __Driven)]
impl Driven {
    /// Takes what happened to the previous step (`undefined` first) and returns the next step.
    pub fn next(&mut self, event: JsValue) -> Result<JsValue, JsValue> {
        let mut event = self.event(&event);
        loop {
            let owner = self.host.owner();
            let step = self.machine.next(|| owner.pipeline(), event);
            event = match step {
                Step::Raise { error, cause } => {
                    let cause = cause.map(|c| self.values.get(c));
                    let error = error_to_js(&error, cause.as_ref());
                    Event::Raised(self.values.keep(error))
                }
                Step::CheckSignal => {
                    let why = is_aborted(&self.signal).then(|| get(&self.signal, "reason"));
                    Event::Signal(why.map(|why| self.values.keep(why)))
                }
                Step::Commit(compacted) => {
                    let committed = match self.machine.input_mut() {
                        Some(input) => self.host.commit(input, *compacted),
                        None => Ok(JsValue::UNDEFINED),
                    };
                    match committed {
                        Ok(result) => {
                            self.result = result;
                            Event::Committed(Ok(()))
                        }
                        Err(error) => Event::Committed(Err(self.values.keep(error))),
                    }
                }
                other => return self.hand_out(other),
            };
        }
    }

    /// `{ summarize, onBeforeCompaction, onAfterCompaction, onProgress, onError, timeoutMs }`.
    pub fn hooks(&self) -> JsValue {
        let obj = Object::new();
        let mut callbacks = self.host.owner().callbacks().clone();
        for (key, f) in FUNCTION_KEYS.iter().zip(callbacks.slots()) {
            if let Some(f) = f {
                set(&obj, key, f);
            }
        }
        let ms = self.machine.timeout_ms() as f64;
        set(&obj, "timeoutMs", &JsValue::from_f64(ms));
        obj.into()
    }
}

/// Whether `signal` (an `AbortSignal`, or undefined) has aborted.
pub fn is_aborted(signal: &JsValue) -> bool {
    signal.is_object() && get(signal, "aborted").as_bool() == Some(true)
}

/// The caller's values a compaction keeps, named by id.
type Values = Kept<JsValue>;

/// The caller's value of a report, read as the core asks ([`Machine::event`]).
struct Reported<'a> {
    values: &'a mut Values,
    value: JsValue,
}

impl Reported<'_> {
    /// The value (`path` empty) or its field at `path` (`undefined` past a value that is not an
    /// object).
    fn at(&self, path: &[&str]) -> JsValue {
        (path.iter()).fold(self.value.clone(), |value, key| get(&value, key))
    }
}

impl ReportedValue for Reported<'_> {
    fn keep(&mut self) -> ValueId {
        self.values.keep(self.value.clone())
    }

    fn seen(&self, path: &[&str]) -> Seen {
        let value = self.at(path);
        match value.dyn_ref::<JsString>() {
            Some(text) => Seen::Text(text.length() as usize),
            None if value.is_undefined() => Seen::Undefined,
            None if value.is_null() => Seen::Null,
            None if value.is_object() => Seen::Object,
            None => value.as_bool().map_or(Seen::Other, Seen::Bool),
        }
    }

    fn text(&self, path: &[&str]) -> Option<String> {
        self.at(path).as_string()
    }

    fn state(&mut self, path: &[&str]) -> StateField {
        let checked = match check_shape(&self.at(path), "state", Kind::Stored, false) {
            Ok(checked) => checked,
            Err(e) => return StateField::too_large(self.values.keep(error_to_js(&e, None))),
        };
        match serde_wasm_bindgen::from_value(checked.value) {
            Ok(value) => StateField::Given(value),
            Err(e) => StateField::not_plain(&e.to_string()),
        }
    }

    fn error_message(&self) -> Option<String> {
        error_message(&self.value)
    }
}
