//! What a driven handle runs, behind one interface: a compaction's [`Job`] or a single request's
//! [`Once`]. The [`Machine`] also remembers what the last step it handed out waits for
//! ([`Awaits`]), so the binding's report of that step is read as the right event
//! ([`Machine::event`], by the rules of [`super::reading`]).

use std::ops::DerefMut;

use super::reading::{self, Awaits, ReportedValue};
use super::steps::{Event, Input, Step};
use super::{Job, Once, Pipeline};

/// What runs: a compaction or a single request.
enum Runs {
    Job(Box<Job>),
    Once(Box<Once>),
}

/// A compaction's or a single request's step machine, as a driven handle steps it.
pub struct Machine {
    runs: Runs,
    awaits: Awaits,
}

impl Machine {
    /// The machine of a compaction.
    pub fn job(job: Job) -> Machine {
        Machine::of(Runs::Job(Box::new(job)))
    }

    /// The machine of a single request.
    pub fn once(once: Once) -> Machine {
        Machine::of(Runs::Once(Box::new(once)))
    }

    fn of(runs: Runs) -> Machine {
        Machine {
            runs,
            awaits: Awaits::Ready,
        }
    }

    /// The next step for `event`. `pipeline` gives the handle's pipeline: a job borrows it only
    /// for this step, a single request never.
    pub fn next<P: DerefMut<Target = Pipeline>>(
        &mut self,
        pipeline: impl FnOnce() -> P,
        event: Event,
    ) -> Step {
        let step = match &mut self.runs {
            Runs::Job(job) => job.next(&mut pipeline(), event),
            Runs::Once(once) => once.next(event),
        };
        self.awaits = step.awaits();
        step
    }

    /// The event for the binding's report (`kind`, `call`, `value`) about the last step handed out.
    pub fn event(&self, kind: &str, call: Option<f64>, value: &mut dyn ReportedValue) -> Event {
        reading::event(self.awaits, kind, call, value)
    }

    /// A compaction's input; `None` for a single request.
    pub fn input(&self) -> Option<&Input> {
        match &self.runs {
            Runs::Job(job) => Some(job.input()),
            Runs::Once(_) => None,
        }
    }

    /// The same, for a commit that takes the messages back ([`Job::input_mut`]).
    pub fn input_mut(&mut self) -> Option<&mut Input> {
        match &mut self.runs {
            Runs::Job(job) => Some(job.input_mut()),
            Runs::Once(_) => None,
        }
    }

    /// How long the driver waits for a call or a hook: the options' `timeoutMs`.
    pub fn timeout_ms(&self) -> u64 {
        match &self.runs {
            Runs::Job(job) => job.input().options.timeout_ms,
            Runs::Once(once) => once.timeout_ms(),
        }
    }

    /// The calibrated count of a compaction's context (the unchanged result's `tokensBefore`);
    /// 0 for a single request.
    pub fn tokens_before(&self) -> usize {
        self.input().map_or(0, |i| i.tokens_before)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::core::options::parse;
    use crate::core::pipeline::{CallEnd, CallId, Outcome, StateField, ValueId};
    use serde_json::json;

    /// A summarizer's text answer.
    struct Answer(&'static str);

    impl ReportedValue for Answer {
        fn keep(&mut self) -> ValueId {
            ValueId(7)
        }
        fn seen(&self, path: &[&str]) -> reading::Seen {
            match path {
                [] => reading::Seen::Text(self.0.len()),
                _ => reading::Seen::Undefined,
            }
        }
        fn text(&self, path: &[&str]) -> Option<String> {
            path.is_empty().then(|| self.0.to_string())
        }
        fn state(&mut self, _path: &[&str]) -> StateField {
            panic!("a text answer has no state")
        }
        fn error_message(&self) -> Option<String> {
            None
        }
    }

    #[test]
    fn a_single_request_reads_reports_by_its_last_step_and_never_borrows_a_pipeline() {
        let options = parse(&json!({"contextWindow": 10_000, "timeoutMs": 4_321})).unwrap();
        let mut m = Machine::once(Once::new(&options, "system", "prompt", 100));
        assert!(m.input().is_none() && m.input_mut().is_none());
        assert_eq!(m.timeout_ms(), 4_321);
        assert_eq!(m.tokens_before(), 0);
        let never = || -> Box<Pipeline> { panic!("a single request borrowed the pipeline") };
        // Before any step is handed out, a report reads as `Ready`.
        assert_eq!(m.event("answer", None, &mut Answer("x")), Event::Ready);
        let Step::Call { call, .. } = m.next(never, Event::Ready) else {
            panic!("no call");
        };
        assert_eq!(m.next(never, Event::Ready), Step::Await);
        let end = m.event("answer", Some(f64::from(call.0)), &mut Answer("notes"));
        let expected = CallEnd::Answer {
            text: Some("notes".into()),
            state: StateField::Absent,
            value: ValueId(7),
        };
        assert_eq!(
            end,
            Event::Call {
                call: CallId(call.0),
                end: expected
            }
        );
        assert_eq!(
            m.next(never, end),
            Step::Done(Outcome::Answered("notes".into()))
        );
    }
}
