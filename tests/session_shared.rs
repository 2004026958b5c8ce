#![cfg(not(target_arch = "wasm32"))]
//! A session log shared by several writers through a store (core::session::shared): the merge of
//! other writers' entries by the commit rule, idempotent retries, and the live set that a load
//! reads instead of the whole log. The store here is a vector with a version check, as every real
//! store behaves (tests/js/stores/ hold the real ones to the same contract).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

#[path = "common/session_config.rs"]
mod session_config;

use context_compaction::core::error::ErrorCode;
use context_compaction::core::estimate::Usage;
use context_compaction::core::message::{Message, Part};
use context_compaction::core::plan::{plan, PlanInput, PlanOptions, Strategy};
use context_compaction::core::prune::{PruneAction, PruneKind};
use context_compaction::core::session::{Config, LiveSet, Outcome, Session};
use context_compaction::formats::ai_sdk::import_message;
use proptest::prelude::*;
use serde_json::{json, Value};
use session_config::session_config;

fn config() -> Config {
    session_config(&json!({"contextWindow": 100_000}))
}

/// Writer `a` with `n` messages stored, and writer `b` opened from the store after them.
fn two_writers(store: &mut Store, n: usize) -> (Writer, Writer) {
    let mut a = Writer::new("a");
    for i in 0..n {
        a.s.append(vec![user(&format!("m{i}"))]);
    }
    a.commit(store);
    let b = Writer::open(store, "b");
    (a, b)
}

fn import(v: &Value, path: &str) -> context_compaction::core::error::Result<Message> {
    import_message(v, path)
}

fn user(text: &str) -> Message {
    import(&json!({"role": "user", "content": text}), "m").unwrap()
}

fn system(text: &str) -> Message {
    import(&json!({"role": "system", "content": text}), "m").unwrap()
}

/// An assistant call and its result.
fn tool_pair(n: usize) -> Vec<Message> {
    vec![
        import(&json!({"role": "assistant", "content": [{"type": "tool-call", "toolCallId": format!("c{n}"), "toolName": "read", "input": {"path": format!("f{n}.rs")}}]}), "m").unwrap(),
        import(&json!({"role": "tool", "content": [{"type": "tool-result", "toolCallId": format!("c{n}"), "toolName": "read", "output": {"type": "text", "value": "x".repeat(400)}}]}), "m").unwrap(),
    ]
}

fn text_of(m: &Message) -> String {
    m.parts
        .iter()
        .find_map(|p| match p {
            Part::Text { text } => Some(text.clone()),
            Part::ToolResult { output, .. } => output.iter().find_map(|o| match o {
                Part::Text { text } => Some(format!("result:{}", text.len())),
                _ => None,
            }),
            Part::ToolCall { id, .. } => Some(format!("call:{id}")),
            _ => None,
        })
        .unwrap_or_default()
}

fn context(s: &Session) -> Vec<String> {
    s.messages().into_iter().map(text_of).collect()
}

/// The store: the header, every line with its entry id, the live set, a version check.
#[derive(Default)]
struct Store {
    header: Option<String>,
    lines: Vec<(String, String)>,
    live: LiveSet,
}

impl Store {
    fn version(&self) -> usize {
        self.lines.len()
    }

    /// The header and the live lines, as a JSONL text for `Session::from_jsonl`.
    fn load(&self) -> String {
        let pos = |id: &String| self.lines.iter().position(|(i, _)| i == id);
        let from = self.live.from.as_ref().and_then(pos).unwrap_or(0);
        let mut carry: Vec<usize> = self
            .live
            .carry
            .iter()
            .filter_map(pos)
            .filter(|&i| i < from)
            .collect();
        carry.sort_unstable();
        let mut out = format!("{}\n", self.header.as_ref().unwrap());
        for i in carry.into_iter().chain(from..self.lines.len()) {
            out.push_str(&self.lines[i].1);
            out.push('\n');
        }
        out
    }

    /// The whole log.
    fn all(&self) -> String {
        let mut out = format!("{}\n", self.header.as_ref().unwrap());
        for (_, l) in &self.lines {
            out.push_str(l);
            out.push('\n');
        }
        out
    }
}

/// One writer: its session and the store version it has seen.
struct Writer {
    s: Session,
    version: usize,
}

impl Writer {
    fn new(tag: &str) -> Writer {
        let mut s = Session::new(config(), "conv".into(), "ai-sdk".into());
        s.set_id_tag(Some(tag.into()));
        Writer { s, version: 0 }
    }

    fn open(store: &Store, tag: &str) -> Writer {
        let mut s = Session::from_jsonl(&store.load(), config(), &import).unwrap();
        s.set_id_tag(Some(tag.into()));
        Writer {
            s,
            version: store.version(),
        }
    }

    /// Commits the pending entries, merging other writers' first when the version moved.
    /// Returns the types of the pending entries the merge dropped.
    fn commit(&mut self, store: &mut Store) -> Vec<&'static str> {
        let mut dropped = Vec::new();
        if store.version() != self.version {
            let header = store.header.clone().unwrap();
            let lines: Vec<&str> = store.lines[self.version..]
                .iter()
                .map(|(_, l)| l.as_str())
                .collect();
            let merged = self.s.merge_remote(&header, &lines, &import).unwrap();
            dropped.extend(merged.dropped.iter().map(|d| d.1));
            self.version = store.version();
        }
        let pending = self.s.pending();
        if let Some(h) = pending.header {
            store.header.get_or_insert_with(|| h.to_string());
        }
        let n = pending.entries.len();
        store.lines.extend(
            pending
                .entries
                .iter()
                .map(|e| (e.id.clone(), e.line().into_owned())),
        );
        let epoch = pending.live.is_some().then_some(pending.live_epoch);
        if let Some(l) = pending.live {
            store.live = l;
        }
        self.s.mark_stored(n, epoch);
        self.version = store.version();
        dropped
    }
}

/// Compacts `s` locally keeping the last `keep` messages of its context.
fn compact(s: &mut Session, keep: usize, text: &str) -> Result<String, ErrorCode> {
    let snapshot = s.snapshot();
    let p = plan_keep(&snapshot.messages, &snapshot.tokens, keep);
    let outcome = Outcome {
        summary: Some(text.to_string()),
        tokens_after: 10,
        round: 1,
        digest: Value::Null,
        state: None,
        timestamp: None,
    };
    s.commit(&snapshot, &p, &outcome).map_err(|e| e.code)
}

fn plan_keep(
    messages: &[Message],
    tokens: &[usize],
    keep: usize,
) -> context_compaction::core::plan::Plan {
    let cost = |_: &Part| 1;
    plan(
        &PlanInput {
            messages,
            tokens,
            part_cost: &cost,
        },
        &PlanOptions {
            strategy: Strategy::LastMessages { keep },
            ..config().settings.plan
        },
    )
    .unwrap()
}

fn count(ctx: &[String], text: &str) -> usize {
    ctx.iter().filter(|t| *t == text).count()
}

#[test]
fn two_writers_interleave_and_every_message_is_stored_once_in_order() {
    let mut store = Store::default();
    let mut a = Writer::new("a");
    a.s.append(vec![user("a1")]);
    a.commit(&mut store);
    let mut b = Writer::open(&store, "b");
    a.s.append(vec![user("a2")]);
    b.s.append(vec![user("b1"), user("b2")]);
    b.commit(&mut store);
    a.commit(&mut store);
    b.s.append(vec![user("b3")]);
    b.commit(&mut store);
    a.commit(&mut store);
    let stored = Session::from_jsonl(&store.all(), config(), &import).unwrap();
    assert_eq!(context(&stored), ["a1", "b1", "b2", "a2", "b3"]);
    assert_eq!(context(&a.s), context(&stored));
    assert_eq!(context(&b.s), context(&stored));
    // Ids never clash: each writer tags its own.
    assert!(store
        .lines
        .iter()
        .all(|(id, _)| id.ends_with(".a") || id.ends_with(".b")));
}

#[test]
fn messages_appended_by_another_writer_during_a_compaction_stay_after_the_summary() {
    let mut store = Store::default();
    let (mut a, mut b) = two_writers(&mut store, 10);
    compact(&mut a.s, 3, "sum").unwrap();
    b.s.append(vec![user("b1")]);
    b.commit(&mut store);
    assert!(a.commit(&mut store).is_empty());
    let loaded = Session::from_jsonl(&store.load(), config(), &import).unwrap();
    let ctx = context(&loaded);
    assert_eq!(ctx[1..], ["m7", "m8", "m9", "b1"]);
    assert_eq!(context(&a.s), ctx);
    b.commit(&mut store);
    assert_eq!(context(&b.s), ctx);
    // The load read the live lines only: not the seven summarized messages.
    assert!(store.load().lines().count() < store.all().lines().count() - 6);
}

#[test]
fn of_two_compactions_the_later_commit_is_dropped_and_no_message_is_lost() {
    let mut store = Store::default();
    let (mut a, mut b) = two_writers(&mut store, 10);
    compact(&mut a.s, 3, "by-a").unwrap();
    compact(&mut b.s, 5, "by-b").unwrap();
    b.s.append(vec![user("after-b")]);
    b.commit(&mut store);
    a.s.append(vec![user("after-a")]);
    assert_eq!(a.commit(&mut store), ["compaction"]);
    let all = Session::from_jsonl(&store.all(), config(), &import).unwrap();
    let ctx = context(&all);
    assert_eq!(
        ctx[1..],
        ["m5", "m6", "m7", "m8", "m9", "after-b", "after-a"]
    );
    assert_eq!(context(&a.s), ctx);
    assert_eq!(store.all().matches("\"type\":\"compaction\"").count(), 1);
}

#[test]
fn a_pending_compaction_over_a_pending_message_is_dropped_when_others_came_first() {
    let mut store = Store::default();
    let mut a = Writer::new("a");
    a.s.append(vec![user("m0"), user("m1")]);
    a.commit(&mut store);
    let mut b = Writer::open(&store, "b");
    a.s.append(vec![user("m2"), user("m3"), user("m4")]);
    compact(&mut a.s, 1, "sum").unwrap();
    b.s.append(vec![user("b1")]);
    b.commit(&mut store);
    assert_eq!(a.commit(&mut store), ["compaction"]);
    let ctx = context(&Session::from_jsonl(&store.all(), config(), &import).unwrap());
    assert_eq!(ctx, ["m0", "m1", "b1", "m2", "m3", "m4"]);
}

#[test]
fn a_summary_being_written_over_unstored_entries_conflicts_after_a_reordering_merge() {
    let mut store = Store::default();
    let mut a = Writer::new("a");
    a.s.append(vec![user("m0"), user("m1")]);
    a.commit(&mut store);
    let mut b = Writer::open(&store, "b");
    a.s.append(vec![user("m2"), user("m3")]);
    let snapshot = a.s.snapshot();
    b.s.append(vec![user("b1")]);
    b.commit(&mut store);
    a.commit(&mut store);
    let p = plan_keep(&snapshot.messages, &snapshot.tokens, 1);
    let outcome = Outcome {
        summary: Some("s".into()),
        tokens_after: 1,
        round: 1,
        digest: Value::Null,
        state: None,
        timestamp: None,
    };
    let err = a.s.commit(&snapshot, &p, &outcome).unwrap_err();
    assert_eq!(err.code, ErrorCode::Conflict);
    // A snapshot of stored entries only commits across the same merge.
    let mut c = Writer::open(&store, "c");
    let snapshot = c.s.snapshot();
    a.s.append(vec![user("a9")]);
    a.commit(&mut store);
    c.s.append(vec![user("c1")]);
    c.commit(&mut store);
    let p = plan_keep(&snapshot.messages, &snapshot.tokens, 1);
    c.s.commit(&snapshot, &p, &outcome).unwrap();
    c.commit(&mut store);
    let ctx = context(&Session::from_jsonl(&store.load(), config(), &import).unwrap());
    assert_eq!(ctx[1..], ["m3", "a9", "c1"]);
}

#[test]
fn entries_the_store_already_holds_are_not_written_twice() {
    let mut store = Store::default();
    let mut a = Writer::new("a");
    a.s.append(vec![user("m0")]);
    a.commit(&mut store);
    a.s.append(vec![user("m1"), user("m2")]);
    // The append reached the store, but its answer was lost: the writer still holds the lines
    // as pending and its version is the old one.
    let pending: Vec<(String, String)> =
        a.s.pending()
            .entries
            .iter()
            .map(|e| (e.id.clone(), e.line().into_owned()))
            .collect();
    store.lines.extend(pending);
    a.s.append(vec![user("m3")]);
    a.commit(&mut store);
    let ctx = context(&Session::from_jsonl(&store.all(), config(), &import).unwrap());
    assert_eq!(ctx, ["m0", "m1", "m2", "m3"]);
    assert_eq!(context(&a.s), ctx);
}

#[test]
fn a_store_created_by_another_writer_lends_its_header() {
    let mut store = Store::default();
    let mut a = Writer::new("a");
    let mut b = Writer::new("b");
    a.s.append(vec![user("a1")]);
    b.s.append(vec![user("b1")]);
    a.commit(&mut store);
    b.commit(&mut store);
    assert_eq!(b.s.header().line, *store.header.as_ref().unwrap());
    let mut other = Session::new(config(), "conv".into(), "openai".into());
    let header = store.header.clone().unwrap();
    let err = other.merge_remote(&header, &[], &import).unwrap_err();
    assert_eq!(err.code, ErrorCode::Conflict);
}

/// The live set rebuilds what the whole log does.
fn assert_live_equals_whole(store: &Store) {
    let whole = Session::from_jsonl(&store.all(), config(), &import).unwrap();
    let live = Session::from_jsonl(&store.load(), config(), &import).unwrap();
    assert_eq!(context(&live), context(&whole));
    assert_eq!(live.tokens(), whole.tokens());
    assert_eq!(live.notes(), whole.notes());
    assert_eq!(live.calibration(), whole.calibration());
    assert_eq!(live.cache_points(), whole.cache_points());
}

#[test]
fn the_live_set_carries_system_messages_notes_calibration_and_prunes() {
    let mut store = Store::default();
    let mut a = Writer::new("a");
    a.s.append(vec![system("rules"), user("u0")]);
    a.s.append(tool_pair(0));
    a.s.record_usage(Usage {
        input: 900,
        output: 20,
        cache_read: 0,
        cache_write: 0,
    });
    for i in 0..17 {
        a.s.add_note(format!("note {i}"));
    }
    a.s.compact_notes("ten notes".into(), 10);
    a.s.append(tool_pair(1));
    a.s.record_usage(Usage {
        input: 1400,
        output: 20,
        cache_read: 0,
        cache_write: 0,
    });
    for i in 2..12 {
        a.s.append(vec![user(&format!("u{i}"))]);
        a.s.append(tool_pair(i));
    }
    a.commit(&mut store);
    // Hide the output of a tool result that the compaction keeps.
    let kept = a.s.messages().len() - 1;
    let action = PruneAction {
        message: kept,
        part: 0,
        kind: PruneKind::ReplaceOutput {
            placeholder: "[hidden]".into(),
        },
        tokens_freed: 50,
    };
    a.s.hide(&[action]).unwrap();
    compact(&mut a.s, 4, "sum").unwrap();
    a.commit(&mut store);
    assert_live_equals_whole(&store);
    let live = &store.live;
    assert!(live.from.is_some());
    assert!(!live.carry.is_empty());
    // Later notes and a second memory-block summary after the compaction.
    for i in 17..30 {
        a.s.add_note(format!("note {i}"));
    }
    a.s.compact_notes("more".into(), 10);
    a.commit(&mut store);
    assert_live_equals_whole(&store);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Random interleavings of two writers: appends, usage, notes, prunes and compactions. The
    /// stored log holds every message once; each writer converges on the stored context after a
    /// commit; the live lines rebuild what the whole log does.
    #[test]
    fn writers_converge_and_the_live_set_is_exact(ops in prop::collection::vec((0u8..2, 0u8..8, 1usize..6), 1..40)) {
        let mut store = Store::default();
        let mut w = [Writer::new("a"), Writer::new("b")];
        w[0].s.append(vec![system("rules")]);
        w[0].commit(&mut store);
        w[1] = Writer::open(&store, "b");
        let mut sent = 0usize;
        for (who, op, n) in ops {
            let x = &mut w[who as usize];
            match op {
                0 | 1 => {
                    for _ in 0..n {
                        x.s.append(vec![user(&format!("m{sent}"))]);
                        sent += 1;
                    }
                }
                2 => { x.s.append(tool_pair(sent)); sent += 1; }
                3 => { x.s.record_usage(Usage { input: 100 * n as u64, output: 5, cache_read: 0, cache_write: 0 }); }
                4 => {
                    x.s.add_note(format!("n{sent}"));
                    if x.s.notes().notes.len() >= 4 { x.s.compact_notes("notes".into(), 3); }
                }
                5 => { let _ = compact(&mut x.s, n, "sum"); }
                6 => { x.commit(&mut store); }
                _ => {
                    let len = x.s.messages().len();
                    let action = PruneAction { message: len.saturating_sub(n), part: 0, kind: PruneKind::ReplaceOutput { placeholder: "[h]".into() }, tokens_freed: 1 };
                    x.s.hide(&[action]);
                }
            }
        }
        w[0].commit(&mut store);
        w[1].commit(&mut store);
        w[0].commit(&mut store);
        let whole = Session::from_jsonl(&store.all(), config(), &import).unwrap();
        let ctx = context(&whole);
        prop_assert_eq!(&context(&w[0].s), &ctx);
        prop_assert_eq!(&context(&w[1].s), &ctx);
        // Every message appended is in the log exactly once.
        let log = store.all();
        for i in 0..sent {
            let text = format!("\"m{i}\"");
            let call = format!("\"c{i}\"");
            prop_assert!(log.matches(&text).count() + log.matches(&call).count() >= 1);
            let label = format!("m{}", i);
            prop_assert!(count(&ctx, &label) <= 1);
        }
        let ids: std::collections::HashSet<&String> = store.lines.iter().map(|(id, _)| id).collect();
        prop_assert_eq!(ids.len(), store.lines.len());
        assert_live_equals_whole(&store);
    }
}
