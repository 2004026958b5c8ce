#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
//! `format: "auto"`: markers decide, plain text defaults to ai-sdk (where the choice cannot change
//! the output), and markers of two formats are an error naming both.

use context_compaction::core::error::ErrorCode;
use context_compaction::core::message::{Message, Role};
use context_compaction::formats::{detect, import_named, Codec, Format};
use serde_json::{json, Value};

#[test]
fn markers_decide() {
    let cases = [
        (
            json!([{ "role": "assistant", "content": null, "tool_calls": [] }]),
            Format::OpenAi,
        ),
        (
            json!([{ "role": "tool", "tool_call_id": "a", "content": "x" }]),
            Format::OpenAi,
        ),
        (
            json!([{ "role": "developer", "content": "x" }]),
            Format::OpenAi,
        ),
        (
            json!([{ "role": "user", "content": [{ "type": "image_url", "image_url": { "url": "u" } }] }]),
            Format::OpenAi,
        ),
        (
            json!([{ "role": "user", "content": [{ "type": "tool_result", "tool_use_id": "a", "content": "x" }] }]),
            Format::Anthropic,
        ),
        (
            json!([{ "role": "assistant", "content": [{ "type": "thinking", "thinking": "t", "signature": "s" }] }]),
            Format::Anthropic,
        ),
        (
            json!([{ "role": "user", "content": [{ "type": "text", "text": "t", "cache_control": { "type": "ephemeral" } }] }]),
            Format::Anthropic,
        ),
        (
            json!([{ "role": "assistant", "content": [{ "type": "tool-call", "toolCallId": "a", "toolName": "b", "input": {} }] }]),
            Format::AiSdk,
        ),
        (
            json!([{ "role": "user", "content": [{ "type": "image", "image": "https://x/y.png" }] }]),
            Format::AiSdk,
        ),
        (
            json!([{ "role": "toolResult", "toolCallId": "a", "toolName": "b", "content": [], "isError": false }]),
            Format::Pi,
        ),
        (
            json!([{ "role": "assistant", "content": [{ "type": "toolCall", "id": "a", "name": "b", "arguments": {} }] }]),
            Format::Pi,
        ),
        (
            json!([{ "role": "user", "content": [{ "type": "text", "text": "hi" }], "timestamp": 17 }]),
            Format::Pi,
        ),
    ];
    for (input, expected) in cases {
        assert_eq!(detect(&input).unwrap(), expected, "{input}");
        // and the detected format imports it
        expected.import(&input).unwrap();
    }
}

#[test]
fn plain_text_defaults_to_ai_sdk_and_the_choice_does_not_matter() {
    let input = json!([
        { "role": "system", "content": "s" },
        { "role": "user", "content": "hello" },
        { "role": "assistant", "content": "hi" },
        { "role": "user", "content": [{ "type": "text", "text": "more" }] }
    ]);
    assert_eq!(detect(&input).unwrap(), Format::AiSdk);
    assert_eq!(detect(&json!([])).unwrap(), Format::AiSdk);
    // every candidate format reads the same model and writes the same output, new messages included
    let mut outputs = Vec::new();
    for f in [Format::AiSdk, Format::OpenAi, Format::Anthropic] {
        let mut m = f.import(&input).unwrap();
        m.insert(1, Message::text(Role::User, "summary"));
        outputs.push((f.import(&input).unwrap(), f.export(&m)));
    }
    for pair in outputs.windows(2) {
        assert_eq!(pair[0].0, pair[1].0);
        assert_eq!(pair[0].1, pair[1].1);
    }
}

#[test]
fn two_formats_markers_are_an_error_naming_both() {
    let input = json!([
        { "role": "user", "content": "go" },
        { "role": "assistant", "content": null, "tool_calls": [{ "id": "a", "type": "function", "function": { "name": "f", "arguments": "{}" } }] },
        { "role": "user", "content": [{ "type": "tool_result", "tool_use_id": "a", "content": "x" }] }
    ]);
    let err = detect(&input).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidInput);
    assert_eq!(err.path.as_deref(), Some("messages[2].content[0].type"));
    assert!(
        err.message.contains("messages[1].tool_calls"),
        "{}",
        err.message
    );
    assert!(err.message.contains("\"openai\""), "{}", err.message);
    assert!(
        err.message.contains("\"tool_use\"") || err.message.contains("\"tool_result\""),
        "{}",
        err.message
    );
    assert!(err.message.contains("\"anthropic\""), "{}", err.message);
    let err = import_named(&input, "auto").unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidInput);
    // an explicit format bypasses detection: openai keeps the foreign block as an unknown part
    let (f, m) = import_named(&input, "openai").unwrap();
    assert_eq!(f, Format::OpenAi);
    assert!(
        matches!(&m[2].parts[0], context_compaction::core::message::Part::Other { kind, .. } if kind == "tool_result")
    );
}

#[test]
fn not_an_array_and_unknown_format_names() {
    let err = detect(&json!({ "messages": [] })).unwrap_err();
    assert_eq!(err.path.as_deref(), Some("messages"));
    let err = import_named(&Value::Array(vec![]), "gemini").unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidOptions);
    let (f, m) = import_named(&json!([{ "role": "user", "content": "x" }]), "auto").unwrap();
    assert_eq!((f, m.len()), (Format::AiSdk, 1));
}

#[test]
fn detect_shapes_reads_each_distinct_shape_once() {
    use context_compaction::formats::detect::detect_shapes;
    // Two messages of the first shape, then an OpenAI tool message.
    let shapes = r#"[{"role":"user","content":""},{"role":"tool","tool_call_id":"","content":""}]"#;
    let d = detect_shapes(shapes, &[0, 0, 1]).unwrap().unwrap();
    assert_eq!(d.format, Format::OpenAi);
    assert_eq!(d.at, Some(2));
    assert!(detect_shapes("not json", &[0]).is_none());
}
