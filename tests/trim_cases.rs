#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
//! Hand-made cases for `trim`: option parsing, pair-safe cuts for both strategies, partial
//! messages that keep a same-message call and result together, and how Anthropic result carriers
//! meet `startOn` / `endOn`.

use context_compaction::core::error::ErrorCode;
use context_compaction::core::message::{Message, Part, Role};
use context_compaction::core::trim::{trim, TrimOptions, TrimStrategy, Trimmed, TrimmedMessage};
use serde_json::json;

fn whole(index: usize) -> TrimmedMessage {
    TrimmedMessage { index, parts: None }
}
fn call(id: &str) -> Part {
    Part::ToolCall {
        id: id.into(),
        name: "read".into(),
        input: json!({}),
    }
}
fn result(id: &str) -> Part {
    Part::ToolResult {
        id: id.into(),
        name: None,
        output: vec![Part::text("ok")],
        is_error: false,
    }
}
fn four(_: &Part) -> usize {
    4
}
fn costs(m: &[Message]) -> Vec<usize> {
    m.iter().map(|m| 6 + 4 * m.parts.len()).collect()
}
fn run(m: &[Message], o: &TrimOptions) -> Vec<(usize, Option<Vec<usize>>)> {
    let t = trim(m, &costs(m), &four, o).unwrap();
    t.kept.into_iter().map(|k| (k.index, k.parts)).collect()
}

#[test]
fn options_parse_and_check() {
    assert_eq!(TrimStrategy::parse("first").unwrap(), TrimStrategy::First);
    let e = TrimStrategy::parse("middle").unwrap_err();
    assert_eq!(
        (e.code, e.path.as_deref()),
        (ErrorCode::InvalidOptions, Some("strategy"))
    );
    assert_eq!(
        TrimOptions::parse_role("human", "startOn").unwrap(),
        Role::User
    );
    assert_eq!(
        TrimOptions::parse_role("ai", "endOn").unwrap(),
        Role::Assistant
    );
    let e = TrimOptions::parse_role("robot", "endOn").unwrap_err();
    assert_eq!(e.path.as_deref(), Some("endOn"));
    let mut o = TrimOptions::new(10);
    o.strategy = TrimStrategy::First;
    o.include_system = true;
    let e = trim(&[], &[], &four, &o).unwrap_err();
    assert_eq!(e.path.as_deref(), Some("includeSystem"));
    o.include_system = false;
    o.start_on = vec![Role::User];
    assert_eq!(o.check().unwrap_err().path.as_deref(), Some("startOn"));
    let m = vec![Message::text(Role::User, "a")];
    let e = trim(&m, &[], &four, &TrimOptions::new(5)).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidInput);
    assert!(run(&m, &TrimOptions::new(0)).is_empty());
}

#[test]
fn last_moves_start_past_a_split_pair() {
    // tokens: user 10, call 10, two results 10 each, answer 10
    let m = vec![
        Message::text(Role::User, "go"),
        Message::new(Role::Assistant, vec![call("a"), call("b")]),
        Message::new(Role::Tool, vec![result("b")]),
        Message::new(Role::Tool, vec![result("a")]),
        Message::text(Role::Assistant, "done"),
    ];
    let t = [10, 10, 10, 10, 10];
    let o = TrimOptions::new(30);
    let kept = trim(&m, &t, &four, &o).unwrap();
    assert_eq!(kept.kept, vec![whole(4)]);
    let o = TrimOptions::new(40);
    let kept = trim(&m, &t, &four, &o).unwrap();
    assert_eq!(kept.kept.len(), 4);
}

#[test]
fn first_cuts_back_and_partial_drops_the_unpaired_call() {
    let m = vec![
        Message::text(Role::User, "go"),
        Message::new(Role::Assistant, vec![Part::text("let me look"), call("a")]),
        Message::new(Role::Tool, vec![result("a")]),
    ];
    let mut o = TrimOptions::new(30);
    o.strategy = TrimStrategy::First;
    // user 10 + assistant 14 fit, but the result does not: the call goes too
    assert_eq!(run(&m, &o), vec![(0, None)]);
    o.allow_partial = true;
    assert_eq!(run(&m, &o), vec![(0, None), (1, Some(vec![0]))]);
}

#[test]
fn partial_keeps_a_same_message_pair_together() {
    // AI SDK: provider-executed result inside the assistant message
    let m = vec![
        Message::text(Role::User, "q"),
        Message::new(
            Role::Assistant,
            vec![Part::text("x"), call("s"), result("s"), Part::text("y")],
        ),
    ];
    let mut o = TrimOptions::new(6 + 4 * 2);
    o.allow_partial = true;
    // the last two parts would split the pair; only "y" is kept
    assert_eq!(run(&m, &o), vec![(1, Some(vec![3]))]);
    o.max_tokens = 6 + 4 * 3;
    assert_eq!(run(&m, &o), vec![(1, Some(vec![1, 2, 3]))]);
}

#[test]
fn start_on_may_start_on_a_carriers_text_at_any_budget() {
    // a budget holding the whole call + carrier + answer must not keep less than a smaller one
    let m = vec![
        Message::text(Role::User, "go"),
        Message::new(Role::Assistant, vec![call("a")]),
        Message::new(Role::User, vec![result("a"), Part::text("and also")]),
        Message::text(Role::Assistant, "ok"),
    ];
    let mut o = TrimOptions::new(34);
    o.start_on = vec![Role::User];
    o.allow_partial = true;
    assert_eq!(run(&m, &o), vec![(2, Some(vec![1])), (3, None)]);
    o.allow_partial = false;
    assert!(run(&m, &o).is_empty());
    o.max_tokens = 44;
    assert_eq!(run(&m, &o).len(), 4);
}

#[test]
fn anthropic_carrier_is_a_tool_message_for_start_on() {
    let m = vec![
        Message::text(Role::User, "go"),
        Message::new(Role::Assistant, vec![call("a")]),
        Message::new(Role::User, vec![result("a"), Part::text("and also")]),
        Message::text(Role::Assistant, "ok"),
    ];
    let mut o = TrimOptions::new(100);
    o.start_on = vec![Role::User];
    assert_eq!(run(&m, &o).len(), 4);
    o.max_tokens = 30;
    // tail [assistant call, carrier, ok] = 34 > 30; start moves to 3; startOn user finds none
    assert!(run(&m, &o).is_empty());
    o.allow_partial = true;
    // the carrier keeps its text only: an ordinary user message, so startOn accepts it
    assert_eq!(run(&m, &o), vec![(2, Some(vec![1])), (3, None)]);
}

#[test]
fn a_partial_last_message_must_still_match_end_on() {
    let m = vec![
        Message::new(Role::Assistant, vec![call("a")]),
        Message::new(Role::User, vec![result("a"), Part::text("and also")]),
    ];
    let mut o = TrimOptions::new(100);
    o.start_on = vec![Role::User];
    o.end_on = vec![Role::Tool];
    o.allow_partial = true;
    // the carrier's text alone would start on `user` but no longer end on `tool`
    assert!(run(&m, &o).is_empty());
    o.end_on = vec![Role::Tool, Role::User];
    assert_eq!(run(&m, &o), vec![(1, Some(vec![1]))]);
}

#[test]
fn apply_builds_partial_messages() {
    let m = vec![Message::new(
        Role::Assistant,
        vec![Part::text("a"), Part::text("b")],
    )];
    let t = Trimmed {
        kept: vec![TrimmedMessage {
            index: 0,
            parts: Some(vec![1]),
        }],
    };
    assert_eq!(t.apply(&m)[0].parts, vec![Part::text("b")]);
}

#[test]
fn a_result_before_its_call_is_never_kept() {
    // A damaged history: the result comes first, its call after it; both fit the budget. The
    // result is taken out (its message, holding nothing else, is dropped); the call stays.
    let m = vec![
        Message::text(Role::User, "q"),
        Message::new(Role::Tool, vec![result("a1")]),
        Message::new(Role::Assistant, vec![call("a1")]),
        Message::new(Role::User, vec![Part::text("q2"), result("a2")]),
        Message::new(Role::Assistant, vec![call("a2")]),
    ];
    let kept = run(&m, &TrimOptions::new(1_000));
    assert_eq!(
        kept,
        vec![(0, None), (2, None), (3, Some(vec![0])), (4, None)]
    );
    let first = TrimOptions {
        strategy: TrimStrategy::First,
        ..TrimOptions::new(1_000)
    };
    assert_eq!(run(&m, &first), kept);
}

#[test]
fn trim_estimated_counts_with_the_estimator() {
    use context_compaction::core::estimate::{Counter, Estimator};
    use context_compaction::core::trim::trim_estimated;
    let estimator = Estimator::new(Counter::of(None));
    let m = vec![
        Message::text(Role::User, "a question, long enough to cost some tokens"),
        Message::new(Role::Assistant, vec![call("c")]),
        Message::new(Role::Tool, vec![result("c")]),
        Message::text(Role::Assistant, "the answer"),
    ];
    let tokens = estimator.estimate_all(&m).per_message;
    let cost = |p: &Part| estimator.part_tokens(p);
    for budget in [0, tokens[3], tokens[1] + tokens[2] + tokens[3], 1_000] {
        let o = TrimOptions::new(budget);
        let got = trim_estimated(&m, &estimator, &o).unwrap();
        assert_eq!(got, trim(&m, &tokens, &cost, &o).unwrap(), "{budget}");
    }
    let all = trim_estimated(&m, &estimator, &TrimOptions::new(1_000)).unwrap();
    assert_eq!(all.kept.len(), 4);
}

#[test]
fn langchain_only_options_are_refused_by_name() {
    use context_compaction::core::trim::refuse_langchain_only;
    assert!(refuse_langchain_only(&|_| false).is_ok());
    let e = refuse_langchain_only(&|key| key == "textSplitter").unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidOptions);
    assert_eq!(e.path.as_deref(), Some("textSplitter"));
    assert!(e.message.starts_with("textSplitter is not supported"));
    // both given: the first of the list is named
    let e = refuse_langchain_only(&|_| true).unwrap_err();
    assert_eq!(e.path.as_deref(), Some("tokenCounter"));
}
