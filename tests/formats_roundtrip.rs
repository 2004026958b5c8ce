#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
//! import -> export gives back deep-equal JSON (unknown fields included), and changed messages
//! keep the fields of their original that the change does not concern.

use context_compaction::core::message::{ImageSource, Message, Part, Role};
use context_compaction::formats::{ai_sdk, anthropic, openai, pi, Codec, Format};
use serde_json::{json, Value};

// 1x1 PNG
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

fn round_trip(format: Format, input: &Value) -> Vec<Message> {
    let messages = format.import(input).unwrap();
    let out = format.export(&messages);
    assert_eq!(&Value::Array(out), input, "{} round trip", format.as_str());
    messages
}

fn ai_sdk_case() -> Value {
    json!([
        { "role": "system", "content": "You are terse.", "providerOptions": { "x": { "y": 1 } } },
        { "role": "user", "content": [
            { "type": "text", "text": "look at this" },
            { "type": "image", "image": PNG, "mediaType": "image/png" },
            { "type": "file", "data": "https://example.com/a.pdf", "mediaType": "application/pdf", "filename": "a.pdf" }
        ], "extra": [1, 2] },
        { "role": "assistant", "content": [
            { "type": "reasoning", "text": "thinking...", "providerOptions": { "anthropic": { "signature": "s" } } },
            { "type": "text", "text": "Reading both." },
            { "type": "tool-call", "toolCallId": "c1", "toolName": "read", "input": { "path": "a.ts" } },
            { "type": "tool-call", "toolCallId": "c2", "toolName": "read", "input": { "path": "b.ts" } }
        ] },
        { "role": "tool", "content": [
            { "type": "tool-result", "toolCallId": "c1", "toolName": "read", "output": { "type": "text", "value": "A" } },
            { "type": "tool-result", "toolCallId": "c2", "toolName": "read", "output": { "type": "error-json", "value": { "code": 2 } } }
        ] },
        { "role": "assistant", "content": "done" }
    ])
}

#[test]
fn ai_sdk_round_trip_and_model() {
    let m = round_trip(Format::AiSdk, &ai_sdk_case());
    assert_eq!(m.len(), 5);
    assert_eq!(m[0].role, Role::System);
    match &m[1].parts[1] {
        Part::Image {
            width,
            height,
            source,
            media_type,
            ..
        } => {
            assert_eq!((*width, *height), (Some(1), Some(1)));
            assert_eq!(source, &ImageSource::Base64 { len: PNG.len() });
            assert_eq!(media_type.as_deref(), Some("image/png"));
        }
        other => panic!("expected image, got {other:?}"),
    }
    assert_eq!(m[2].tool_call_ids(), vec!["c1", "c2"]);
    assert_eq!(m[3].tool_result_ids(), vec!["c1", "c2"]);
    assert!(m[3].is_tool_result_carrier());
    match &m[3].parts[1] {
        Part::ToolResult {
            is_error, output, ..
        } => {
            assert!(*is_error);
            assert_eq!(output, &vec![Part::text("{\"code\":2}")]);
        }
        other => panic!("{other:?}"),
    }
}

fn openai_case() -> Value {
    json!([
        { "role": "developer", "content": "Be brief." },
        { "role": "user", "name": "alice", "content": [
            { "type": "text", "text": "what is this?" },
            { "type": "image_url", "image_url": { "url": format!("data:image/png;base64,{PNG}"), "detail": "low" } }
        ] },
        { "role": "assistant", "content": null, "tool_calls": [
            { "id": "call_1", "type": "function", "function": { "name": "lookup", "arguments": "{\"q\":\"png\"}" } },
            { "id": "call_2", "type": "function", "function": { "name": "lookup", "arguments": "not json" } }
        ], "x_custom": true },
        { "role": "tool", "tool_call_id": "call_1", "content": "a picture format" },
        { "role": "tool", "tool_call_id": "call_2", "content": [{ "type": "text", "text": "error: bad args" }] },
        { "role": "assistant", "content": "It is an image.", "refusal": null }
    ])
}

#[test]
fn openai_round_trip_and_model() {
    let m = round_trip(Format::OpenAi, &openai_case());
    assert_eq!(m[0].role, Role::System);
    match &m[1].parts[1] {
        Part::Image {
            detail,
            media_type,
            width,
            ..
        } => {
            assert_eq!(detail.as_deref(), Some("low"));
            assert_eq!(media_type.as_deref(), Some("image/png"));
            assert_eq!(*width, Some(1));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        m[2].parts,
        vec![
            Part::ToolCall {
                id: "call_1".into(),
                name: "lookup".into(),
                input: json!({ "q": "png" })
            },
            Part::ToolCall {
                id: "call_2".into(),
                name: "lookup".into(),
                input: json!("not json")
            },
        ]
    );
    assert_eq!(m[3].role, Role::Tool);
    assert_eq!(m[4].tool_result_ids(), vec!["call_2"]);
}

fn anthropic_case() -> Value {
    json!([
        { "role": "system", "content": "sys" },
        { "role": "user", "content": "fix the bug" },
        { "role": "assistant", "content": [
            { "type": "thinking", "thinking": "hmm", "signature": "sig==" },
            { "type": "redacted_thinking", "data": "opaque" },
            { "type": "text", "text": "Running two tools." },
            { "type": "tool_use", "id": "tu1", "name": "bash", "input": { "cmd": "ls" } },
            { "type": "tool_use", "id": "tu2", "name": "read", "input": { "path": "x" }, "cache_control": { "type": "ephemeral" } }
        ] },
        { "role": "user", "content": [
            { "type": "tool_result", "tool_use_id": "tu1", "content": "a\nb", "cache_control": { "type": "ephemeral" } },
            { "type": "tool_result", "tool_use_id": "tu2", "is_error": true, "content": [
                { "type": "text", "text": "no such file" },
                { "type": "image", "source": { "type": "base64", "media_type": "image/png", "data": PNG } }
            ] },
            { "type": "text", "text": "also, hurry" }
        ] },
        { "role": "assistant", "content": [
            { "type": "server_tool_use", "id": "srv1", "name": "web_search", "input": { "query": "q" } },
            { "type": "web_search_tool_result", "tool_use_id": "srv1", "content": [] },
            { "type": "text", "text": "ok", "citations": null }
        ] }
    ])
}

#[test]
fn anthropic_round_trip_and_model() {
    let m = round_trip(Format::Anthropic, &anthropic_case());
    assert_eq!(m[0].role, Role::System);
    assert_eq!(
        m[2].parts[1],
        Part::Reasoning {
            text: "opaque".into(),
            redacted: true
        }
    );
    // tool results inside a user message, mixed with text
    assert_eq!(m[3].role, Role::User);
    assert!(m[3].is_tool_result_carrier());
    assert!(!m[3].is_user_turn_start());
    assert_eq!(m[3].tool_result_ids(), vec!["tu1", "tu2"]);
    match &m[3].parts[1] {
        Part::ToolResult {
            is_error, output, ..
        } => {
            assert!(*is_error);
            assert!(matches!(output[1], Part::Image { width: Some(1), .. }));
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(&m[4].parts[0], Part::Other { kind, .. } if kind == "server_tool_use"));
    assert!(m[1].is_user_turn_start());
}

fn pi_case() -> Value {
    json!([
        { "role": "user", "content": [{ "type": "text", "text": "hi" }, { "type": "image", "data": PNG, "mimeType": "image/png" }], "timestamp": 1 },
        { "role": "assistant", "content": [
            { "type": "thinking", "thinking": "plan", "thinkingSignature": "s" },
            { "type": "toolCall", "id": "t1", "name": "read", "arguments": { "path": "a" } },
            { "type": "toolCall", "id": "t2", "name": "bash", "arguments": { "command": "false" } }
        ], "api": "anthropic-messages", "provider": "anthropic", "model": "m", "usage": { "input": 1, "output": 2 }, "stopReason": "toolUse", "timestamp": 2 },
        { "role": "toolResult", "toolCallId": "t1", "toolName": "read", "content": [{ "type": "text", "text": "A" }], "isError": false, "details": { "lines": 1 }, "timestamp": 3 },
        { "role": "toolResult", "toolCallId": "t2", "toolName": "bash", "content": [{ "type": "text", "text": "exit 1" }], "isError": true, "timestamp": 4 },
        { "role": "bashExecution", "command": "ls", "output": "a\nb", "exitCode": 0, "cancelled": false, "truncated": false, "timestamp": 5 },
        { "role": "compactionSummary", "summary": "we did things", "tokensBefore": 100, "timestamp": 6 }
    ])
}

#[test]
fn pi_round_trip_and_model() {
    let m = round_trip(Format::Pi, &pi_case());
    assert_eq!(m[0].timestamp, Some(1));
    assert_eq!(m[2].role, Role::Tool);
    assert_eq!(m[1].tool_call_ids(), vec!["t1", "t2"]);
    assert!(
        matches!(&m[3].parts[0], Part::ToolResult { is_error: true, name: Some(n), .. } if n == "bash")
    );
    assert_eq!(m[4].role, Role::User);
    assert!(m[4].plain_text().starts_with("Ran `ls`"));
    assert!(m[5].summary);
    assert!(m[5].plain_text().contains("we did things"));
}

/// Replaces the output of the tool result with `id` by a placeholder.
fn prune(messages: &mut [Message], id: &str) {
    for m in messages {
        for p in &mut m.parts {
            if let Part::ToolResult {
                id: pid, output, ..
            } = p
            {
                if pid == id {
                    *output = vec![Part::text("[Old tool result content cleared]")];
                }
            }
        }
    }
}

#[test]
fn pruned_anthropic_tool_result_keeps_other_fields_and_blocks() {
    let input = anthropic_case();
    let mut m = anthropic::import(&input).unwrap();
    prune(&mut m, "tu1");
    let out = anthropic::export(&m);
    // untouched messages are verbatim
    assert_eq!(out[2], input[2]);
    let blocks = out[3]["content"].as_array().unwrap();
    assert_eq!(
        blocks[0],
        json!({ "type": "tool_result", "tool_use_id": "tu1", "content": "[Old tool result content cleared]", "cache_control": { "type": "ephemeral" } })
    );
    // the unchanged blocks of the changed message are the originals, image data included
    assert_eq!(blocks[1], input[3]["content"][1]);
    assert_eq!(blocks[2], input[3]["content"][2]);
}

#[test]
fn pruned_pi_tool_result_keeps_details_and_timestamp() {
    let input = pi_case();
    let mut m = pi::import(&input).unwrap();
    prune(&mut m, "t1");
    let out = pi::export(&m);
    assert_eq!(
        out[2],
        json!({ "role": "toolResult", "toolCallId": "t1", "toolName": "read",
                "content": [{ "type": "text", "text": "[Old tool result content cleared]" }],
                "isError": false, "details": { "lines": 1 }, "timestamp": 3 })
    );
    assert_eq!(out[3], input[3]);
}

#[test]
fn pruned_ai_sdk_and_openai_tool_results_keep_other_fields() {
    let input = ai_sdk_case();
    let mut m = ai_sdk::import(&input).unwrap();
    prune(&mut m, "c2");
    let out = ai_sdk::export(&m);
    assert_eq!(out[3]["content"][0], input[3]["content"][0]);
    assert_eq!(
        out[3]["content"][1],
        json!({ "type": "tool-result", "toolCallId": "c2", "toolName": "read",
                "output": { "type": "error-text", "value": "[Old tool result content cleared]" } })
    );

    let input = openai_case();
    let mut m = openai::import(&input).unwrap();
    prune(&mut m, "call_1");
    let out = openai::export(&m);
    assert_eq!(
        out[3],
        json!({ "role": "tool", "tool_call_id": "call_1", "content": "[Old tool result content cleared]" })
    );
    assert_eq!(out[2], input[2]);
}

#[test]
fn changed_assistant_keeps_unknown_fields_and_unchanged_tool_calls() {
    let input = openai_case();
    let mut m = openai::import(&input).unwrap();
    // drop the second call (as a repair would), keep the first
    m[2].parts.truncate(1);
    let out = openai::export(&m);
    assert_eq!(
        out[2],
        json!({ "role": "assistant", "content": null, "x_custom": true,
                "tool_calls": [input[2]["tool_calls"][0].clone()] })
    );
}

#[test]
fn new_summary_messages_are_built_in_each_format() {
    let mut s = Message::text(Role::User, "Summary of earlier work");
    s.summary = true;
    let plain = json!([{ "role": "user", "content": "Summary of earlier work" }]);
    for f in [Format::AiSdk, Format::OpenAi, Format::Anthropic] {
        assert_eq!(
            Value::Array(f.export(std::slice::from_ref(&s))),
            plain,
            "{}",
            f.as_str()
        );
    }
    let pi_out = pi::export(&[s]);
    assert_eq!(
        pi_out[0],
        json!({ "role": "user", "content": [{ "type": "text", "text": "Summary of earlier work" }], "timestamp": 0 })
    );
    // and built messages import back to the same parts
    for f in [Format::AiSdk, Format::OpenAi, Format::Anthropic, Format::Pi] {
        let call = Message::new(
            Role::Assistant,
            vec![
                Part::text("x"),
                Part::ToolCall {
                    id: "k".into(),
                    name: "n".into(),
                    input: json!({ "a": [1] }),
                },
            ],
        );
        let result = Message::new(
            Role::Tool,
            vec![Part::ToolResult {
                id: "k".into(),
                name: Some("n".into()),
                output: vec![Part::text("out")],
                is_error: false,
            }],
        );
        let out = f.export(&[call.clone(), result]);
        let back = f.import(&Value::Array(out)).unwrap();
        assert_eq!(back[0].parts, call.parts, "{}", f.as_str());
        assert_eq!(back[1].tool_result_ids(), vec!["k"], "{}", f.as_str());
    }
}

#[test]
fn summaries_of_peers_are_recognized_and_pins_read() {
    let input = json!([
        { "role": "user", "content": "This session is being continued from a previous conversation that ran out of context." },
        { "role": "user", "content": "the task", "pinned": true },
        { "role": "assistant", "content": "Here is a summary of the conversation to date: ..." }
    ]);
    let m = round_trip(Format::AiSdk, &input);
    assert!(m[0].summary && !m[0].is_user_turn_start());
    assert!(m[1].pinned && !m[1].summary);
    // Only the head of an array is where a compaction puts its summary (issue 23): the same
    // framing further on is an ordinary message.
    assert!(!m[2].summary);
}

#[test]
fn text_len_counts_text_reasoning_and_tool_data() {
    let m = ai_sdk::import(&ai_sdk_case()).unwrap();
    // "thinking..." (11) + "Reading both." (13) + "read"+{"path":"a.ts"} (4+15) twice
    assert_eq!(m[2].text_len(), 11 + 13 + 2 * (4 + 15));
    assert_eq!(m[1].text_len(), "look at this".len());
}

/// AI SDK 6 prompts: a denied tool execution, the provider-prompt content items (file and image
/// data and URLs) and binary data as the JS boundary hands it over (a placeholder with the byte
/// count and the head of the bytes) all import, price as media, and round-trip.
#[test]
fn ai_sdk_v6_outputs_content_items_and_binary_placeholders() {
    let input = json!([
        { "role": "user", "content": [
            { "type": "image", "image": { "\u{0}binary": 0, "bytes": 60_000, "head": PNG } },
            { "type": "file", "data": { "\u{0}binary": 1, "url": "https://example.com/x.pdf" }, "mediaType": "application/pdf" }
        ] },
        { "role": "assistant", "content": [
            { "type": "tool-call", "toolCallId": "c1", "toolName": "rm", "input": { "path": "/" } },
            { "type": "tool-call", "toolCallId": "c2", "toolName": "shot", "input": {} }
        ] },
        { "role": "tool", "content": [
            { "type": "tool-result", "toolCallId": "c1", "toolName": "rm",
              "output": { "type": "execution-denied", "reason": "not allowed" } },
            { "type": "tool-result", "toolCallId": "c2", "toolName": "shot",
              "output": { "type": "content", "value": [
                  { "type": "image-data", "data": PNG, "mediaType": "image/png" },
                  { "type": "file-url", "url": "https://example.com/log.txt" },
                  { "type": "text", "text": "done" }
              ] } }
        ] }
    ]);
    let messages = round_trip(Format::AiSdk, &input);
    match &messages[0].parts[0] {
        Part::Image {
            source: ImageSource::Base64 { len },
            width,
            height,
            ..
        } => {
            assert_eq!(*len, 80_000, "60,000 bytes are 80,000 base64 characters");
            assert_eq!(
                (*width, *height),
                (Some(1), Some(1)),
                "dimensions from the head"
            );
        }
        other => panic!("not an image: {other:?}"),
    }
    assert!(matches!(
        &messages[0].parts[1],
        Part::File { source: ImageSource::Url(u), .. } if u == "https://example.com/x.pdf"
    ));
    match &messages[2].parts[0] {
        Part::ToolResult {
            output, is_error, ..
        } => {
            assert!(*is_error, "a denied execution reads as an error result");
            assert_eq!(output[0].text_len(), "not allowed".len());
        }
        other => panic!("not a result: {other:?}"),
    }
    match &messages[2].parts[1] {
        Part::ToolResult { output, .. } => {
            assert!(matches!(output[0], Part::Image { .. }), "{:?}", output[0]);
            assert!(matches!(output[1], Part::File { .. }), "{:?}", output[1]);
        }
        other => panic!("not a result: {other:?}"),
    }
}

fn langchain_case() -> Value {
    json!([
        { "type": "system", "content": "You are terse.", "additional_kwargs": {}, "response_metadata": {} },
        { "type": "human", "content": [
            { "type": "text", "text": "look" },
            { "type": "image_url", "image_url": { "url": "https://example.com/a.png", "detail": "low" } },
            { "type": "image", "data": PNG, "mimeType": "image/png" }
        ], "id": "h1" },
        { "type": "ai", "content": [{ "type": "reasoning", "reasoning": "hmm" }, { "type": "text", "text": "Reading." }],
          "tool_calls": [{ "id": "c1", "name": "read", "args": { "path": "a.ts" }, "type": "tool_call" }],
          "invalid_tool_calls": [], "response_metadata": { "model": "x" } },
        { "type": "tool", "content": "no such file", "tool_call_id": "c1", "name": "read", "status": "error" },
        { "type": "ai", "content": "It does not exist." }
    ])
}

#[test]
fn langchain_round_trip_and_model() {
    let input = langchain_case();
    assert_eq!(
        context_compaction::formats::detect(&input).unwrap(),
        Format::LangChain
    );
    let messages = round_trip(Format::LangChain, &input);
    assert_eq!(messages[0].role, Role::System);
    assert!(
        matches!(&messages[1].parts[1], Part::Image { source: ImageSource::Url(u), detail: Some(d), .. } if u == "https://example.com/a.png" && d == "low")
    );
    assert!(matches!(
        &messages[1].parts[2],
        Part::Image {
            width: Some(1),
            height: Some(1),
            ..
        }
    ));
    assert!(matches!(&messages[2].parts[0], Part::Reasoning { text, .. } if text == "hmm"));
    assert!(
        matches!(&messages[2].parts[2], Part::ToolCall { id, name, .. } if id == "c1" && name == "read")
    );
    assert!(
        matches!(&messages[3].parts[0], Part::ToolResult { id, is_error: true, name: Some(n), .. } if id == "c1" && n == "read")
    );
    // A pruned tool result keeps the message's other fields.
    let mut changed = messages.clone();
    prune(&mut changed, "c1");
    let out = Format::LangChain.export(&changed);
    assert_eq!(out[3]["status"], json!("error"));
    assert_eq!(out[3]["name"], json!("read"));
    assert_ne!(out[3]["content"], input[3]["content"]);
    // Bad input names the field.
    let bad = json!([{ "type": "ai", "content": "", "tool_calls": [{ "name": "x", "args": {} }] }]);
    let e = Format::LangChain.import(&bad).unwrap_err();
    assert_eq!(e.path.as_deref(), Some("messages[0].tool_calls[0].id"));
    let bad = json!([{ "type": "remove", "id": "x" }, { "type": "human", "content": "hi" }]);
    let e = Format::LangChain.import(&bad).unwrap_err();
    assert_eq!(e.path.as_deref(), Some("messages[0].type"));
}
