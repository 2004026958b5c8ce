//! The compaction step machine driven by a scripted binding: the order of the steps, retries and
//! backoff, resubmits, the no-progress check, abort, `onBeforeCompaction`, the breaker, `onFailure`
//! under its four values, the extractive fallback, and the commit.

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use std::collections::VecDeque;

use serde_json::json;

use super::*;
use crate::core::estimate::Estimator;
use crate::core::message::{Message, Role};
use crate::core::options::{parse, Options};
use crate::core::plan::Plan;
use crate::core::prepare::{prepare, History};
use crate::core::summary::job::PieceRequest;

/// A history of `turns` long user/assistant turns.
fn history(turns: usize) -> Vec<Message> {
    (0..turns)
        .flat_map(|i| {
            [
                Message::text(
                    Role::User,
                    format!("question {i}: {}", "why so ".repeat(60)),
                ),
                Message::text(
                    Role::Assistant,
                    format!("answer {i}: {}", "because ".repeat(60)),
                ),
            ]
        })
        .collect()
}

struct Case {
    options: Options,
    messages: Vec<Message>,
    plan: Plan,
    total: usize,
    estimator: Estimator,
}

fn case(extra: serde_json::Value) -> Case {
    let mut o = json!({"contextWindow": 4_000, "keepRecentTokens": 300});
    if let (Some(o), Some(extra)) = (o.as_object_mut(), extra.as_object()) {
        o.extend(extra.clone());
    }
    let options = parse(&o).unwrap();
    let messages = history(20);
    let estimator = Estimator::default();
    let tokens: Vec<usize> = messages
        .iter()
        .map(|m| estimator.estimate_message(m).total())
        .collect();
    let total = tokens.iter().sum();
    let cost = |p: &crate::core::message::Part| estimator.part_tokens(p);
    let prepared = prepare(
        &options.settings,
        &History {
            messages: &messages,
            tokens: &tokens,
            total,
            part_cost: &cost,
        },
        true,
    )
    .unwrap();
    assert!(!prepared.plan.is_noop());
    Case {
        plan: prepared.plan,
        options,
        messages,
        total,
        estimator,
    }
}

/// What the scripted binding answers.
struct Script {
    /// The answer to each call, in the order the calls end.
    answers: VecDeque<CallEnd>,
    before: BeforeAnswer,
    signal: Option<ValueId>,
    commit: Result<(), ValueId>,
}

impl Script {
    fn answering(answers: Vec<CallEnd>) -> Script {
        Script {
            answers: answers.into(),
            before: BeforeAnswer::Proceed,
            signal: None,
            commit: Ok(()),
        }
    }
}

fn text(s: &str) -> CallEnd {
    CallEnd::Answer {
        text: Some(s.into()),
        state: StateField::Absent,
        value: ValueId(0),
    }
}

fn threw() -> CallEnd {
    CallEnd::Threw(ValueId(1))
}

/// Runs a job of `kind` to its end; the steps it took and its outcome.
fn drive(c: &Case, p: &mut Pipeline, kind: Kind, script: &mut Script) -> (Vec<Step>, Outcome) {
    let mut job = Job::new(Input {
        kind,
        should_compact: true,
        tokens_before: c.total,
        messages: c.messages.clone(),
        plan: c.plan.clone(),
        options: c.options.clone(),
        estimator: c.estimator.clone(),
        round: 1,
        instructions: None,
        state: None,
        summarizer: true,
        continues: kind.continues(),
        warn_repeat: true,
    });
    let mut steps = Vec::new();
    let mut started: VecDeque<(CallId, PieceRequest)> = VecDeque::new();
    let mut raised = 100;
    let mut event = Event::Ready;
    for _ in 0..1_000 {
        let step = job.next(p, event);
        steps.push(step.clone());
        event = match step {
            Step::Raise { .. } => {
                raised += 1;
                Event::Raised(ValueId(raised))
            }
            Step::Report { .. } | Step::AbortCalls { .. } => Event::Ready,
            Step::Before { .. } => Event::Before(script.before.clone()),
            Step::CheckSignal => Event::Signal(script.signal),
            Step::Call { call, request, .. } => {
                started.push_back((call, *request));
                Event::Ready
            }
            Step::Await => {
                let (call, _) = started.pop_front().expect("a call to wait for");
                let end = script.answers.pop_front().unwrap_or_else(|| text("ok"));
                Event::Call { call, end }
            }
            Step::Progress { .. } | Step::After { .. } => Event::Hook(HookEnd::Settled),
            Step::Commit(_) => Event::Committed(script.commit),
            Step::Done(outcome) => return (steps, outcome),
        };
    }
    panic!("the job did not end: {steps:?}");
}

fn names(steps: &[Step]) -> Vec<&'static str> {
    steps
        .iter()
        .map(|s| match s {
            Step::Raise { .. } => "raise",
            Step::Report { .. } => "report",
            Step::Before { .. } => "before",
            Step::CheckSignal => "signal",
            Step::Call { .. } => "call",
            Step::Await => "await",
            Step::AbortCalls { .. } => "abort",
            Step::Progress { .. } => "progress",
            Step::After { .. } => "after",
            Step::Commit(_) => "commit",
            Step::Done(_) => "done",
        })
        .collect()
}

fn committed(steps: &[Step]) -> &Compacted {
    steps
        .iter()
        .find_map(|s| match s {
            Step::Commit(c) => Some(&**c),
            _ => None,
        })
        .expect("a commit")
}

fn raised(steps: &[Step]) -> Vec<(ErrorCode, Option<ValueId>)> {
    steps
        .iter()
        .filter_map(|s| match s {
            Step::Raise { error, cause } => Some((error.code, *cause)),
            _ => None,
        })
        .collect()
}

#[test]
fn a_compaction_runs_its_hooks_and_calls_in_order_and_commits() {
    let c = case(json!({}));
    let mut p = Pipeline::new(&c.options);
    let (steps, outcome) = drive(&c, &mut p, Kind::Manual, &mut Script::answering(vec![]));
    assert_eq!(outcome, Outcome::Committed);
    assert_eq!(
        names(&steps),
        ["before", "signal", "call", "await", "progress", "after", "commit", "done"]
    );
    let done = committed(&steps);
    assert!(done.summary.as_deref().unwrap().contains("ok"));
    assert!(done.tokens_after < c.total);
    assert!(done.warnings.is_empty());
    assert_eq!(p.compactions(), 1);
}

#[test]
fn failed_calls_are_retried_with_exponential_backoff() {
    let c = case(json!({"retries": 3, "retryDelayMs": 100}));
    let mut p = Pipeline::new(&c.options);
    let mut script = Script::answering(vec![threw(), CallEnd::TimedOut, threw(), text("ok")]);
    let (steps, outcome) = drive(&c, &mut p, Kind::Manual, &mut script);
    assert_eq!(outcome, Outcome::Committed);
    let delays: Vec<u64> = steps
        .iter()
        .filter_map(|s| match s {
            Step::Call { delay_ms, .. } => Some(*delay_ms),
            _ => None,
        })
        .collect();
    assert_eq!(delays, [0, 100, 200, 400]);
    // Out of retries: the last failure names the error, with its value as the cause.
    let mut script = Script::answering(vec![CallEnd::TimedOut, threw(), threw(), threw()]);
    let (steps, outcome) = drive(&c, &mut p, Kind::Manual, &mut script);
    assert_eq!(
        raised(&steps),
        [(ErrorCode::SummarizerFailed, Some(ValueId(1)))]
    );
    assert!(matches!(outcome, Outcome::Rejected(_)));
    assert!(names(&steps).contains(&"abort"), "the siblings are aborted");
}

#[test]
fn a_rejected_answer_is_asked_for_again_up_to_the_retries() {
    let c = case(json!({"retries": 1}));
    let mut p = Pipeline::new(&c.options);
    let mut script = Script::answering(vec![text("   "), text("better")]);
    let (steps, outcome) = drive(&c, &mut p, Kind::Manual, &mut script);
    assert_eq!(outcome, Outcome::Committed);
    assert_eq!(names(&steps).iter().filter(|n| **n == "call").count(), 2);
    let mut script = Script::answering(vec![text("   "), text("\u{200B}")]);
    let (steps, _) = drive(&c, &mut p, Kind::Manual, &mut script);
    assert_eq!(raised(&steps), [(ErrorCode::SummaryEmpty, None)]);
    // An answer as long as what it replaces is no progress.
    let long = "word ".repeat(5_000);
    let mut script = Script::answering(vec![text(&long), text(&long)]);
    let (steps, _) = drive(&c, &mut p, Kind::Manual, &mut script);
    assert_eq!(raised(&steps), [(ErrorCode::NoProgress, None)]);
}

#[test]
fn an_aborted_signal_rejects_with_its_reason_and_commits_nothing() {
    let c = case(json!({}));
    let mut p = Pipeline::new(&c.options);
    let mut script = Script::answering(vec![]);
    script.signal = Some(ValueId(9));
    let (steps, outcome) = drive(&c, &mut p, Kind::Automatic, &mut script);
    assert_eq!(raised(&steps), [(ErrorCode::Aborted, Some(ValueId(9)))]);
    assert!(matches!(outcome, Outcome::Rejected(_)), "{outcome:?}");
    assert!(!names(&steps).contains(&"commit"));
    // An abort during a call ends it at once, without a retry.
    let c = case(json!({"retries": 5}));
    let mut script = Script::answering(vec![CallEnd::Aborted(ValueId(3))]);
    let (steps, _) = drive(&c, &mut p, Kind::Manual, &mut script);
    assert_eq!(names(&steps).iter().filter(|n| **n == "call").count(), 1);
    assert_eq!(raised(&steps), [(ErrorCode::Aborted, Some(ValueId(3)))]);
}

#[test]
fn on_before_compaction_may_cancel_supply_the_summary_or_fail_it() {
    let c = case(json!({}));
    let mut p = Pipeline::new(&c.options);
    let mut script = Script::answering(vec![]);
    script.before = BeforeAnswer::Cancel;
    let (_, outcome) = drive(&c, &mut p, Kind::Manual, &mut script);
    assert_eq!(outcome, Outcome::Unchanged(CANCELLED.into()));
    script.before = BeforeAnswer::Summary(Some("given".into()));
    let (steps, outcome) = drive(&c, &mut p, Kind::Manual, &mut script);
    assert_eq!(outcome, Outcome::Committed);
    assert!(!names(&steps).contains(&"call"));
    assert_eq!(committed(&steps).summary.as_deref(), Some("given"));
    for (answer, code) in [
        (
            BeforeAnswer::Summary(Some(" ".into())),
            ErrorCode::SummaryEmpty,
        ),
        (BeforeAnswer::Summary(None), ErrorCode::HookFailed),
        (BeforeAnswer::Threw(ValueId(4)), ErrorCode::HookFailed),
        (BeforeAnswer::TimedOut, ErrorCode::Timeout),
    ] {
        script.before = answer;
        let (steps, outcome) = drive(&c, &mut p, Kind::Manual, &mut script);
        assert_eq!(raised(&steps)[0].0, code);
        assert!(matches!(outcome, Outcome::Rejected(_)));
    }
}

/// One automatic compaction whose summarizer always fails, under `policy`.
fn failing(policy: &str, window: usize) -> (Vec<Step>, Outcome, Pipeline) {
    let c = case(json!({"onFailure": policy, "retries": 0, "contextWindow": window}));
    let mut p = Pipeline::new(&c.options);
    let mut script = Script::answering(vec![threw(); 4]);
    let (steps, outcome) = drive(&c, &mut p, Kind::Automatic, &mut script);
    (steps, outcome, p)
}

fn report(steps: &[Step]) -> (bool, bool) {
    steps
        .iter()
        .find_map(|s| match s {
            Step::Report {
                swallowed, failure, ..
            } => Some((*swallowed, *failure)),
            _ => None,
        })
        .expect("a report")
}

#[test]
fn on_failure_decides_an_automatic_failure_under_all_four_values() {
    let (steps, outcome, _) = failing("reject", 4_000);
    assert!(matches!(outcome, Outcome::Rejected(_)));
    assert_eq!(report(&steps), (false, true));

    let (steps, outcome, _) = failing("unchanged", 4_000);
    assert!(matches!(&outcome, Outcome::Unchanged(t) if t.contains("the messages are unchanged")));
    assert_eq!(report(&steps), (true, true));

    let (steps, outcome, p) = failing("extractive", 4_000);
    assert_eq!(outcome, Outcome::Committed);
    assert_eq!(report(&steps), (true, true));
    let done = committed(&steps);
    assert!(done.warnings.last().unwrap().contains("extractive summary"));
    // The fallback runs the hooks again and writes the summary without a call.
    assert_eq!(
        names(&steps)[names(&steps).iter().position(|n| *n == "report").unwrap()..],
        ["report", "before", "after", "commit", "done"]
    );
    assert_eq!(p.compactions(), 1);

    // `auto`: unchanged while the context fits the window minus the reserve, extractive past it.
    let (_, outcome, _) = failing("auto", 200_000);
    assert!(matches!(outcome, Outcome::Unchanged(_)), "{outcome:?}");
    let (steps, outcome, _) = failing("auto", 4_000);
    assert_eq!(outcome, Outcome::Committed);
    assert_eq!(committed(&steps).warnings.len(), 1);
}

#[test]
fn a_manual_failure_always_rejects_and_a_fallback_failure_rejects_unreported() {
    let c = case(json!({"onFailure": "extractive", "retries": 0}));
    let mut p = Pipeline::new(&c.options);
    let (steps, outcome) = drive(
        &c,
        &mut p,
        Kind::Manual,
        &mut Script::answering(vec![threw()]),
    );
    assert!(matches!(outcome, Outcome::Rejected(_)));
    assert_eq!(report(&steps), (false, true));
    // The fallback's own failure (onBeforeCompaction supplies an empty summary both times)
    // rejects at once.
    let mut script = Script::answering(vec![]);
    script.before = BeforeAnswer::Summary(Some(String::new()));
    let (steps, outcome) = drive(&c, &mut p, Kind::Automatic, &mut script);
    assert!(matches!(outcome, Outcome::Rejected(_)));
    assert_eq!(names(&steps).iter().filter(|n| **n == "report").count(), 1);
    assert_eq!(raised(&steps).len(), 2);
}

#[test]
fn the_breaker_skips_the_summarizer_after_repeated_failures_until_a_success() {
    let c = case(json!({"onFailure": "unchanged", "maxConsecutiveFailures": 2, "retries": 0}));
    let mut p = Pipeline::new(&c.options);
    for _ in 0..2 {
        let (_, outcome) = drive(
            &c,
            &mut p,
            Kind::Automatic,
            &mut Script::answering(vec![threw()]),
        );
        assert!(matches!(outcome, Outcome::Unchanged(_)));
    }
    let (steps, outcome) = drive(&c, &mut p, Kind::Automatic, &mut Script::answering(vec![]));
    assert_eq!(outcome, Outcome::Unchanged(BREAKER_OPEN.into()));
    assert_eq!(names(&steps), ["done"]);
    // A manual compaction still runs, and its success closes the breaker.
    let (_, outcome) = drive(&c, &mut p, Kind::Manual, &mut Script::answering(vec![]));
    assert_eq!(outcome, Outcome::Committed);
    assert!(!p.breaker_open());

    // With the extractive fallback, an open breaker writes the extractive summary after a notice,
    // and that success does not close it.
    let c = case(json!({"onFailure": "extractive", "maxConsecutiveFailures": 1, "retries": 0}));
    let mut p = Pipeline::new(&c.options);
    let _ = drive(
        &c,
        &mut p,
        Kind::Automatic,
        &mut Script::answering(vec![threw()]),
    );
    let (steps, outcome) = drive(&c, &mut p, Kind::Automatic, &mut Script::answering(vec![]));
    assert_eq!(outcome, Outcome::Committed);
    assert_eq!(&names(&steps)[..3], ["raise", "report", "before"]);
    assert_eq!(report(&steps), (true, false));
    assert!(!names(&steps).contains(&"call"));
    assert!(p.breaker_open());
}

#[test]
fn below_the_trigger_an_automatic_job_changes_nothing_and_a_failed_commit_rejects() {
    let c = case(json!({}));
    let mut p = Pipeline::new(&c.options);
    let mut job = Job::new(Input {
        kind: Kind::Automatic,
        should_compact: false,
        tokens_before: c.total,
        messages: c.messages.clone(),
        plan: c.plan.clone(),
        options: c.options.clone(),
        estimator: c.estimator.clone(),
        round: 1,
        instructions: None,
        state: None,
        summarizer: true,
        continues: true,
        warn_repeat: true,
    });
    assert_eq!(
        job.next(&mut p, Event::Ready),
        Step::Done(Outcome::Unchanged(BELOW_TRIGGER.into()))
    );
    let mut script = Script::answering(vec![]);
    script.commit = Err(ValueId(8));
    let (steps, outcome) = drive(&c, &mut p, Kind::Automatic, &mut script);
    assert_eq!(outcome, Outcome::Rejected(ValueId(8)));
    assert!(!names(&steps).contains(&"report"));
    assert_eq!(p.compactions(), 0);
}

#[test]
fn a_missing_summarizer_is_the_constructor_error() {
    let c = case(json!({}));
    let mut p = Pipeline::new(&c.options);
    let mut job = Job::new(Input {
        kind: Kind::Manual,
        should_compact: true,
        tokens_before: c.total,
        messages: c.messages.clone(),
        plan: c.plan.clone(),
        options: c.options.clone(),
        estimator: c.estimator.clone(),
        round: 1,
        instructions: None,
        state: None,
        summarizer: false,
        continues: false,
        warn_repeat: true,
    });
    assert!(matches!(
        job.next(&mut p, Event::Ready),
        Step::Before { .. }
    ));
    match job.next(&mut p, Event::Before(BeforeAnswer::Proceed)) {
        Step::Raise { error, .. } => assert_eq!(error.path.as_deref(), Some("summarize")),
        other => panic!("{other:?}"),
    }
}

/// The case with a split turn: the history and the turn's prefix are two pieces of one batch.
fn split_case(extra: serde_json::Value) -> Case {
    use crate::core::plan::Disposition;
    let mut c = case(extra);
    let n = c.messages.len();
    c.plan.dispositions = (0..n)
        .map(|i| match i {
            0..16 => Disposition::Summarize,
            16..26 => Disposition::TurnPrefix,
            _ => Disposition::Keep,
        })
        .collect();
    c.plan.split_turn = true;
    c.plan.turn_prefix = Some(16..26);
    c
}

#[test]
fn the_pieces_of_a_batch_run_together_and_the_first_failure_aborts_the_others() {
    let c = split_case(json!({"retries": 0}));
    let mut p = Pipeline::new(&c.options);
    let (steps, outcome) = drive(&c, &mut p, Kind::Manual, &mut Script::answering(vec![]));
    assert_eq!(outcome, Outcome::Committed);
    assert_eq!(
        names(&steps),
        [
            "before", "signal", "call", "call", "await", "progress", "await", "progress", "after",
            "commit", "done"
        ]
    );
    let progress: Vec<(usize, usize)> = steps
        .iter()
        .filter_map(|s| match s {
            Step::Progress { done, total } => Some((*done, *total)),
            _ => None,
        })
        .collect();
    assert_eq!(progress, [(1, 2), (2, 2)]);

    let (steps, outcome) = drive(
        &c,
        &mut p,
        Kind::Manual,
        &mut Script::answering(vec![threw()]),
    );
    assert!(matches!(outcome, Outcome::Rejected(_)));
    assert_eq!(
        names(&steps),
        ["before", "signal", "call", "call", "await", "raise", "abort", "report", "done"]
    );
}
