//! The pipeline's decisions: the trigger gate, the breaker, `onFailure` and the extractive
//! fallback, continuation, for every kind of call.

#![allow(clippy::unwrap_used, clippy::panic)]

use super::*;
use serde_json::json;

fn pipeline(extra: serde_json::Value) -> Pipeline {
    let mut o = json!({"contextWindow": 10_000});
    if let (Some(o), Some(extra)) = (o.as_object_mut(), extra.as_object()) {
        o.extend(extra.clone());
    }
    Pipeline::new(&crate::core::options::parse(&o).unwrap())
}

const ALL: [Kind; 4] = [
    Kind::Manual,
    Kind::Automatic,
    Kind::Forced,
    Kind::Background,
];

#[test]
fn only_an_automatic_call_waits_for_the_trigger() {
    let p = pipeline(json!({}));
    for kind in ALL {
        let start = p.start(kind, false, 100);
        if kind == Kind::Automatic {
            assert_eq!(start, Start::Skip(BELOW_TRIGGER));
        } else {
            assert_eq!(
                start,
                Start::Compact {
                    extractive: false,
                    notice: None
                },
                "{kind:?}"
            );
        }
    }
}

#[test]
fn continuation_follows_foreground_automatic_compactions_only() {
    assert!(Kind::Automatic.continues());
    assert!(Kind::Forced.continues());
    assert!(!Kind::Manual.continues());
    assert!(!Kind::Background.continues());
}

#[test]
fn the_breaker_opens_after_max_failures_of_automatic_calls_and_a_success_closes_it() {
    let mut p = pipeline(json!({"maxConsecutiveFailures": 2, "onFailure": "unchanged"}));
    // Manual failures reject and do not count.
    for _ in 0..5 {
        assert_eq!(
            p.failed(Kind::Manual, ErrorCode::SummarizerFailed, "down", 100),
            Failed::Reject
        );
    }
    assert!(!p.breaker_open());
    for kind in [Kind::Automatic, Kind::Background] {
        let f = p.failed(kind, ErrorCode::Timeout, "slow", 100);
        assert!(matches!(&f, Failed::Unchanged(w) if w.contains("TIMEOUT") && w.contains("slow")));
        assert!(f.swallowed());
    }
    assert!(p.breaker_open());
    for kind in [Kind::Automatic, Kind::Forced, Kind::Background] {
        assert_eq!(p.start(kind, true, 100), Start::Skip(BREAKER_OPEN));
    }
    // `compact()` always runs.
    assert!(matches!(
        p.start(Kind::Manual, true, 100),
        Start::Compact {
            extractive: false,
            notice: None
        }
    ));
    // An extractive fallback is not the summarizer's success: the breaker stays open.
    p.succeeded(false);
    assert!(p.breaker_open());
    p.succeeded(true);
    assert!(!p.breaker_open());
    assert_eq!(p.compactions(), 2);
}

#[test]
fn auto_policy_falls_back_to_the_extractive_summary_once_the_context_no_longer_fits() {
    let mut p = pipeline(json!({"maxConsecutiveFailures": 1}));
    let fits = crate::core::options::parse(&json!({"contextWindow": 10_000}))
        .unwrap()
        .settings
        .budget
        .available();
    assert!(matches!(
        p.failed(Kind::Automatic, ErrorCode::SummaryEmpty, "empty", fits),
        Failed::Unchanged(_)
    ));
    // The breaker is open: below the room nothing runs, past it the extractive summary does,
    // and the notice says why.
    assert_eq!(
        p.start(Kind::Automatic, true, fits),
        Start::Skip(BREAKER_OPEN)
    );
    match p.start(Kind::Automatic, true, fits + 1) {
        Start::Compact {
            extractive: true,
            notice: Some(e),
        } => assert_eq!(e.code, ErrorCode::SummarizerFailed),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        p.failed(Kind::Automatic, ErrorCode::NoProgress, "x", fits + 1),
        Failed::Extractive(w) if w.contains("extractive summary was used")
    ));
}

#[test]
fn failures_that_are_not_the_summary_always_reject() {
    for policy in ["auto", "unchanged", "extractive", "reject"] {
        let mut p = pipeline(json!({"onFailure": policy}));
        for code in [
            ErrorCode::Aborted,
            ErrorCode::InvalidInput,
            ErrorCode::CannotCompact,
            ErrorCode::Conflict,
        ] {
            assert_eq!(p.failed(Kind::Automatic, code, "x", 1), Failed::Reject);
        }
        let f = p.failed(Kind::Background, ErrorCode::SummarizerFailed, "x", 1);
        assert_eq!(f == Failed::Reject, policy == "reject", "{policy}");
    }
}

#[test]
fn summarize_extractive_never_calls_the_summarizer() {
    let p = pipeline(json!({"summarize": "extractive"}));
    for kind in ALL {
        assert!(matches!(
            p.start(kind, true, 1),
            Start::Compact {
                extractive: true,
                notice: None
            }
        ));
    }
}

/// The JSON of every step kind: the field names `js/driver.mjs` and `src/wasm/driven.rs` read.
#[test]
fn steps_json() {
    use crate::core::error::Error;
    use crate::core::summary::job::{PieceId, PieceRequest, Purpose};
    let json_of = |step: &Step| serde_json::to_value(step).unwrap();
    let request = PieceRequest {
        id: PieceId(3),
        purpose: Purpose::History,
        system: "s".into(),
        prompt: "p".into(),
        transcript: "t".into(),
        message_indices: vec![0],
        previous_summary: None,
        instructions: None,
        max_tokens: 10,
        round: 1,
    };
    let compacted = Compacted {
        tokens_before: 90,
        round: 2,
        split_turn: false,
        removed: vec![0, 1],
        summary: Some("sum".into()),
        digest: serde_json::Value::Null,
        rendered: Vec::new(),
        tokens_after: 30,
        state: None,
        warnings: vec!["w".into()],
    };
    let cases = [
        (
            Step::Raise {
                error: Error::new(ErrorCode::Timeout, "late"),
                cause: Some(ValueId(2)),
            },
            json!({"step": "raise", "error": {"code": "TIMEOUT", "message": "late"}, "cause": 2}),
        ),
        (
            Step::Report {
                error: ValueId(1),
                swallowed: true,
                failure: false,
            },
            json!({"step": "report", "error": 1, "swallowed": true, "failure": false}),
        ),
        (
            Step::Before { tokens_before: 90 },
            json!({"step": "before", "tokensBefore": 90}),
        ),
        (Step::CheckSignal, json!({"step": "checkSignal"})),
        (
            Step::Call {
                call: CallId(4),
                request: Box::new(request),
                delay_ms: 200,
            },
            json!({"step": "call", "call": 4, "delayMs": 200}),
        ),
        (Step::Await, json!({"step": "await"})),
        (
            Step::AbortCalls { reason: ValueId(5) },
            json!({"step": "abortCalls", "reason": 5}),
        ),
        (
            Step::Progress { done: 1, total: 2 },
            json!({"step": "progress", "done": 1, "total": 2}),
        ),
        (
            Step::After {
                tokens_before: 90,
                tokens_after: 30,
            },
            json!({"step": "after", "tokensBefore": 90, "tokensAfter": 30}),
        ),
        (
            Step::Commit(Box::new(compacted)),
            json!({"step": "commit", "tokensBefore": 90, "round": 2, "splitTurn": false,
                   "removed": [0, 1], "summary": "sum", "digest": null, "tokensAfter": 30,
                   "state": null, "warnings": ["w"]}),
        ),
        (
            Step::Done(Outcome::Committed),
            json!({"step": "done", "outcome": "committed"}),
        ),
        (
            Step::Done(Outcome::Unchanged("below".into())),
            json!({"step": "done", "outcome": "unchanged", "value": "below"}),
        ),
        (
            Step::Done(Outcome::Rejected(ValueId(6))),
            json!({"step": "done", "outcome": "rejected", "value": 6}),
        ),
        (
            Step::Done(Outcome::Answered("text".into())),
            json!({"step": "done", "outcome": "answered", "value": "text"}),
        ),
    ];
    for (step, expected) in cases {
        assert_eq!(json_of(&step), expected, "{step:?}");
    }
}

#[test]
fn the_caller_values_a_step_hands_out_go_in_named_fields() {
    let report = Step::Report {
        error: ValueId(2),
        swallowed: true,
        failure: false,
    };
    assert_eq!(report.value_field(), Some(("errorValue", ValueId(2))));
    let abort = Step::AbortCalls { reason: ValueId(5) };
    assert_eq!(abort.value_field(), Some(("reasonValue", ValueId(5))));
    let rejected = Step::Done(Outcome::Rejected(ValueId(1)));
    assert_eq!(rejected.value_field(), Some(("error", ValueId(1))));
    for none in [
        Step::Await,
        Step::CheckSignal,
        Step::Done(Outcome::Committed),
        Step::Done(Outcome::Unchanged("w".into())),
    ] {
        assert_eq!(none.value_field(), None, "{none:?}");
    }
}
