#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
//! Bad input gives INVALID_INPUT with the exact path of the offending field; arbitrary JSON never
//! panics any importer, detector or session importer.

use context_compaction::core::error::ErrorCode;
use context_compaction::formats::claude_code::import_claude_code;
use context_compaction::formats::pi_session::import_pi_session;
use context_compaction::formats::Codec;
use context_compaction::formats::{detect, Format};
use proptest::prelude::*;
use serde_json::{json, Value};

fn path_of(format: Format, input: Value) -> String {
    let err = format.import(&input).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidInput);
    err.path.unwrap()
}

#[test]
fn deep_wrong_types_name_their_path() {
    let ok_user = json!({ "role": "user", "content": "hi" });
    assert_eq!(
        path_of(
            Format::AiSdk,
            json!([ok_user, ok_user, ok_user, { "role": "tool", "content": [
                { "type": "tool-result", "toolCallId": 7, "toolName": "x", "output": { "type": "text", "value": "" } }
            ] }])
        ),
        "messages[3].content[0].toolCallId"
    );
    assert_eq!(
        path_of(
            Format::AiSdk,
            json!([{ "role": "tool", "content": [
                { "type": "tool-result", "toolCallId": "a", "toolName": "x", "output": { "type": "content", "value": [{ "type": "text", "text": false }] } }
            ] }])
        ),
        "messages[0].content[0].output.value[0].text"
    );
    assert_eq!(
        path_of(
            Format::AiSdk,
            json!([{ "role": "tool", "content": [
                { "type": "tool-result", "toolCallId": "a", "toolName": "x", "output": { "type": "bogus" } }
            ] }])
        ),
        "messages[0].content[0].output.type"
    );
    assert_eq!(
        path_of(
            Format::OpenAi,
            json!([ok_user, { "role": "assistant", "content": null, "tool_calls": [
                { "id": "a", "type": "function", "function": { "name": "f", "arguments": "{}" } },
                { "id": "b", "type": "function", "function": { "name": ["f"], "arguments": "{}" } }
            ] }])
        ),
        "messages[1].tool_calls[1].function.name"
    );
    assert_eq!(
        path_of(Format::OpenAi, json!([{ "role": "tool", "content": "x" }])),
        "messages[0].tool_call_id"
    );
    assert_eq!(
        path_of(
            Format::Anthropic,
            json!([ok_user, { "role": "user", "content": [
                { "type": "tool_result", "tool_use_id": "a", "content": [{ "type": "image", "source": { "type": "base64", "data": 1 } }] }
            ] }])
        ),
        "messages[1].content[0].content[0].source.data"
    );
    assert_eq!(
        path_of(
            Format::Pi,
            json!([{ "role": "assistant", "content": [{ "type": "toolCall", "id": "a", "name": "b" }] }])
        ),
        "messages[0].content[0].arguments"
    );
    assert_eq!(
        path_of(
            Format::Pi,
            json!([{ "role": "toolResult", "toolCallId": "a", "content": [], "isError": "no" }])
        ),
        "messages[0].isError"
    );
    assert_eq!(
        path_of(Format::Anthropic, json!({ "role": "user" })),
        "messages"
    );
    assert_eq!(path_of(Format::OpenAi, json!([3])), "messages[0]");
    assert_eq!(
        path_of(Format::AiSdk, json!([{ "role": "robot", "content": "" }])),
        "messages[0].role"
    );
}

#[test]
fn error_messages_say_what_was_expected() {
    let err = Format::AiSdk
        .import(&json!([{ "role": "system", "content": [] }]))
        .unwrap_err();
    assert_eq!(err.message, "expected a string, got an array");
    let err = Format::OpenAi
        .import(&json!([{ "role": "function", "name": "f", "content": "" }]))
        .unwrap_err();
    assert!(err.message.contains("deprecated"), "{}", err.message);
}

#[test]
fn session_errors_name_the_line() {
    let err = import_pi_session("{\"type\":\"session\",\"id\":\"s\"}\n\nnot json\n").unwrap_err();
    assert_eq!(err.path.as_deref(), Some("line 3"));
    assert!(err.message.starts_with("line 3: "), "{}", err.message);

    let text = "{\"type\":\"session\",\"id\":\"s\"}\n{\"type\":\"message\",\"message\":{\"role\":\"toolResult\",\"toolCallId\":5,\"content\":[]}}\n";
    let err = import_pi_session(text).unwrap_err();
    assert_eq!(err.path.as_deref(), Some("line 2.message.toolCallId"));

    let text = "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"a\"}}\n{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"x\"}]}}\n";
    let err = import_claude_code(text).unwrap_err();
    assert_eq!(err.path.as_deref(), Some("line 2.message.content[0].name"));
    assert!(err.message.starts_with("line 2: "));

    let err = import_claude_code("[1,2]").unwrap_err();
    assert_eq!(err.path.as_deref(), Some("line 1"));
}

fn arb_json() -> impl Strategy<Value = Value> {
    let keys = prop::sample::select(vec![
        "role",
        "content",
        "type",
        "text",
        "tool_calls",
        "tool_call_id",
        "toolCallId",
        "toolName",
        "output",
        "value",
        "id",
        "name",
        "input",
        "arguments",
        "function",
        "tool_use_id",
        "source",
        "data",
        "image",
        "image_url",
        "url",
        "isError",
        "is_error",
        "summary",
        "message",
        "timestamp",
    ]);
    let strings = prop::sample::select(vec![
        "user",
        "assistant",
        "system",
        "tool",
        "toolResult",
        "developer",
        "text",
        "tool-call",
        "tool-result",
        "tool_use",
        "tool_result",
        "toolCall",
        "image",
        "file",
        "json",
        "content",
        "error-text",
        "base64",
        "url",
        "thinking",
        "reasoning",
        "image_url",
        "compactionSummary",
        "bashExecution",
        "data:image/png;base64,iVBORw0KGgo",
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB",
        "",
    ]);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        strings.prop_map(|s| Value::String(s.to_string())),
    ];
    leaf.prop_recursive(5, 64, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((keys.clone(), inner), 0..6).prop_map(|kv| {
                Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
            }),
        ]
    })
}

proptest! {

    #[test]
    fn arbitrary_json_never_panics(v in arb_json()) {
        let wrapped = Value::Array(vec![v.clone()]);
        for input in [&v, &wrapped] {
            let _ = detect(input);
            for f in [Format::AiSdk, Format::OpenAi, Format::Anthropic, Format::Pi] {
                if let Ok(messages) = f.import(input) {
                    // whatever imports, exports back to exactly the input
                    prop_assert_eq!(&Value::Array(f.export(&messages)), input);
                } else if let Err(e) = f.import(input) {
                    prop_assert_eq!(e.code, ErrorCode::InvalidInput);
                    prop_assert!(e.path.as_deref().is_some_and(|p| p.starts_with("messages")));
                }
            }
        }
        let line = format!("{v}\n{wrapped}\n{}", json!({ "type": "message", "message": v }));
        let _ = import_pi_session(&line);
        let _ = import_claude_code(&line);
        let cc = json!({ "type": "assistant", "message": v });
        let _ = import_claude_code(&format!("{cc}\n{cc}"));
    }

    #[test]
    fn arbitrary_text_never_panics_session_importers(s in ".{0,200}") {
        let _ = import_pi_session(&s);
        let _ = import_claude_code(&s);
    }
}
