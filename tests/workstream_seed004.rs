//! Seed 004 (the `workstream` preset) on the stateful session: the summarizer is asked for the
//! workstream state delta that the merge reads, a delta given in the text after its marker line is
//! taken out of the summary, and the memory block is rendered with the context.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;
#[path = "common/session_config.rs"]
mod session_config;

use common::{read_call, read_output};
use context_compaction::core::message::{Message, Role};
use context_compaction::core::plan::{Disposition as D, Plan};
use context_compaction::core::session::workstream::{merge, DELTA_MARKER};
use context_compaction::core::session::{Outcome, Session};
use context_compaction::core::summary::SummaryJob;
use serde_json::{json, Value};
use session_config::session_config;

fn history() -> Vec<Message> {
    let body = "line of source code that is long enough to matter\n".repeat(20);
    vec![
        Message::text(Role::User, "Plan the onboarding flow"),
        read_call("1", "/w/flow.md"),
        read_output("1", &body),
        Message::text(Role::Assistant, "We use three steps."),
        Message::text(Role::User, "Go on"),
    ]
}

#[test]
fn the_summary_answer_carries_the_state_delta_the_merge_reads() {
    let config = session_config(&json!({"preset": "workstream"}));
    let settings = &config.settings;
    let messages = history();
    let plan = Plan {
        dispositions: vec![
            D::Summarize,
            D::Summarize,
            D::Summarize,
            D::Summarize,
            D::Keep,
        ],
        turn_prefix: None,
        split_turn: false,
        previous_summary: None,
        overlap: vec![],
        pruned: vec![],
        truncations: vec![],
        escalations: vec![],
        tokens_before: 0,
        tokens_after: 0,
    };
    let chars3 = |s: &str| s.chars().count().div_ceil(3);
    let mut job = SummaryJob::new(
        &messages,
        &plan,
        settings,
        settings.templates.clone(),
        None,
        None,
        1,
        &chars3,
    )
    .unwrap();
    job.set_state(Some("WORKSTREAM STATE:\nTasks:\n- draft flow".into()));
    let piece = job.next().pop().unwrap();
    // Seed 004: "The agent produces a replacement summary ... and a WorkstreamStateDelta".
    assert!(piece.prompt.contains("<existing-workstream-state>\nWORKSTREAM STATE:\nTasks:\n- draft flow\n</existing-workstream-state>"));
    assert!(piece.prompt.contains(DELTA_MARKER));
    let answer = format!(
        "KEY FACTS:\n- three onboarding steps\nCONVERSATION FLOW:\n- planned\nOPEN THREADS:\n- none\n\n{DELTA_MARKER}\n{}",
        json!({"decisions": ["three steps"], "remove": {"tasks": ["draft flow"]}})
    );
    job.submit(piece.id, &answer).unwrap();
    let deltas = job.take_state_deltas();
    assert_eq!(
        deltas,
        vec![json!({"decisions": ["three steps"], "remove": {"tasks": ["draft flow"]}})]
    );
    let summary = job.finish().unwrap().summary;
    assert!(summary.starts_with("KEY FACTS:\n- three onboarding steps"));
    assert!(!summary.contains(DELTA_MARKER));
    let state = merge(Some(&json!({"tasks": ["draft flow"]})), &deltas[0]);
    assert_eq!(state, json!({"decisions": ["three steps"]}));
}

#[test]
fn an_invalid_delta_is_rejected_and_may_be_asked_again() {
    let config = session_config(&json!({"preset": "workstream"}));
    let messages = history();
    let plan = Plan {
        dispositions: vec![
            D::Summarize,
            D::Summarize,
            D::Summarize,
            D::Summarize,
            D::Keep,
        ],
        turn_prefix: None,
        split_turn: false,
        previous_summary: None,
        overlap: vec![],
        pruned: vec![],
        truncations: vec![],
        escalations: vec![],
        tokens_before: 0,
        tokens_after: 0,
    };
    let chars3 = |s: &str| s.chars().count().div_ceil(3);
    let s = &config.settings;
    let mut job = SummaryJob::new(
        &messages,
        &plan,
        s,
        s.templates.clone(),
        None,
        None,
        1,
        &chars3,
    )
    .unwrap();
    let piece = job.next().pop().unwrap();
    let bad = format!("KEY FACTS:\n- x\n{DELTA_MARKER}\n{{\"decisons\": []}}");
    let e = job.submit(piece.id, &bad).unwrap_err();
    assert_eq!(e.code.as_str(), "SUMMARIZER_FAILED");
    job.submit(piece.id, "KEY FACTS:\n- x").unwrap();
    assert!(job.take_state_deltas().is_empty());
}

fn context(s: &Session) -> Vec<(Role, String)> {
    let mut out: Vec<(Role, String)> = s
        .messages()
        .into_iter()
        .map(|m| (m.role, m.plain_text()))
        .collect();
    if let Some((at, m)) = s.memory() {
        out.insert(at, (m.role, m.plain_text()));
    }
    out
}

#[test]
fn the_memory_block_is_rendered_after_the_summary_and_counted_like_a_system_prompt() {
    let config = session_config(&json!({"preset": "workstream"}));
    let mut s = Session::new(config, "s".into(), "ai-sdk".into());
    let texts = ["u1", "a1", "u2", "a2", "u3", "a3", "u4", "a4"];
    for (i, t) in texts.iter().enumerate() {
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        let m = context_compaction::formats::ai_sdk::import_message(
            &json!({"role": role, "content": t}),
            "m",
        )
        .unwrap();
        s.append(vec![m]);
    }
    assert!(s.memory().is_none());
    let before = s.budget().system_tokens;
    let points_before = s.cache_points();
    s.add_note("The user prefers TypeScript".into());
    s.add_note("Deadline is Friday".into());
    let (at, memory) = s.memory().unwrap();
    assert_eq!(at, 0);
    assert_eq!(memory.role, Role::System);
    assert_eq!(
        memory.plain_text(),
        "Memory notes:\n- The user prefers TypeScript\n- Deadline is Friday"
    );
    // Sent besides the messages: it counts as system tokens, and cache points move past it.
    assert!(s.budget().system_tokens > before);
    let shifted: Vec<usize> = points_before.iter().map(|p| p.index + 1).collect();
    let points: Vec<usize> = s.cache_points().iter().map(|p| p.index).collect();
    assert_eq!(points, shifted);
    // After a compaction, seed 004's system summary comes first, then the memory block.
    let snapshot = s.snapshot();
    let mut settings = s.config().settings.clone();
    settings.plan.strategy = context_compaction::core::plan::Strategy::LastMessages { keep: 2 };
    let cost = |_: &context_compaction::core::message::Part| 1;
    let plan = context_compaction::core::prepare::prepare(
        &settings,
        &context_compaction::core::prepare::History {
            messages: &snapshot.messages,
            tokens: &snapshot.tokens,
            total: snapshot.total,
            part_cost: &cost,
        },
        true,
    )
    .unwrap()
    .plan;
    let outcome = Outcome {
        summary: Some("KEY FACTS:\n- a".into()),
        tokens_after: 10,
        round: 1,
        digest: Value::Null,
        state: None,
        timestamp: None,
    };
    s.commit(&snapshot, &plan, &outcome).unwrap();
    let ctx = context(&s);
    assert_eq!(ctx[0].0, Role::System);
    assert!(ctx[0]
        .1
        .starts_with("Compacted context summary:\nKEY FACTS:"));
    assert_eq!(ctx[1].0, Role::System);
    assert!(ctx[1].1.starts_with("Memory notes:"));
    assert_eq!(ctx[2].1, "u4");
    // The block survives a reload.
    let text = s.to_jsonl();
    let loaded = Session::from_jsonl(
        &text,
        s.config().clone(),
        &context_compaction::formats::ai_sdk::import_message,
    )
    .unwrap();
    assert_eq!(context(&loaded), ctx);
}

#[test]
fn due_notes_are_condensed_without_a_model_or_asked_of_it() {
    let config = session_config(&json!({"preset": "workstream"}));
    let mut s = Session::new(config, "s".into(), "ai-sdk".into());
    let m = context_compaction::formats::ai_sdk::import_message(
        &json!({"role": "user", "content": "u1"}),
        "m",
    )
    .unwrap();
    s.append(vec![m]);
    for i in 0..14 {
        s.add_note(format!("note {i}"));
    }
    assert_eq!(s.notes_request(100, true), None, "not due below 15 notes");
    s.add_note("note 14".into());
    let (prompt, count) = s.notes_request(100, true).unwrap();
    assert_eq!(count, 10);
    assert!(
        prompt.contains("note 9") && !prompt.contains("note 10"),
        "{prompt}"
    );
    assert_eq!(s.notes().notes.len(), 15, "asking changes nothing");
    // Without a model the oldest 10 are condensed at once, within 4 characters a token.
    assert_eq!(s.notes_request(3, false), None);
    let block = s.notes();
    assert_eq!(block.notes.len(), 5);
    let summary = block.summary.unwrap();
    assert!(
        summary.len() <= 12 && summary.contains("note 9"),
        "{summary}"
    );
}
