//! Seed 000's worked examples, literally, on the stateful session: a single compaction, multiple
//! compactions (never crossing the previous boundary, the new summary folding in the previous one),
//! new messages after a compaction, branching after and before a compaction; plus the log's
//! byte-identical round trip and the commit rule.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

#[path = "common/session_config.rs"]
mod session_config;

use context_compaction::core::error::ErrorCode;
use context_compaction::core::message::{Message, Part};
use context_compaction::core::plan::{plan, Plan, PlanInput, PlanOptions, Strategy};
use context_compaction::core::session::{Config, Outcome, Session, Snapshot};
use context_compaction::core::summary::Recognizer;
use context_compaction::formats::pi::import_message;
use serde_json::{json, Value};
use session_config::session_config;

fn config() -> Config {
    session_config(&json!({"contextWindow": 100_000}))
}

/// pi messages from seed 000's notation: `u4` user, `a4` assistant (one call per `t4` right after
/// it), `t4` a tool result.
fn messages(items: &[&str]) -> Vec<Message> {
    let mut out = Vec::new();
    let mut calls: Vec<String> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let value: Value = if item.starts_with('u') {
            json!({"role": "user", "content": [{"type": "text", "text": item}]})
        } else if item.starts_with('a') {
            let results = items[i + 1..]
                .iter()
                .take_while(|x| x.starts_with('t'))
                .count();
            calls = (0..results).map(|k| format!("{item}-{i}-{k}")).collect();
            let mut content = vec![json!({"type": "text", "text": item})];
            content.extend(
                calls.iter().map(
                    |id| json!({"type": "toolCall", "id": id, "name": "read", "arguments": {}}),
                ),
            );
            json!({"role": "assistant", "content": content})
        } else {
            let id = calls.remove(0);
            json!({"role": "toolResult", "toolCallId": id, "toolName": "read", "content": [{"type": "text", "text": item}], "isError": false})
        };
        out.push(import_message(&value, "m").unwrap());
    }
    out
}

fn label(m: &Message) -> String {
    let text = m
        .parts
        .iter()
        .find_map(|p| match p {
            Part::Text { text } => Some(text.clone()),
            Part::ToolResult { output, .. } => output.iter().find_map(|o| match o {
                Part::Text { text } => Some(text.clone()),
                _ => None,
            }),
            _ => None,
        })
        .unwrap_or_default();
    if m.summary {
        let body = Recognizer::standard().body(&text);
        format!("S:{}", body.rsplit('\n').next().unwrap_or_default())
    } else {
        text
    }
}

fn context(s: &Session) -> Vec<String> {
    s.messages().into_iter().map(label).collect()
}

fn keep_last(snapshot: &Snapshot, keep: usize) -> Plan {
    let strategy = if keep == 0 {
        Strategy::TokenBudget { max: 0 }
    } else {
        Strategy::LastMessages { keep }
    };
    let cost = |_: &Part| 1;
    plan(
        &PlanInput {
            messages: &snapshot.messages,
            tokens: &snapshot.tokens,
            part_cost: &cost,
        },
        &PlanOptions {
            strategy,
            ..config().settings.plan
        },
    )
    .unwrap()
}

/// Compacts keeping the last `keep` messages, with the summary `text`.
fn compact(s: &mut Session, keep: usize, text: &str) -> String {
    let snapshot = s.snapshot();
    let p = keep_last(&snapshot, keep);
    let outcome = Outcome {
        summary: Some(text.to_string()),
        tokens_after: 10,
        round: snapshot.round(
            &p,
            &context_compaction::core::summary::Recognizer::with(&s.config().settings.summary),
        ),
        digest: Value::Null,
        state: None,
        timestamp: None,
    };
    s.commit(&snapshot, &p, &outcome).unwrap()
}

fn import(v: &Value, path: &str) -> context_compaction::core::error::Result<Message> {
    import_message(v, path)
}

const FIRST: [&str; 17] = [
    "u1", "a1", "t1", "t1", "a1", "u2", "a2", "u3", "a3", "t3", "a3", "t3", "a3", "u4", "a4", "t4",
    "a4",
];

#[test]
fn single_compaction_keeps_the_last_four_and_new_messages_follow() {
    let mut s = Session::new(config(), "s".into(), "pi".into());
    s.append(messages(&FIRST));
    compact(&mut s, 4, "one");
    assert_eq!(context(&s), ["S:one", "u4", "a4", "t4", "a4"]);
    s.append(messages(&["u5", "a5"]));
    assert_eq!(context(&s), ["S:one", "u4", "a4", "t4", "a4", "u5", "a5"]);
    // The log is append-only: every message is still there, and the compaction entry names the
    // first kept message and its numbers.
    let log = s.to_jsonl();
    assert_eq!(
        log.lines()
            .filter(|l| l.contains("\"type\":\"message\""))
            .count(),
        19
    );
    let compaction: Value = serde_json::from_str(
        log.lines()
            .find(|l| l.contains("\"type\":\"compaction\""))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(compaction["firstKeptEntryId"], "e14");
    assert_eq!(compaction["round"], 1);
    for key in [
        "summary",
        "tokensBefore",
        "tokensAfter",
        "coveredTurnIds",
        "splitTurnId",
        "digest",
    ] {
        assert!(compaction.get(key).is_some(), "{key} missing");
    }
    assert_eq!(compaction["coveredTurnIds"], json!(["e1", "e6", "e8"]));
}

#[test]
fn multiple_compactions_never_cross_the_previous_boundary() {
    let mut s = Session::new(config(), "s".into(), "pi".into());
    s.append(messages(&FIRST));
    compact(&mut s, 4, "one");
    s.append(messages(&["u5", "a5", "u6", "a6", "t6", "a6", "u7", "a7"]));
    // The seed says keepLastMessages=3 but shows two kept messages; the shown context is
    // reproduced (see the note in tests/seed000_loader.rs).
    let snapshot = s.snapshot();
    // The second compaction plans over the current context: summary 1 first, nothing before it.
    assert_eq!(label(&snapshot.messages[0]), "S:one");
    let p = keep_last(&snapshot, 2);
    assert_eq!(p.previous_summary, Some(0));
    assert_eq!(
        snapshot.round(
            &p,
            &context_compaction::core::summary::Recognizer::with(&s.config().settings.summary)
        ),
        2
    );
    compact(&mut s, 2, "two");
    assert_eq!(context(&s), ["S:two", "u7", "a7"]);
    let last: Value = serde_json::from_str(s.to_jsonl().lines().last().unwrap()).unwrap();
    assert_eq!(last["round"], 2);
    // Summary 2 stands for the turns of summary 1 as well.
    assert_eq!(
        last["coveredTurnIds"],
        json!(["e1", "e6", "e8", "e14", "e19", "e21"])
    );
}

#[test]
fn branching_after_and_before_a_compaction() {
    let mut s = Session::new(config(), "s".into(), "pi".into());
    s.append(messages(&["u1", "a1", "u2", "a2"]));
    compact(&mut s, 2, "early");
    let ids = s.append(messages(&["u3", "a3", "u4", "a4"]));
    assert_eq!(context(&s), ["S:early", "u2", "a2", "u3", "a3", "u4", "a4"]);

    // After: the branch keeps the compaction.
    let after = s.branch(&ids[0], "b1".into()).unwrap();
    assert_eq!(context(&after), ["S:early", "u2", "a2", "u3"]);
    // Before: the branch undoes it.
    let before = s.branch("e3", "b2".into()).unwrap();
    assert_eq!(context(&before), ["u1", "a1", "u2"]);
    // The original is untouched, and the branch's log starts with the copied prefix.
    assert_eq!(context(&s).len(), 7);
    let log = before.to_jsonl();
    assert!(log.lines().next().unwrap().contains("\"branchedFrom\""));
    assert!(log.lines().last().unwrap().contains("\"type\":\"branch\""));
    assert!(s.branch("nope", "b3".into()).is_err());
}

#[test]
fn the_log_round_trips_byte_for_byte() {
    let mut s = Session::new(config(), "s".into(), "pi".into());
    s.append(messages(&FIRST));
    compact(&mut s, 4, "one \"quoted\"\nline two ✓");
    s.append(messages(&["u5", "a5"]));
    let text = s.to_jsonl();
    let loaded = Session::from_jsonl(&text, config(), &import).unwrap();
    assert_eq!(loaded.to_jsonl(), text);
    assert_eq!(context(&loaded), context(&s));
    assert_eq!(loaded.tokens(), s.tokens());
    // Appending to the loaded log continues its ids.
    let mut loaded = loaded;
    let ids = loaded.append(messages(&["u6"]));
    assert!(s.position(&ids[0]).is_none());
}

#[test]
fn incremental_lines_add_up_to_the_whole_log() {
    let mut s = Session::new(config(), "s".into(), "pi".into());
    let mut file = String::new();
    s.append(messages(&["u1", "a1", "u2", "a2", "u3", "a3"]));
    file.push_str(&s.take_new_lines());
    compact(&mut s, 2, "sum");
    file.push_str(&s.take_new_lines());
    assert_eq!(s.take_new_lines(), "");
    s.append(messages(&["u4"]));
    file.push_str(&s.take_new_lines());
    assert_eq!(file, s.to_jsonl());
}

#[test]
fn appends_during_a_compaction_stay_after_the_summary_and_other_changes_conflict() {
    let mut s = Session::new(config(), "s".into(), "pi".into());
    s.append(messages(&["u1", "a1", "u2", "a2", "u3", "a3"]));
    let snapshot = s.snapshot();
    let p = keep_last(&snapshot, 2);
    // The conversation goes on while the summary is written.
    s.append(messages(&["u4", "a4"]));
    let outcome = Outcome {
        summary: Some("sum".into()),
        tokens_after: 5,
        round: 1,
        digest: Value::Null,
        state: None,
        timestamp: None,
    };
    s.commit(&snapshot, &p, &outcome).unwrap();
    assert_eq!(context(&s), ["S:sum", "u3", "a3", "u4", "a4"]);

    // A second compaction planned from the same old snapshot now conflicts: nothing changes.
    let before = s.to_jsonl();
    let err = s.commit(&snapshot, &p, &outcome).unwrap_err();
    assert_eq!(err.code, ErrorCode::Conflict);
    assert_eq!(s.to_jsonl(), before);
}

#[test]
fn a_compaction_that_keeps_nothing_keeps_what_was_appended_meanwhile() {
    let mut s = Session::new(config(), "s".into(), "pi".into());
    s.append(messages(&["u1", "a1", "u2", "a2"]));
    let snapshot = s.snapshot();
    let p = keep_last(&snapshot, 0);
    s.append(messages(&["u3"]));
    let outcome = Outcome {
        summary: Some("all".into()),
        tokens_after: 5,
        round: 1,
        digest: Value::Null,
        state: None,
        timestamp: None,
    };
    s.commit(&snapshot, &p, &outcome).unwrap();
    assert_eq!(context(&s), ["S:all", "u3"]);
}

#[test]
fn check_is_incremental_and_usage_calibrates() {
    let mut s = Session::new(config(), "s".into(), "pi".into());
    s.append(messages(&["u1", "a1"]));
    let estimated = s.tokens();
    assert!(estimated > 0);
    s.record_usage(context_compaction::core::estimate::Usage {
        input: 1000,
        output: 50,
        cache_read: 0,
        cache_write: 0,
    });
    assert_eq!(s.tokens(), 1050);
    s.append(messages(&["u2"]));
    let after = s.tokens();
    assert!(after > 1050);
    // The same after a reload: the usage entry is in the log.
    let loaded = Session::from_jsonl(&s.to_jsonl(), config(), &import).unwrap();
    assert_eq!(loaded.tokens(), after);
    assert_eq!(
        loaded.check(false).should_compact,
        s.check(false).should_compact
    );
}

#[test]
fn branching_before_the_first_entry_starts_empty() {
    // pi can fork before its first message; the session branches at `None`.
    let mut s = Session::new(config(), "s".into(), "pi".into());
    s.append(messages(&["u1", "a1", "u2", "a2"]));
    compact(&mut s, 2, "early");
    let mut empty = s.branch_at(None, "b0".into()).unwrap();
    assert!(context(&empty).is_empty());
    let log = empty.to_jsonl();
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0].contains("\"branchedFrom\":{\"session\":\"s\",\"entry\":null}"));
    let branch: Value = serde_json::from_str(lines[1]).unwrap();
    assert_eq!(branch["type"], "branch");
    assert_eq!(branch["fromEntryId"], Value::Null);
    assert_eq!(branch["parentId"], Value::Null);
    // The branch goes on like any session and reloads byte for byte.
    empty.append(messages(&["u9"]));
    assert_eq!(context(&empty), ["u9"]);
    let text = empty.to_jsonl();
    let loaded = Session::from_jsonl(&text, config(), &import).unwrap();
    assert_eq!(loaded.to_jsonl(), text);
    assert_eq!(context(&loaded), ["u9"]);
    assert_eq!(context(&s).len(), 3);
}

/// Plans with the `pi-plan` preset (seed 000) keeping the last `keep` messages, as a session's
/// compaction does (`prepare_floored` with the snapshot's floor), and commits at `now`.
fn compact_pi_plan(s: &mut Session, keep: usize, text: &str, now: i64) -> Value {
    use context_compaction::core::prepare::{prepare_floored, History};
    let mut settings = s.config().settings.clone();
    settings.plan.strategy = Strategy::LastMessages { keep };
    let snapshot = s.snapshot();
    let cost = |_: &Part| 1;
    let prepared = prepare_floored(
        &settings,
        &History {
            messages: &snapshot.messages,
            tokens: &snapshot.tokens,
            total: snapshot.total,
            part_cost: &cost,
        },
        snapshot.floor,
        true,
    )
    .unwrap();
    let recognizer = Recognizer::with(&settings.summary);
    let outcome = Outcome {
        summary: Some(text.to_string()),
        tokens_after: 10,
        round: snapshot.round(&prepared.plan, &recognizer),
        digest: Value::Null,
        state: None,
        timestamp: Some(now),
    };
    s.commit(&snapshot, &prepared.plan, &outcome).unwrap();
    serde_json::from_str(s.to_jsonl().lines().last().unwrap()).unwrap()
}

#[test]
fn compaction_entries_carry_timestamp_and_keep_last_messages_and_never_count_across_the_boundary() {
    let config = session_config(&json!({"contextWindow": 100_000, "preset": "pi-plan"}));
    assert!(config.settings.keep_after_compaction);
    let mut s = Session::new(config, "s".into(), "pi".into());
    s.append(messages(&FIRST));
    // Seed 000: `{"type": "compaction", "timestamp": "...", "summary": "...", "keepLastMessages": 4}`.
    let first = compact_pi_plan(&mut s, 4, "one", 1_765_233_665_306);
    assert_eq!(first["timestamp"], "2025-12-08T22:41:05.306Z");
    assert_eq!(first["keepLastMessages"], 4);
    assert_eq!(context(&s), ["S:one", "u4", "a4", "t4", "a4"]);
    s.append(messages(&["u5", "a5", "u6", "a6", "t6", "a6", "u7", "a7"]));
    // "When calculating keepLastMessages for COMPACTION 2, we only count messages between
    // COMPACTION 1 and COMPACTION 2 (cannot cross the boundary)": keeping the last 12 messages
    // of the context would reach back to u4, which the first compaction kept; the tail starts at
    // u5 instead, and u4..a4 are folded into the new summary with summary 1.
    let second = compact_pi_plan(&mut s, 12, "two", 1_765_233_700_000);
    assert_eq!(second["keepLastMessages"], 8);
    assert_eq!(second["round"], 2);
    assert_eq!(second["timestamp"], "2025-12-08T22:41:40.000Z");
    assert_eq!(
        context(&s),
        ["S:two", "u5", "a5", "u6", "a6", "t6", "a6", "u7", "a7"]
    );
    // The fields survive a reload byte for byte.
    let text = s.to_jsonl();
    let loaded = Session::from_jsonl(&text, s.config().clone(), &import).unwrap();
    assert_eq!(loaded.to_jsonl(), text);
    // Presets whose source keeps the last messages whatever came before reach back as before.
    let mut other = Session::new(config_with("pi-plan", false), "o".into(), "pi".into());
    other.append(messages(&FIRST));
    compact_pi_plan(&mut other, 4, "one", 0);
    other.append(messages(&["u5", "a5", "u6", "a6", "t6", "a6", "u7", "a7"]));
    let again = compact_pi_plan(&mut other, 12, "two", 0);
    assert_eq!(again["keepLastMessages"], 12);
}

fn config_with(preset: &str, keep_after_compaction: bool) -> Config {
    let mut c = session_config(&json!({"contextWindow": 100_000, "preset": preset}));
    c.settings.keep_after_compaction = keep_after_compaction;
    c
}
