//! How the binding's report of what happened to a step becomes the [`Event`] the machine takes.
//! `js/driver.mjs` reports `{ kind, call?, value? }` (`kind`: `answer`, `threw`, `rejected`,
//! `timedOut`, `aborted`); which event that is depends on what the step handed out waits for
//! ([`Step::awaits`]). The caller's value stays in the binding: the core asks it, through
//! [`ReportedValue`], only for what the event needs (keep it and name it, its answer's length,
//! text and state, `onBeforeCompaction`'s decision, a hook error's message).

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

/// The caller's value of a report, read by the binding when the core asks.
pub trait ReportedValue {
    /// Keeps the value and names it.
    fn keep(&mut self) -> ValueId;
    /// As `onBeforeCompaction`'s answer: `false` or `{ cancel: true }`.
    fn cancels(&self) -> bool;
    /// As `onBeforeCompaction`'s answer: the UTF-16 length of its `summary` field's text (0 when
    /// not a string), `None` when it has no `summary`.
    fn summary_units(&self) -> Option<usize>;
    /// As `onBeforeCompaction`'s answer: its `summary` when a string.
    fn summary_text(&self) -> Option<String>;
    /// As a summarizer's answer (a string, or `{ summary: string }`): its text's UTF-16 length
    /// (0 when it is neither), read without copying it.
    fn answer_units(&self) -> usize;
    /// As a summarizer's answer: its text.
    fn answer_text(&self) -> Option<String>;
    /// As a summarizer's answer: the `state` of `{ summary, state }`.
    fn answer_state(&mut self) -> StateField;
    /// As a hook's error: its message, or a description.
    fn detail(&self) -> String;
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
            "threw" | "rejected" => HookEnd::Failed(value.detail()),
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
    let units = value.answer_units();
    if units > MAX_ANSWER_UNITS {
        return CallEnd::TooLong(units);
    }
    CallEnd::Answer {
        text: value.answer_text(),
        state: value.answer_state(),
        value: value.keep(),
    }
}

/// What `onBeforeCompaction`'s value comes to: a summary past [`MAX_ANSWER_UNITS`] is not read.
fn before_answer(value: &mut dyn ReportedValue) -> BeforeAnswer {
    if value.cancels() {
        return BeforeAnswer::Cancel;
    }
    match value.summary_units() {
        None => BeforeAnswer::Proceed,
        Some(units) if units > MAX_ANSWER_UNITS => BeforeAnswer::TooLong(units),
        Some(_) => BeforeAnswer::Summary(value.summary_text()),
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

    impl ReportedValue for Plain {
        fn keep(&mut self) -> ValueId {
            self.kept += 1;
            ValueId(self.kept - 1)
        }
        fn cancels(&self) -> bool {
            self.cancel
        }
        fn summary_units(&self) -> Option<usize> {
            self.summary.as_ref().map(|s| s.encode_utf16().count())
        }
        fn summary_text(&self) -> Option<String> {
            self.summary.clone()
        }
        fn answer_units(&self) -> usize {
            self.text.as_ref().map_or(0, |t| t.encode_utf16().count())
        }
        fn answer_text(&self) -> Option<String> {
            self.text.clone()
        }
        fn answer_state(&mut self) -> StateField {
            StateField::Absent
        }
        fn detail(&self) -> String {
            "boom".into()
        }
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
