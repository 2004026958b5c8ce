#![cfg(not(target_arch = "wasm32"))]
//! The summary job: which requests it hands out and when, how it validates answers, and what it
//! assembles; on hand-made plans, on the planner's own plans and on a real pi session.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;
use common::{read_call, read_output};
use context_compaction::core::error::ErrorCode;
use context_compaction::core::message::{Message, Role};
use context_compaction::core::plan::{Disposition as D, Plan};
use context_compaction::core::settings::Settings;
use context_compaction::core::summary::{
    Finished, PieceId, PieceRequest, Purpose, SummaryJob, Templates, APPENDED_HEADING,
    TURN_CONTEXT_HEADING,
};

fn chars4(s: &str) -> usize {
    s.chars().count().div_ceil(4)
}

fn settings() -> Settings {
    Settings::new(200_000)
}

fn plan_of(dispositions: Vec<D>, previous_summary: Option<usize>) -> Plan {
    let first = dispositions.iter().position(|d| *d == D::TurnPrefix);
    let last = dispositions.iter().rposition(|d| *d == D::TurnPrefix);
    Plan {
        turn_prefix: first.zip(last).map(|(a, b)| a..b + 1),
        split_turn: first.is_some(),
        dispositions,
        previous_summary,
        overlap: vec![],
        pruned: vec![],
        truncations: vec![],
        escalations: vec![],
        tokens_before: 0,
        tokens_after: 0,
    }
}

/// u a(call) t u a(call) t a: a long-enough history for small answers to make progress.
fn history() -> Vec<Message> {
    let body = "line of source code that is long enough to matter\n".repeat(20);
    vec![
        Message::text(Role::User, "Refactor the parser in /w/parser.rs"),
        read_call("1", "/w/parser.rs"),
        read_output("1", &body),
        Message::text(Role::User, "Now add tests"),
        read_call("2", "/w/tests/parser.rs"),
        read_output("2", &body),
        Message::text(Role::Assistant, "Tests added."),
    ]
}

fn job<'e>(
    messages: &[Message],
    plan: &Plan,
    settings: &Settings,
    previous: Option<&str>,
    estimate: &'e dyn Fn(&str) -> usize,
) -> SummaryJob<'e> {
    SummaryJob::new(
        messages,
        plan,
        settings,
        Templates::default(),
        previous.map(str::to_string),
        Some("keep the TODOs".into()),
        2,
        estimate,
    )
    .unwrap()
}

/// Answers every request with `answer(request)` until the job is done; returns the batches.
fn drive(
    job: &mut SummaryJob<'_>,
    answer: &dyn Fn(&PieceRequest) -> String,
) -> Vec<Vec<PieceRequest>> {
    let mut batches = Vec::new();
    loop {
        let batch = job.next();
        if batch.is_empty() {
            break;
        }
        for r in &batch {
            job.submit(r.id, &answer(r)).unwrap();
        }
        batches.push(batch);
    }
    assert!(job.is_done());
    batches
}

#[test]
fn single_piece() {
    let msgs = history();
    let p = plan_of(
        vec![
            D::Summarize,
            D::Summarize,
            D::Summarize,
            D::Keep,
            D::Keep,
            D::Keep,
            D::Keep,
        ],
        None,
    );
    let s = settings();
    let mut j = job(&msgs, &p, &s, None, &chars4);
    assert_eq!(j.progress(), (0, 1));
    let batch = j.next();
    assert_eq!(batch.len(), 1);
    let r = &batch[0];
    assert_eq!(r.purpose, Purpose::History);
    assert_eq!(r.message_indices, vec![0, 1, 2]);
    assert_eq!(r.max_tokens, s.plan.summary_tokens);
    assert_eq!(r.round, 2);
    assert_eq!(r.previous_summary, None);
    assert_eq!(r.instructions.as_deref(), Some("keep the TODOs"));
    assert!(r
        .transcript
        .starts_with("[1] USER:\nRefactor the parser in /w/parser.rs"));
    assert!(r.prompt.contains(&r.transcript));
    assert!(r.prompt.contains("keep the TODOs"));
    assert!(r.prompt.contains("compaction round 2"));
    assert_eq!(r.system, Templates::default().system);
    // Handed out once.
    assert!(j.next().is_empty());
    assert!(!j.is_done());
    j.submit(
        r.id,
        "  ## Goal and constraints\nRefactor the parser in /w/parser.rs\n",
    )
    .unwrap();
    assert_eq!(j.progress(), (1, 1));
    assert!(j.is_done() && j.next().is_empty());
    let f = j.finish().unwrap();
    assert_eq!(
        f.summary,
        "## Goal and constraints\nRefactor the parser in /w/parser.rs"
    );
    assert_eq!(f.digest.files_read, vec!["/w/parser.rs"]);
    assert!(f.appended.is_empty());
}

#[test]
fn digest_items_the_answer_missed_are_appended() {
    let msgs = history();
    let p = plan_of(vec![D::Summarize; 7], None);
    let mut j = job(&msgs, &p, &settings(), None, &chars4);
    drive(&mut j, &|_| "Worked on the parser.".into());
    let f = j.finish().unwrap();
    assert!(f.summary.starts_with("Worked on the parser.\n\n"));
    assert!(f.summary.contains(APPENDED_HEADING));
    assert!(f.summary.contains("- /w/parser.rs\n- /w/tests/parser.rs"));
    assert_eq!(
        f.appended.user_requests,
        vec!["Refactor the parser in /w/parser.rs", "Now add tests"]
    );
}

#[test]
fn history_and_turn_prefix_are_issued_together() {
    let msgs = history();
    let p = plan_of(
        vec![
            D::Summarize,
            D::Summarize,
            D::Summarize,
            D::TurnPrefix,
            D::TurnPrefix,
            D::TurnPrefix,
            D::Keep,
        ],
        None,
    );
    let s = settings();
    let mut j = job(&msgs, &p, &s, None, &chars4);
    assert_eq!(j.progress(), (0, 2));
    let batch = j.next();
    let purposes: Vec<Purpose> = batch.iter().map(|r| r.purpose).collect();
    assert_eq!(purposes, vec![Purpose::History, Purpose::TurnPrefix]);
    let prefix = &batch[1];
    assert_eq!(prefix.message_indices, vec![3, 4, 5]);
    assert_eq!(prefix.max_tokens, s.plan.prefix_summary_tokens);
    assert_eq!(prefix.previous_summary, None);
    assert!(prefix.transcript.starts_with("[1] USER:\nNow add tests"));
    assert!(prefix.prompt.contains("Turn Context (split turn)"));
    assert_ne!(batch[0].id, batch[1].id);
    // Answers may come in any order.
    j.submit(
        batch[1].id,
        "User: \"Now add tests\" for /w/tests/parser.rs; it was read.",
    )
    .unwrap();
    assert_eq!(j.progress(), (1, 2));
    assert!(j.next().is_empty());
    j.submit(batch[0].id, "Refactor the parser in /w/parser.rs (done).")
        .unwrap();
    let f = j.finish().unwrap();
    assert_eq!(
        f.summary,
        format!("Refactor the parser in /w/parser.rs (done).\n\n{TURN_CONTEXT_HEADING}\n\nUser: \"Now add tests\" for /w/tests/parser.rs; it was read.")
    );
}

fn chunky_history() -> Vec<Message> {
    (0..12)
        .map(|i| {
            let role = if i % 2 == 0 {
                Role::User
            } else {
                Role::Assistant
            };
            Message::text(role, format!("message {i}: {}", "word ".repeat(80)))
        })
        .collect()
}

#[test]
fn chunks_run_in_sequence_each_building_on_the_previous() {
    let msgs = chunky_history();
    let p = plan_of(vec![D::Summarize; 12], None);
    let mut s = settings();
    s.chunk_chars = 1_000;
    let mut j = job(&msgs, &p, &s, Some("EARLIER"), &chars4);
    let (_, total) = j.progress();
    assert!(total >= 4, "{total}");
    let mut seen = Vec::new();
    let mut previous_answer: Option<String> = Some("EARLIER".into());
    let mut covered = Vec::new();
    for k in 0..total {
        let batch = j.next();
        assert_eq!(batch.len(), 1, "chunks run one at a time");
        let r = &batch[0];
        assert_eq!(r.purpose, Purpose::Chunk);
        assert!(r.transcript.chars().count() <= 1_000);
        assert_eq!(r.previous_summary, previous_answer);
        assert!(r.prompt.contains(&format!("part {} of {total}", k + 1)));
        assert!(r.prompt.contains(previous_answer.as_deref().unwrap()));
        assert!(j.next().is_empty(), "the next chunk waits for this answer");
        covered.extend(r.message_indices.iter().copied());
        let answer = format!("summary after chunk {k}");
        j.submit(r.id, &answer).unwrap();
        assert_eq!(j.progress(), (k + 1, total));
        previous_answer = Some(answer);
        seen.push(r.transcript.clone());
    }
    assert!(j.next().is_empty() && j.is_done());
    assert_eq!(covered, (0..12).collect::<Vec<_>>());
    // Numbering continues across chunks.
    assert!(seen.join("\n\n").contains("[12] ASSISTANT:"));
    assert!(seen[1].starts_with(&format!("[{}] ", seen[0].matches("\n\n[").count() + 2)));
    let f = j.finish().unwrap();
    assert!(f
        .summary
        .starts_with(&format!("summary after chunk {}", total - 1)));
}

#[test]
fn a_single_huge_message_is_cut_and_token_limits_chunk_too() {
    let mut msgs = chunky_history();
    msgs.insert(
        2,
        Message::text(Role::Assistant, "日本語のテキスト ".repeat(400)),
    );
    let p = plan_of(vec![D::Summarize; msgs.len()], None);
    let mut s = settings();
    s.chunk_chars = 1_000;
    let mut j = job(&msgs, &p, &s, None, &chars4);
    let batches = drive(&mut j, &|r| format!("S{}", r.id.0));
    let requests: Vec<&PieceRequest> = batches.iter().flatten().collect();
    let on_huge: Vec<&&PieceRequest> = requests
        .iter()
        .filter(|r| r.message_indices.contains(&2))
        .collect();
    assert!(on_huge.len() >= 4, "{}", on_huge.len());
    assert!(on_huge[1].transcript.starts_with("(continued)\n"));
    for r in &requests {
        assert!(r.transcript.chars().count() <= 1_000);
    }
    // A token limit below the character limit makes more, smaller chunks.
    s.chunk_chars = 100_000;
    s.summarizer_input_tokens = Some(150);
    let mut j = job(&msgs, &p, &s, None, &chars4);
    for batch in drive(&mut j, &|r| format!("S{}", r.id.0)) {
        for r in batch {
            assert!(chars4(&r.transcript) <= 150, "{}", chars4(&r.transcript));
        }
    }
}

#[test]
fn rollup_when_the_answer_is_too_long() {
    let msgs = chunky_history();
    let p = plan_of(vec![D::Summarize; 12], None);
    let mut s = settings();
    s.rollup_tokens = 50;
    let mut j = job(&msgs, &p, &s, None, &chars4);
    let first = j.next();
    let long = "a long summary sentence. ".repeat(20); // 125 tokens
    j.submit(first[0].id, &long).unwrap();
    assert_eq!(j.progress(), (1, 2));
    assert!(!j.is_done());
    let rollup = j.next();
    assert_eq!(rollup.len(), 1);
    let r = &rollup[0];
    assert_eq!(r.purpose, Purpose::Rollup);
    assert_eq!(r.previous_summary.as_deref(), Some(long.trim()));
    assert!(r.prompt.contains(long.trim()));
    assert_eq!(r.max_tokens, s.plan.summary_tokens);
    assert_eq!(r.message_indices, (0..12).collect::<Vec<_>>());
    assert_eq!(r.transcript, "");
    // The rollup must be shorter than the summary it condenses.
    let e = j.submit(r.id, &format!("{long} more")).unwrap_err();
    assert_eq!(e.code, ErrorCode::NoProgress);
    j.submit(r.id, "short").unwrap();
    assert_eq!(j.progress(), (2, 2));
    assert!(j.next().is_empty());
    assert!(j.finish().unwrap().summary.starts_with("short"));
    // A rollup that never condenses is given up: the summary is cut to its cap instead.
    s.plan.summary_tokens = 50;
    let mut j = job(&msgs, &p, &s, None, &chars4);
    let first = j.next();
    j.submit(first[0].id, &long).unwrap();
    let rollup = j.next();
    assert!(
        j.skip_rollup(first[0].id).is_err(),
        "only the rollup can be skipped"
    );
    j.skip_rollup(rollup[0].id).unwrap();
    assert!(j.is_done());
    let summary = j.finish().unwrap().summary;
    assert!(chars4(&summary) <= 50, "{} > 50", chars4(&summary));
    assert!(
        summary.ends_with("[... summary cut to its token budget]"),
        "{summary}"
    );
}

#[test]
fn empty_and_oversized_answers_are_rejected_and_can_be_retried() {
    let msgs = history();
    let p = plan_of(
        vec![
            D::Summarize,
            D::Summarize,
            D::Summarize,
            D::Keep,
            D::Keep,
            D::Keep,
            D::Keep,
        ],
        None,
    );
    let mut j = job(&msgs, &p, &settings(), None, &chars4);
    let r = j.next().remove(0);
    let e = j.submit(r.id, " \n\t ").unwrap_err();
    assert_eq!(e.code, ErrorCode::SummaryEmpty);
    let replaced = chars4(&r.transcript);
    // Larger than what it replaces and than the budget it was asked for.
    let huge = "x".repeat((r.transcript.chars().count() + 10).max(4 * r.max_tokens + 40));
    let e = j.submit(r.id, &huge).unwrap_err();
    assert_eq!(e.code, ErrorCode::NoProgress);
    assert!(
        e.message.contains(&chars4(&huge).to_string()),
        "{}",
        e.message
    );
    assert!(e.message.contains(&replaced.to_string()), "{}", e.message);
    assert_eq!(j.progress(), (0, 1));
    // Larger than a small piece but within the budget asked for: the compaction as a whole must
    // shrink instead (a few short messages before a long split turn).
    let mut j2 = job(&msgs, &p, &settings(), None, &chars4);
    let r2 = j2.next().remove(0);
    assert!(
        replaced + 5 <= r2.max_tokens,
        "{replaced} {}",
        r2.max_tokens
    );
    let within = "y".repeat(4 * (replaced + 5));
    j2.submit(r2.id, &within).unwrap();
    let e = j.submit(PieceId(77), "fine").unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidInput);
    j.submit(r.id, "fine").unwrap();
    let e = j.submit(r.id, "again").unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidInput);
}

#[test]
fn finish_before_done_and_empty_plans_are_errors() {
    let msgs = history();
    let p = plan_of(vec![D::Summarize; 7], None);
    let mut j = job(&msgs, &p, &settings(), None, &chars4);
    let _ = j.next();
    let e = j.finish().unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidInput);
    assert!(e.message.contains("0 of 1"));
    let keep = plan_of(vec![D::Keep; 7], None);
    let e = SummaryJob::new(
        &msgs,
        &keep,
        &settings(),
        Templates::default(),
        None,
        None,
        1,
        &chars4,
    )
    .err()
    .unwrap();
    assert_eq!(e.code, ErrorCode::InvalidInput);
    let short = plan_of(vec![D::Keep; 3], None);
    assert!(SummaryJob::new(
        &msgs,
        &short,
        &settings(),
        Templates::default(),
        None,
        None,
        1,
        &chars4
    )
    .is_err());
}

#[test]
fn earlier_summary_is_updated_not_repeated() {
    let mut msgs = history();
    let mut earlier = Message::text(
        Role::User,
        "The conversation history before this point was compacted into the following summary:\n\nOLD SUMMARY",
    );
    earlier.summary = true;
    msgs.insert(0, earlier);
    let p = plan_of(
        vec![
            D::Summarize,
            D::Summarize,
            D::Summarize,
            D::Summarize,
            D::Keep,
            D::Keep,
            D::Keep,
            D::Keep,
        ],
        Some(0),
    );
    let mut j = job(&msgs, &p, &settings(), None, &chars4);
    let r = j.next().remove(0);
    assert_eq!(r.purpose, Purpose::History);
    assert_eq!(r.previous_summary.as_deref(), Some("OLD SUMMARY"));
    assert_eq!(r.message_indices, vec![1, 2, 3]);
    assert!(!r.transcript.contains("OLD SUMMARY"));
    assert!(r
        .prompt
        .contains("<previous-summary>\nOLD SUMMARY\n</previous-summary>"));
    assert!(r.prompt.contains("Merge, do not append"));
    // An explicit previous summary wins.
    let mut j = job(&msgs, &p, &settings(), Some("GIVEN"), &chars4);
    assert_eq!(j.next()[0].previous_summary.as_deref(), Some("GIVEN"));
}

#[test]
fn previous_summary_is_reused_when_only_a_prefix_is_new() {
    let mut msgs = history();
    let mut earlier = Message::text(Role::User, "OLD SUMMARY of /w/parser.rs");
    earlier.summary = true;
    msgs.insert(0, earlier);
    let p = plan_of(
        vec![
            D::Summarize,
            D::TurnPrefix,
            D::TurnPrefix,
            D::TurnPrefix,
            D::Keep,
            D::Keep,
            D::Keep,
            D::Keep,
        ],
        Some(0),
    );
    let mut j = job(&msgs, &p, &settings(), None, &chars4);
    assert_eq!(j.progress(), (0, 1));
    let batch = j.next();
    assert_eq!(batch.len(), 1);
    assert_eq!(batch[0].purpose, Purpose::TurnPrefix);
    j.submit(batch[0].id, "Refactor the parser in /w/parser.rs: started.")
        .unwrap();
    let f = j.finish().unwrap();
    assert_eq!(
        f.summary,
        format!("OLD SUMMARY of /w/parser.rs\n\n{TURN_CONTEXT_HEADING}\n\nRefactor the parser in /w/parser.rs: started.")
    );
}

#[test]
fn jobs_are_deterministic() {
    let run = || -> (Vec<Vec<PieceRequest>>, Finished) {
        let mut msgs = chunky_history();
        msgs.extend(history());
        let mut d = vec![D::Summarize; 12];
        d.extend([
            D::Summarize,
            D::Summarize,
            D::Summarize,
            D::TurnPrefix,
            D::TurnPrefix,
            D::TurnPrefix,
            D::Keep,
        ]);
        let p = plan_of(d, None);
        let mut s = settings();
        s.chunk_chars = 1_500;
        let mut j = job(&msgs, &p, &s, None, &chars4);
        let batches = drive(&mut j, &|r| format!("answer {} {:?}", r.id.0, r.purpose));
        (batches, j.finish().unwrap())
    };
    let (a, fa) = run();
    let (b, fb) = run();
    assert_eq!(a, b);
    assert_eq!(fa, fb);
    // The prefix ran alongside the first chunk.
    assert_eq!(a[0].len(), 2);
    assert_eq!(a[0][1].purpose, Purpose::TurnPrefix);
}
