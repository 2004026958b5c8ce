#![cfg(not(target_arch = "wasm32"))]
//! Copying a session's log out as it grows (core::session::copy): only new lines, nothing when
//! nothing changed, a byte limit that splits a copy, the bookkeeping (flushed / stored entries)
//! that a rebuilt session needs, and the lines a merge of other writers' entries rewrote. The copy
//! here is rebuilt the way the trap guard (js/guard.mjs) rebuilds it, and read back.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

#[path = "common/session_config.rs"]
mod session_config;

use context_compaction::core::message::Message;
use context_compaction::core::session::{Config, LogCopy, Session};
use context_compaction::formats::ai_sdk::import_message;
use serde_json::{json, Value};
use session_config::session_config;

fn config() -> Config {
    session_config(&json!({"contextWindow": 100_000}))
}

fn import(v: &Value, path: &str) -> context_compaction::core::error::Result<Message> {
    import_message(v, path)
}

fn user(text: &str) -> Message {
    import(&json!({"role": "user", "content": text}), "m").unwrap()
}

/// The guard's copy: the header and the lines, rebuilt from each `LogCopy`.
#[derive(Default)]
struct Copy {
    header: String,
    lines: Vec<String>,
}

impl Copy {
    fn apply(&mut self, c: &LogCopy) {
        self.header.clone_from(&c.header);
        self.lines.truncate(c.from);
        self.lines.extend(c.lines.lines().map(str::to_string));
        assert_eq!(self.lines.len(), c.from + c.count);
    }

    /// Copies until up to date; returns the number of copies.
    fn catch_up(&mut self, s: &mut Session, limit: usize) -> usize {
        let mut calls = 0;
        while let Some(c) = s.log_since(limit) {
            self.apply(&c);
            calls += 1;
            if !c.more {
                break;
            }
        }
        calls
    }

    fn text(&self) -> String {
        let mut out = format!("{}\n", self.header);
        for l in &self.lines {
            out.push_str(l);
            out.push('\n');
        }
        out
    }
}

#[test]
fn only_new_lines_are_copied_and_nothing_when_unchanged() {
    let mut s = Session::new(config(), "conv".into(), "ai-sdk".into());
    s.append(vec![user("one"), user("two")]);
    let first = s.log_since(1 << 20).unwrap();
    assert_eq!((first.from, first.count, first.more), (0, 2, false));
    assert_eq!(first.header, s.header().line);
    assert!(s.log_since(1 << 20).is_none());
    s.append(vec![user("three")]);
    let next = s.log_since(1 << 20).unwrap();
    assert_eq!((next.from, next.count), (2, 1));
    assert!(next.lines.contains("three") && !next.lines.contains("two"));
    let mut copy = Copy::default();
    copy.apply(&first);
    copy.apply(&next);
    assert_eq!(copy.text(), s.to_jsonl());
}

#[test]
fn a_byte_limit_splits_a_copy_into_single_lines_at_least() {
    let mut s = Session::new(config(), "conv".into(), "ai-sdk".into());
    s.append((0..10).map(|i| user(&format!("message {i}"))).collect());
    let mut copy = Copy::default();
    assert_eq!(copy.catch_up(&mut s, 1), 10);
    assert_eq!(copy.text(), s.to_jsonl());
    assert!(s.log_since(1).is_none());
    s.append((0..10).map(|i| user(&format!("more {i}"))).collect());
    let line = s.log()[10].line().len() + 1;
    assert_eq!(copy.catch_up(&mut s, 3 * line + 1), 4);
    assert_eq!(copy.text(), s.to_jsonl());
}

#[test]
fn a_flush_changes_only_the_marks_and_a_rebuilt_session_flushes_the_rest() {
    let mut s = Session::new(config(), "conv".into(), "ai-sdk".into());
    s.append(vec![user("one"), user("two")]);
    let mut copy = Copy::default();
    copy.catch_up(&mut s, 1 << 20);
    let flushed = s.take_new_lines();
    let c = s.log_since(1 << 20).unwrap();
    assert_eq!(
        (c.count, c.marks.stored, c.marks.header_stored),
        (0, 2, true)
    );
    assert!(s.log_since(1 << 20).is_none());
    s.append(vec![user("three")]);
    let c = s.log_since(1 << 20).unwrap();
    copy.apply(&c);
    // Rebuilt from the copy with its marks: the next flush gives exactly the line not flushed.
    let mut rebuilt = Session::from_jsonl(&copy.text(), config(), &import).unwrap();
    rebuilt.restore_pending(
        copy.lines.len() - c.marks.stored,
        !c.marks.header_stored,
        c.marks.live_pending,
    );
    let rest = rebuilt.take_new_lines();
    assert_eq!(flushed + &rest, s.to_jsonl());
    assert_eq!(rest, s.take_new_lines());
}

#[test]
fn a_merge_of_other_writers_lines_rewinds_the_copy_to_the_first_pending_entry() {
    let mut a = Session::new(config(), "conv".into(), "ai-sdk".into());
    a.set_id_tag(Some("a".into()));
    a.append(vec![user("m0"), user("m1")]);
    let store_header = a.pending().header.unwrap().to_string();
    a.mark_stored(2, None);
    let mut b = Session::from_jsonl(&a.to_jsonl(), config(), &import).unwrap();
    b.set_id_tag(Some("b".into()));
    b.append(vec![user("from b")]);
    let theirs: Vec<String> = b
        .pending()
        .entries
        .iter()
        .map(|e| e.line().into_owned())
        .collect();
    a.append(vec![user("a pending 1"), user("a pending 2")]);
    let mut copy = Copy::default();
    copy.catch_up(&mut a, 1 << 20);
    let lines: Vec<&str> = theirs.iter().map(String::as_str).collect();
    a.merge_remote(&store_header, &lines, &import).unwrap();
    let c = a.log_since(1 << 20).unwrap();
    assert_eq!((c.from, c.count), (2, 3));
    copy.apply(&c);
    assert_eq!(copy.text(), a.to_jsonl());
}

#[test]
fn a_branch_and_a_loaded_session_copy_their_whole_log() {
    let mut s = Session::new(config(), "conv".into(), "ai-sdk".into());
    s.append(vec![user("one"), user("two"), user("three")]);
    s.log_since(1 << 20);
    let id = s.log()[1].id.clone();
    let mut branch = s.branch(&id, "b".into()).unwrap();
    let mut copy = Copy::default();
    copy.catch_up(&mut branch, 1 << 20);
    assert_eq!(copy.text(), branch.to_jsonl());
    let mut loaded = Session::from_jsonl(&s.to_jsonl(), config(), &import).unwrap();
    let mut copy = Copy::default();
    copy.catch_up(&mut loaded, 1 << 20);
    assert_eq!(copy.text(), s.to_jsonl());
}
