#![cfg(not(target_arch = "wasm32"))]
//! The summary job on the planner's own plans: a split turn from a small window, and a real pi
//! session large enough to be chunked.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;
use common::{read_call, read_output};
use context_compaction::core::estimate::Estimator;
use context_compaction::core::message::{Message, Part, Role};
use context_compaction::core::plan::{self, Disposition as D, PlanInput};
use context_compaction::core::settings::Settings;
use context_compaction::core::summary::{
    PieceRequest, SummaryJob, Templates, APPENDED_HEADING, TURN_CONTEXT_HEADING,
};
use context_compaction::formats::pi_session::import_pi_session;

/// u a(call) t u a(call) t a: a long-enough history for small answers to make progress.
/// Answers every request until the job is done; returns the requests.
fn drive(job: &mut SummaryJob<'_>, answer: &dyn Fn(&PieceRequest) -> String) -> Vec<PieceRequest> {
    let mut all = Vec::new();
    loop {
        let batch = job.next();
        if batch.is_empty() {
            break;
        }
        for r in &batch {
            job.submit(r.id, &answer(r)).unwrap();
        }
        all.extend(batch);
    }
    assert!(job.is_done());
    all
}

#[test]
fn planner_split_turn_reaches_the_job() {
    // One old turn, then a long turn whose beginning is cut off by a small window.
    let mut msgs = vec![
        Message::text(Role::User, "First task"),
        Message::text(Role::Assistant, "Done with the first task."),
        Message::text(Role::User, "Second task: read many files"),
    ];
    let body = "some file content with several words in it\n".repeat(40);
    for i in 0..12 {
        msgs.push(read_call(&format!("c{i}"), &format!("/w/f{i}.rs")));
        msgs.push(read_output(&format!("c{i}"), &body));
    }
    let estimator = Estimator::default();
    let tokens = estimator.estimate_all(&msgs).per_message;
    let mut s = Settings::new(10_000);
    s.plan.prune = None;
    let part_cost = |p: &Part| estimator.part_tokens(p);
    let input = PlanInput {
        messages: &msgs,
        tokens: &tokens,
        part_cost: &part_cost,
    };
    let p = plan::plan(&input, &s.plan).unwrap();
    assert!(p.turn_prefix.is_some(), "{:?}", p.dispositions);
    let count = |s: &str| estimator.counter.count(s);
    let mut j =
        SummaryJob::new(&msgs, &p, &s, Templates::default(), None, None, 1, &count).unwrap();
    let batch = j.next();
    assert_eq!(batch.len(), 2);
    assert_eq!(batch[0].message_indices, vec![0, 1]);
    assert_eq!(batch[1].message_indices, p.indices(D::TurnPrefix));
    assert!(batch[0]
        .prompt
        .contains("Additional instructions from the user: (none)"));
    j.submit(batch[0].id, "First task done.").unwrap();
    j.submit(batch[1].id, "Reading files.").unwrap();
    let f = j.finish().unwrap();
    assert!(f.summary.starts_with(&format!(
        "First task done.\n\n{TURN_CONTEXT_HEADING}\n\nReading files."
    )));
    assert!(f.digest.files_read.contains(&"/w/f0.rs".to_string()));
}

#[test]
fn a_real_session_is_chunked_end_to_end() {
    let raw = common::fixtures::text("pi/large-session.jsonl");
    let msgs = import_pi_session(&raw).unwrap().messages;
    let estimator = Estimator::default();
    let tokens = estimator.estimate_all(&msgs).per_message;
    let mut s = Settings::new(200_000);
    s.plan.prune = None;
    let part_cost = |p: &Part| estimator.part_tokens(p);
    let input = PlanInput {
        messages: &msgs,
        tokens: &tokens,
        part_cost: &part_cost,
    };
    let p = plan::plan(&input, &s.plan).unwrap();
    let count = |t: &str| estimator.counter.count(t);
    let mut j =
        SummaryJob::new(&msgs, &p, &s, Templates::default(), None, None, 1, &count).unwrap();
    let (_, total) = j.progress();
    assert!(total >= 2, "a large session needs several chunks: {total}");
    let batches = drive(&mut j, &|r| {
        format!("Summary of piece {} ({}).", r.id.0, r.purpose.as_str())
    });
    for r in &batches {
        assert!(r.transcript.chars().count() <= s.chunk_chars);
    }
    let f = j.finish().unwrap();
    assert!(f.summary.contains(APPENDED_HEADING));
    assert!(!f.digest.files_modified.is_empty());
    assert!(f.summary.contains(&f.digest.files_modified[0]));
}
