#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
//! `JsonSource`, the history `trimMessages` reads from the caller's array one message at a time:
//! trimming through it keeps what trimming the imported array keeps, reads only the messages the
//! rules ask for, and a message that cannot be read or imported fails the trim naming its path.

use std::cell::RefCell;

use context_compaction::core::error::{Error, ErrorCode};
use context_compaction::core::estimate::{Counter, Estimator};
use context_compaction::core::message::{Message, Part};
use context_compaction::core::plain_data::id_hash;
use context_compaction::core::trim::{trim_estimated, trim_history, JsonSource, TrimOptions};
use context_compaction::formats::{message_importer, Codec, Format};
use serde_json::{json, Value};

/// An AI SDK history of `turns` tool rounds, each a user question, a call and its result.
fn history(turns: usize) -> Vec<Value> {
    let mut out = vec![json!({ "role": "system", "content": "be brief" })];
    for t in 0..turns {
        let id = format!("call_{t}");
        out.push(json!({ "role": "user", "content": format!("question {t} about the weather") }));
        out.push(json!({ "role": "assistant", "content": [
            { "type": "tool-call", "toolCallId": id, "toolName": "weather", "input": { "city": "Oslo" } }
        ]}));
        out.push(json!({ "role": "tool", "content": [
            { "type": "tool-result", "toolCallId": id, "toolName": "weather",
              "output": { "type": "text", "value": format!("sunny, {t} degrees") } }
        ]}));
    }
    out
}

/// The `[hash, index]` index of the tool ids of `messages`, sorted, as the JS walk builds it.
fn id_index(messages: &[Message]) -> Vec<u32> {
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        for p in &m.parts {
            if let Part::ToolCall { id, .. } | Part::ToolResult { id, .. } = p {
                pairs.push((id_hash(id), i as u32));
            }
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    pairs.into_iter().flat_map(|(h, i)| [h, i]).collect()
}

#[test]
fn keeps_what_the_whole_array_keeps_reading_only_the_tail() {
    let json = history(40);
    let messages = Format::AiSdk.import(&Value::Array(json.clone())).unwrap();
    let ids = id_index(&messages);
    let estimator = Estimator::new(Counter::Heuristic);
    let reads = RefCell::new(Vec::new());
    let source = JsonSource {
        len: json.len(),
        read: |i: usize, _path: &str| {
            reads.borrow_mut().push(i);
            Ok(json[i].clone())
        },
        import: message_importer(Format::AiSdk),
        estimator: &estimator,
        ids: &ids,
    };
    let options = TrimOptions::new(120);
    let part_cost = |p: &Part| estimator.part_tokens(p);
    let lazy = trim_history(&source, &part_cost, &options).unwrap();
    let whole = trim_estimated(&messages, &estimator, &options).unwrap();
    assert_eq!(lazy.trimmed, whole);
    assert!(!whole.kept.is_empty());
    let read = reads.borrow().len();
    assert!(
        read < json.len() / 2,
        "{read} of {} messages read",
        json.len()
    );
}

#[test]
fn a_message_that_cannot_be_read_or_imported_names_its_path() {
    let json = history(3);
    let messages = Format::AiSdk.import(&Value::Array(json.clone())).unwrap();
    let ids = id_index(&messages);
    let estimator = Estimator::new(Counter::Heuristic);
    let part_cost = |p: &Part| estimator.part_tokens(p);
    let last = json.len() - 1;
    let unreadable = JsonSource {
        len: json.len(),
        read: |i: usize, path: &str| match i == last {
            true => Err(Error::invalid_input(path, "reading it threw")),
            false => Ok(json[i].clone()),
        },
        import: message_importer(Format::AiSdk),
        estimator: &estimator,
        ids: &ids,
    };
    let e = trim_history(&unreadable, &part_cost, &TrimOptions::new(1000)).unwrap_err();
    assert_eq!(
        e.path.as_deref(),
        Some(format!("messages[{last}]").as_str())
    );
    let not_a_message = JsonSource {
        len: json.len(),
        read: |i: usize, _path: &str| Ok(if i == last { json!(7) } else { json[i].clone() }),
        import: message_importer(Format::AiSdk),
        estimator: &estimator,
        ids: &ids,
    };
    let e = trim_history(&not_a_message, &part_cost, &TrimOptions::new(1000)).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidInput);
    assert!(e
        .path
        .as_deref()
        .unwrap_or("")
        .starts_with(&format!("messages[{last}]")));
}
