#![cfg(not(target_arch = "wasm32"))]
//! A session made without a format (docs/session.md, "The message format"): plain text is taken
//! as `ai-sdk` provisionally; the first messages that show their format decide it, the messages
//! logged so far are read again under it and must read the same, and the header then names it;
//! once the header was given out, another format is refused and nothing changes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use context_compaction::core::error::ErrorCode;
use context_compaction::core::message::Message;
use context_compaction::core::options::parse;
use context_compaction::core::session::{Config, Session};
use context_compaction::formats::detect::detect_messages_decided;
use context_compaction::formats::{message_importer, Format};
use serde_json::{json, Value};

fn session() -> Session {
    let options = parse(&json!({"contextWindow": 100_000})).unwrap();
    let config = Config::heuristic(options.settings);
    let mut s = Session::new(config, "s".into(), "ai-sdk".into());
    s.set_provisional();
    s
}

fn import(format: Format, values: &[Value]) -> Vec<Message> {
    let import = message_importer(format);
    values
        .iter()
        .enumerate()
        .map(|(i, v)| import(v, &format!("messages[{i}]")).unwrap())
        .collect()
}

fn plain() -> Vec<Value> {
    vec![
        json!({"role": "user", "content": "read src/lib.rs"}),
        json!({"role": "assistant", "content": "Reading it."}),
    ]
}

fn anthropic_tools() -> Vec<Value> {
    vec![
        json!({"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "src/lib.rs"}}]}),
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "pub fn f() {}"}]}),
    ]
}

#[test]
fn plain_text_is_undecided_and_a_marker_decides() {
    let d = detect_messages_decided(&plain().iter().collect::<Vec<_>>()).unwrap();
    assert_eq!((d.format, d.decided, d.at), (Format::AiSdk, false, None));
    let mixed: Vec<Value> = plain().into_iter().chain(anthropic_tools()).collect();
    let d = detect_messages_decided(&mixed.iter().collect::<Vec<_>>()).unwrap();
    assert_eq!(
        (d.format, d.decided, d.at),
        (Format::Anthropic, true, Some(2))
    );
}

#[test]
fn the_first_marked_append_decides_and_renames_the_header() {
    let mut s = session();
    s.append(import(Format::AiSdk, &plain()));
    assert!(!s.format_decided());
    let before: Vec<Message> = s.messages().into_iter().cloned().collect();
    s.decide_format("anthropic", 0, &message_importer(Format::Anthropic))
        .unwrap();
    assert!(s.format_decided());
    assert_eq!(s.header().format, "anthropic");
    assert!(s
        .to_jsonl()
        .starts_with(r#"{"type":"session","version":1,"id":"s","format":"anthropic"}"#));
    // The messages logged so far read the same; the new ones are read as Anthropic's.
    s.append(import(Format::Anthropic, &anthropic_tools()));
    let after: Vec<Message> = s.messages().into_iter().cloned().collect();
    assert_eq!(&after[..2], &before[..]);
    assert_eq!(after.len(), 4);
    // The log reads back under the header's format.
    let again = Session::from_jsonl(
        &s.to_jsonl(),
        s.config().clone(),
        &message_importer(Format::Anthropic),
    )
    .unwrap();
    assert_eq!(again.messages().len(), 4);
}

#[test]
fn the_same_format_only_decides() {
    let mut s = session();
    s.append(import(Format::AiSdk, &plain()));
    let _ = s.to_jsonl();
    s.decide_format("ai-sdk", 0, &message_importer(Format::AiSdk))
        .unwrap();
    assert!(s.format_decided());
    // Decided: another format is refused as any session refuses one.
    let e = s
        .decide_format("anthropic", 0, &message_importer(Format::Anthropic))
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidInput);
}

#[test]
fn once_the_header_was_given_out_another_format_is_refused() {
    for give_out in [0, 1, 2] {
        let mut s = session();
        s.append(import(Format::AiSdk, &plain()));
        match give_out {
            0 => drop(s.to_jsonl()),
            1 => drop(s.take_new_lines()),
            _ => drop(s.pending()),
        }
        let log = s.to_jsonl();
        let e = s
            .decide_format("anthropic", 3, &message_importer(Format::Anthropic))
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidInput);
        assert_eq!(e.path.as_deref(), Some("messages[3]"));
        assert!(e.message.contains("pass `format`"), "{}", e.message);
        // Nothing changed.
        assert!(!s.format_decided());
        assert_eq!(s.to_jsonl(), log);
    }
}

#[test]
fn a_logged_message_that_reads_differently_refuses_the_decision() {
    // An AI SDK tool call: Anthropic's importer does not read its `tool-call` part as one.
    let mut s = session();
    s.append(import(
        Format::AiSdk,
        &[json!({"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "c", "toolName": "t", "input": {}}]})],
    ));
    let log = s.to_jsonl();
    let mut fresh = session();
    fresh.append(import(
        Format::AiSdk,
        &[json!({"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "c", "toolName": "t", "input": {}}]})],
    ));
    let e = fresh
        .decide_format("anthropic", 0, &message_importer(Format::Anthropic))
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidInput);
    assert!(e.message.contains("entry 0"), "{}", e.message);
    assert_eq!(fresh.header().format, "ai-sdk");
    assert!(!fresh.format_decided());
    // The session whose header was given out refuses before reading anything.
    assert!(s
        .decide_format("anthropic", 0, &message_importer(Format::Anthropic))
        .is_err());
    assert_eq!(s.to_jsonl(), log);
}
