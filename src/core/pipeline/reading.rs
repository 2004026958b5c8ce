//! How the binding's report of what happened to a step becomes the [`Event`] the machine takes.
//! `js/driver.mjs` reports `{ kind, call?, value? }` (`kind`: `answer`, `threw`, `rejected`,
//! `timedOut`, `aborted`); which event that is depends on what the step handed out waits for
//! ([`Step::awaits`]). The caller's value stays in the binding: the core asks it, through
//! [`ReportedValue`], only for what the event needs (keep it and name it, what it or one of its
//! fields is, a text's length before the text, an answer's state, a hook error's message), and
//! decides here what that comes to: where an answer's text is, what cancels a compaction.

use super::steps::{BeforeAnswer, CallEnd, CallId, Event, HookEnd, StateField, Step, ValueId};
use crate::core::summary::answer::MAX_ANSWER_UNITS;

/// What the last step handed out waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Awaits {
    /// Nothing but "done" ([`Event::Ready`]).
    Ready,
    /// `onBeforeCompaction`'s answer ([`Event::Before`]).
    Before,
    /// The end of a summarizer call ([`Event::Call`]).
    Call,
    /// An observing hook's end ([`Event::Hook`]).
    Hook,
}

impl Step {
    /// What the binding's next report about this step is.
    pub fn awaits(&self) -> Awaits {
        match self {
            Step::Before { .. } => Awaits::Before,
            Step::Await => Awaits::Call,
            Step::Progress { .. } | Step::After { .. } => Awaits::Hook,
            _ => Awaits::Ready,
        }
    }
}

/// What the binding sees of the caller's value, or of one of its fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seen {
    /// `undefined`, or a field of a value that is not an object.
    Undefined,
    /// A boolean.
    Bool(bool),
    /// A string of this many UTF-16 units (not copied).
    Text(usize),
    /// An object (not `null`, not a function).
    Object,
    /// `null`.
    Null,
    /// Anything else (a number, a function...).
    Other,
}

/// The caller's value of a report, read by the binding when the core asks. `path` names a field
/// (`["summary"]`), a field of a field, or the value itself (empty).
pub trait ReportedValue {
    /// Keeps the value and names it.
    fn keep(&mut self) -> ValueId;
    /// What is at `path`.
    fn seen(&self, path: &[&str]) -> Seen;
    /// The string at `path`, copied; `None` when it is not a string.
    fn text(&self, path: &[&str]) -> Option<String>;
    /// The value at `path` (neither `undefined` nor `null`) read as plain data for a summarizer's
    /// workstream state: [`StateField::Given`] or [`StateField::Unreadable`].
    fn state(&mut self, path: &[&str]) -> StateField;
    /// As a thrown JS `Error`: its message; `None` for another value.
    fn error_message(&self) -> Option<String>;
}

/// A hook's error as its message, the text it threw, or a description.
fn detail(value: &dyn ReportedValue) -> String {
    (value.error_message())
        .or_else(|| value.text(&[]))
        .unwrap_or_else(|| "a non-Error value".to_string())
}

/// The `state` of an answer `{ summary, state }`.
fn answer_state(value: &mut dyn ReportedValue) -> StateField {
    match value.seen(&["state"]) {
        Seen::Undefined | Seen::Null => StateField::Absent,
        _ => value.state(&["state"]),
    }
}

/// The UTF-16 length of an answer's text at `path` (a string, or an object's `summary` string),
/// read without copying it; 0 when it is neither.
fn text_units(value: &dyn ReportedValue, path: &[&str]) -> usize {
    let seen = match value.seen(path) {
        Seen::Object => value.seen(&[path, &["summary"]].concat()),
        seen => seen,
    };
    match seen {
        Seen::Text(units) => units,
        _ => 0,
    }
}

impl StateField {
    /// A `state` too deep or too large to read; `cause` is the binding's refusal.
    pub fn too_large(cause: ValueId) -> StateField {
        let message = "the summarizer's state is nested too deeply or too large".into();
        StateField::Unreadable {
            message,
            cause: Some(cause),
        }
    }

    /// A `state` that is not plain data (`detail`: what reading it said).
    pub fn not_plain(detail: &str) -> StateField {
        StateField::Unreadable {
            message: format!("the summarizer's state is not plain data: {detail}"),
            cause: None,
        }
    }
}

/// The event for a report of `kind` (about call `call`, for a summarizer call's end) on a step
/// that [`Awaits`] `awaits`.
pub fn event(
    awaits: Awaits,
    kind: &str,
    call: Option<f64>,
    value: &mut dyn ReportedValue,
) -> Event {
    match awaits {
        Awaits::Ready => Event::Ready,
        Awaits::Before => Event::Before(match kind {
            "answer" => before_answer(value),
            "threw" => BeforeAnswer::Threw(value.keep()),
            "rejected" => BeforeAnswer::Rejected(value.keep()),
            "timedOut" => BeforeAnswer::TimedOut,
            _ => BeforeAnswer::Proceed,
        }),
        Awaits::Hook => Event::Hook(match kind {
            "threw" | "rejected" => HookEnd::Failed(detail(value)),
            "timedOut" => HookEnd::TimedOut,
            _ => HookEnd::Settled,
        }),
        Awaits::Call => {
            let call = CallId(call.map_or(u32::MAX, |n| n as u32));
            let end = match kind {
                "answer" => call_answer(value),
                "timedOut" => CallEnd::TimedOut,
                "aborted" => CallEnd::Aborted(value.keep()),
                _ => CallEnd::Threw(value.keep()),
            };
            Event::Call { call, end }
        }
    }
}

/// A summarizer's answer: refused unread past [`MAX_ANSWER_UNITS`].
fn call_answer(value: &mut dyn ReportedValue) -> CallEnd {
    let units = text_units(value, &[]);
    if units > MAX_ANSWER_UNITS {
        return CallEnd::TooLong(units);
    }
    CallEnd::Answer {
        text: value.text(&[]).or_else(|| value.text(&["summary"])),
        state: answer_state(value),
        value: value.keep(),
    }
}

/// What `onBeforeCompaction`'s value comes to: `false` or `{ cancel: true }` cancels; a `summary`
/// field stands in for the summarizer, unread past [`MAX_ANSWER_UNITS`].
fn before_answer(value: &mut dyn ReportedValue) -> BeforeAnswer {
    if value.seen(&[]) == Seen::Bool(false) || value.seen(&["cancel"]) == Seen::Bool(true) {
        return BeforeAnswer::Cancel;
    }
    match value.seen(&["summary"]) {
        Seen::Undefined => BeforeAnswer::Proceed,
        _ => match text_units(value, &["summary"]) {
            units if units > MAX_ANSWER_UNITS => BeforeAnswer::TooLong(units),
            _ => BeforeAnswer::Summary(value.text(&["summary"])),
        },
    }
}

#[cfg(test)]
#[allow(clippy::panic)]
mod tests {
    use super::*;

    /// A reported value as plain data: a text answer, a `{ cancel }` or `{ summary }` object.
    #[derive(Default)]
    struct Plain {
        text: Option<String>,
        cancel: bool,
        summary: Option<String>,
        kept: u32,
    }

    /// `path` in a plain value: the value, its `summary` or its `cancel`.
    fn field<'a>(p: &'a Plain, path: &[&str]) -> Option<&'a Option<String>> {
        match path {
            [] => Some(&p.text),
            ["summary"] => Some(&p.summary),
            _ => None,
        }
    }

    impl ReportedValue for Plain {
        fn keep(&mut self) -> ValueId {
            self.kept += 1;
            ValueId(self.kept - 1)
        }
        fn seen(&self, path: &[&str]) -> Seen {
            match (path, field(self, path)) {
                (["cancel"], _) if self.cancel => Seen::Bool(true),
                (_, Some(Some(t))) => Seen::Text(t.encode_utf16().count()),
                ([], _) => Seen::Object,
                _ => Seen::Undefined,
            }
        }
        fn text(&self, path: &[&str]) -> Option<String> {
            field(self, path).cloned().flatten()
        }
        fn state(&mut self, _path: &[&str]) -> StateField {
            StateField::not_plain("a function")
        }
        fn error_message(&self) -> Option<String> {
            Some("boom".into())
        }
    }

    /// A JS-like value given by what each path shows.
    struct Shown(Vec<(&'static [&'static str], Seen)>);

    impl ReportedValue for Shown {
        fn keep(&mut self) -> ValueId {
            ValueId(0)
        }
        fn seen(&self, path: &[&str]) -> Seen {
            let found = self.0.iter().find(|(p, _)| *p == path);
            found.map_or(Seen::Undefined, |(_, seen)| *seen)
        }
        fn text(&self, path: &[&str]) -> Option<String> {
            match self.seen(path) {
                Seen::Text(n) => Some("t".repeat(n)),
                _ => None,
            }
        }
        fn state(&mut self, _path: &[&str]) -> StateField {
            StateField::Given(serde_json::json!({"goal": "g"}))
        }
        fn error_message(&self) -> Option<String> {
            None
        }
    }

    #[test]
    fn what_the_caller_returned_is_read_as_javascript_reads_it() {
        let before = |v: &mut Shown| match event(Awaits::Before, "answer", None, v) {
            Event::Before(b) => b,
            other => panic!("{other:?}"),
        };
        // `false` cancels; `true`, `{ cancel: false }` or an object without `summary` proceed.
        let cancel = Seen::Bool(true);
        assert_eq!(
            before(&mut Shown(vec![(&[], Seen::Bool(false))])),
            BeforeAnswer::Cancel
        );
        assert_eq!(
            before(&mut Shown(vec![(&["cancel"], cancel)])),
            BeforeAnswer::Cancel
        );
        assert_eq!(
            before(&mut Shown(vec![(&[], Seen::Bool(true))])),
            BeforeAnswer::Proceed
        );
        let no = vec![
            (&[][..], Seen::Object),
            (&["cancel"][..], Seen::Bool(false)),
        ];
        assert_eq!(before(&mut Shown(no)), BeforeAnswer::Proceed);
        // A `summary` that is not a string is `Summary(None)`; an object's `summary.summary`
        // counts toward the limit.
        let number = vec![(&[][..], Seen::Object), (&["summary"][..], Seen::Other)];
        assert_eq!(before(&mut Shown(number)), BeforeAnswer::Summary(None));
        let units = MAX_ANSWER_UNITS + 2;
        let nested = vec![
            (&["summary"][..], Seen::Object),
            (&["summary", "summary"][..], Seen::Text(units)),
        ];
        assert_eq!(before(&mut Shown(nested)), BeforeAnswer::TooLong(units));
        // An answer `{ summary }` is read by its field; a number answer has no text.
        let call = |v: &mut Shown| match event(Awaits::Call, "answer", Some(1.0), v) {
            Event::Call { end, .. } => end,
            other => panic!("{other:?}"),
        };
        let object = vec![(&[][..], Seen::Object), (&["summary"][..], Seen::Text(3))];
        let CallEnd::Answer { text, .. } = call(&mut Shown(object)) else {
            panic!("not an answer");
        };
        assert_eq!(text.as_deref(), Some("ttt"));
        let CallEnd::Answer { text, .. } = call(&mut Shown(vec![(&[], Seen::Other)])) else {
            panic!("not an answer");
        };
        assert_eq!(text, None);
        let long = vec![
            (&[][..], Seen::Object),
            (&["summary"][..], Seen::Text(units)),
        ];
        assert_eq!(call(&mut Shown(long)), CallEnd::TooLong(units));
        // A `state` is read unless `undefined` or `null`.
        let state = |seen: Seen| match call(&mut Shown(vec![(&["state"][..], seen)])) {
            CallEnd::Answer { state, .. } => state,
            other => panic!("{other:?}"),
        };
        assert_eq!(state(Seen::Undefined), StateField::Absent);
        assert_eq!(state(Seen::Null), StateField::Absent);
        let given = StateField::Given(serde_json::json!({"goal": "g"}));
        assert_eq!(state(Seen::Object), given);
        // A hook that threw a string, or neither an `Error` nor a string.
        let hook = |v: &mut Shown| event(Awaits::Hook, "threw", None, v);
        let text = Event::Hook(HookEnd::Failed("ttttt".into()));
        assert_eq!(hook(&mut Shown(vec![(&[], Seen::Text(5))])), text);
        let other = Event::Hook(HookEnd::Failed("a non-Error value".into()));
        assert_eq!(hook(&mut Shown(vec![(&[], Seen::Other)])), other);
    }

    #[test]
    fn the_step_decides_what_a_report_means() {
        let before = Step::Before { tokens_before: 1 };
        assert_eq!(before.awaits(), Awaits::Before);
        assert_eq!(Step::Await.awaits(), Awaits::Call);
        assert_eq!(Step::Progress { done: 0, total: 1 }.awaits(), Awaits::Hook);
        assert_eq!(Step::CheckSignal.awaits(), Awaits::Ready);
        let mut v = Plain::default();
        assert_eq!(event(Awaits::Ready, "answer", None, &mut v), Event::Ready);
        assert_eq!(
            event(Awaits::Hook, "rejected", None, &mut v),
            Event::Hook(HookEnd::Failed("boom".into()))
        );
        assert_eq!(
            event(Awaits::Before, "timedOut", None, &mut v),
            Event::Before(BeforeAnswer::TimedOut)
        );
        assert_eq!(
            event(Awaits::Call, "aborted", Some(3.0), &mut v),
            Event::Call {
                call: CallId(3),
                end: CallEnd::Aborted(ValueId(0))
            }
        );
    }

    #[test]
    fn an_unreadable_state_says_why() {
        let StateField::Unreadable { message, cause } = StateField::too_large(ValueId(4)) else {
            panic!("readable");
        };
        assert!(message.contains("nested too deeply or too large"));
        assert_eq!(cause, Some(ValueId(4)));
        let StateField::Unreadable { message, cause } = StateField::not_plain("a function") else {
            panic!("readable");
        };
        assert_eq!(
            message,
            "the summarizer's state is not plain data: a function"
        );
        assert_eq!(cause, None);
    }

    #[test]
    fn answers_are_read_within_the_limit() {
        let mut v = Plain {
            text: Some("the summary".into()),
            ..Plain::default()
        };
        let Event::Call { end, .. } = event(Awaits::Call, "answer", Some(0.0), &mut v) else {
            panic!("not a call end");
        };
        assert_eq!(
            end,
            CallEnd::Answer {
                text: Some("the summary".into()),
                state: StateField::Absent,
                value: ValueId(0)
            }
        );
        let mut long = Plain {
            text: Some("x".repeat(MAX_ANSWER_UNITS + 1)),
            ..Plain::default()
        };
        let Event::Call { end, .. } = event(Awaits::Call, "answer", Some(0.0), &mut long) else {
            panic!("not a call end");
        };
        assert_eq!(end, CallEnd::TooLong(MAX_ANSWER_UNITS + 1));
    }

    #[test]
    fn before_answers_cancel_proceed_or_summarize() {
        let answer = |v: &mut Plain| match event(Awaits::Before, "answer", None, v) {
            Event::Before(b) => b,
            other => panic!("{other:?}"),
        };
        let mut cancel = Plain {
            cancel: true,
            ..Plain::default()
        };
        assert_eq!(answer(&mut cancel), BeforeAnswer::Cancel);
        assert_eq!(answer(&mut Plain::default()), BeforeAnswer::Proceed);
        let mut given = Plain {
            summary: Some("mine".into()),
            ..Plain::default()
        };
        assert_eq!(
            answer(&mut given),
            BeforeAnswer::Summary(Some("mine".into()))
        );
        let mut long = Plain {
            summary: Some("y".repeat(MAX_ANSWER_UNITS + 1)),
            ..Plain::default()
        };
        assert_eq!(
            answer(&mut long),
            BeforeAnswer::TooLong(MAX_ANSWER_UNITS + 1)
        );
    }
}
