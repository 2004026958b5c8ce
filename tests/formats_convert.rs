#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
//! `convertMessages`: every real session, in every format, written in every other format keeps its
//! conversation (texts, tool calls and results with their ids and names, reasoning, media), is
//! valid in the target format, and comes back the same when converted back.

mod common;

use context_compaction::core::message::{ImageSource, Message, Part, Role};
use context_compaction::core::repair::answer_unanswered;
use context_compaction::core::validate::{validate, ViolationKind};
use context_compaction::formats::claude_code::import_claude_code;
use context_compaction::formats::convert::{convert, convert_with, import_in, ConvertOptions};
use context_compaction::formats::pi_session::import_pi_session;
use context_compaction::formats::{Codec, Format};
use serde_json::{json, Value};

const FORMATS: [Format; 5] = [
    Format::AiSdk,
    Format::OpenAi,
    Format::Anthropic,
    Format::Pi,
    Format::LangChain,
];

/// What a conversion must keep: per tool call (id, name, input), per result (id, text), the texts
/// and the reasoning, in order.
fn conversation(messages: &[Message]) -> (Vec<Value>, Vec<(String, String)>, String) {
    let mut calls = Vec::new();
    let mut results = Vec::new();
    let mut text = String::new();
    for m in messages {
        // Formats whose content is one string join a message's texts with a newline.
        if m.parts.iter().any(|p| matches!(p, Part::Text { .. })) {
            text.push_str(&m.plain_text());
            text.push('\u{1}');
        }
        for p in &m.parts {
            match p {
                Part::ToolCall { id, name, input } => calls.push(json!([id, name, input])),
                Part::ToolResult { id, output, .. } => {
                    // Formats with one text per result join several with a newline.
                    let t = output
                        .iter()
                        .filter_map(|o| match o {
                            Part::Text { text } => Some(text.as_str()),
                            _ => None,
                        })
                        .collect::<Vec<_>>()
                        .join("\n");
                    results.push((id.clone(), t));
                }
                _ => {}
            }
        }
    }
    (calls, results, text)
}

/// The first difference of two lists, for a readable failure.
fn same<T: PartialEq + std::fmt::Debug>(a: &[T], b: &[T], what: &str) {
    if a == b {
        return;
    }
    let at = a
        .iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    let clip = |v: Option<&T>| {
        let s = format!("{v:?}");
        s.chars().take(300).collect::<String>()
    };
    panic!(
        "{what}: {} vs {} items, first difference at {at}: {} vs {}",
        a.len(),
        b.len(),
        clip(a.get(at)),
        clip(b.get(at))
    );
}

fn sessions() -> Vec<(String, Format, Value)> {
    let mut out = Vec::new();
    for path in common::fixtures::files("pi") {
        let s = import_pi_session(&std::fs::read_to_string(&path).unwrap()).unwrap();
        out.push((
            path.display().to_string(),
            s.format,
            Value::Array(s.format.export(&s.messages)),
        ));
    }
    for path in common::fixtures::files("claude-code") {
        let s = import_claude_code(&std::fs::read_to_string(&path).unwrap()).unwrap();
        out.push((
            path.display().to_string(),
            s.format,
            Value::Array(s.format.export(&s.messages)),
        ));
    }
    out
}

#[test]
fn every_session_converts_to_every_format_and_back() {
    let mut answered_calls = 0;
    for (name, from, messages) in sessions() {
        let source = from.import(&messages).unwrap();
        // Conversion answers the calls of aborted turns with an error result (as pi does).
        let (answered_source, answered) = answer_unanswered(source.clone());
        answered_calls += answered.len();
        let (calls, results, text) = conversation(&answered_source);
        assert!(!calls.is_empty(), "{name} has tool calls");
        let before: Vec<_> = validate(&source)
            .iter()
            .map(|v| (v.kind, v.id.clone()))
            .collect();
        for to in FORMATS {
            let converted = convert(&messages, None, to).unwrap();
            assert_eq!(converted.from, from, "{name}: detected");
            let out = Value::Array(converted.messages);
            let target = to.import(&out).unwrap_or_else(|e| {
                panic!("{name} → {}: not valid {}: {e:?}", to.as_str(), to.as_str())
            });
            assert_eq!(converted.answered, answered, "{name}: answered calls");
            for v in validate(&target) {
                assert!(
                    before.contains(&(v.kind, v.id.clone())),
                    "{name} → {}: new violation {v:?}",
                    to.as_str()
                );
                assert_ne!(v.kind, ViolationKind::UnansweredCall, "{name}: {v:?}");
            }
            let (c, r, t) = conversation(&target);
            let to_name = format!("{name} → {}", to.as_str());
            same(&c, &calls, &format!("{to_name}: tool calls"));
            same(&r, &results, &format!("{to_name}: tool results"));
            same(
                &t.chars().collect::<Vec<_>>(),
                &text.chars().collect::<Vec<_>>(),
                &format!("{to_name}: texts"),
            );
            for m in &target {
                for p in &m.parts {
                    if let Part::ToolResult { name: n, .. } = p {
                        if matches!(to, Format::AiSdk | Format::Pi | Format::LangChain) {
                            assert!(
                                n.as_deref().is_some_and(|n| !n.is_empty()),
                                "{name} → {}: result named",
                                to.as_str()
                            );
                        }
                    }
                }
            }
            // And back.
            let back = convert(&out, Some(to), from).unwrap();
            let again = from.import(&Value::Array(back.messages)).unwrap();
            let (c, r, t) = conversation(&again);
            same(&c, &calls, &format!("{to_name} → back: tool calls"));
            same(&r, &results, &format!("{to_name} → back: tool results"));
            assert!(t == text, "{to_name} → back: texts");
        }
        // Within one format nothing changes but the answers; without them, nothing at all.
        let keep = ConvertOptions {
            answer_unanswered: false,
        };
        assert_eq!(
            Value::Array(
                convert_with(&messages, Some(from), from, keep)
                    .unwrap()
                    .messages
            ),
            messages,
            "{name}: same format is the identity"
        );
        assert_eq!(
            Value::Array(convert(&messages, Some(from), from).unwrap().messages),
            Value::Array(from.export(&answered_source)),
            "{name}: same format answers unanswered calls"
        );
    }
    assert!(answered_calls > 0, "a real session has an aborted turn");
}

const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

#[test]
fn inline_media_is_carried_over() {
    let ai = json!([
        { "role": "user", "content": [
            { "type": "text", "text": "what is this" },
            { "type": "image", "image": PNG, "mediaType": "image/png" },
            { "type": "file", "data": "JVBERi0xLjQ=", "mediaType": "application/pdf", "filename": "a.pdf" }
        ] },
        { "role": "assistant", "content": [{ "type": "tool-call", "toolCallId": "c1", "toolName": "shot", "input": {} }] },
        { "role": "tool", "content": [{ "type": "tool-result", "toolCallId": "c1", "toolName": "shot",
            "output": { "type": "content", "value": [{ "type": "media", "data": PNG, "mediaType": "image/png" }] } }] }
    ]);
    let anthropic = Value::Array(convert(&ai, None, Format::Anthropic).unwrap().messages);
    assert_eq!(
        anthropic[0]["content"][1],
        json!({ "type": "image", "source": { "type": "base64", "media_type": "image/png", "data": PNG } })
    );
    assert_eq!(
        anthropic[0]["content"][2]["source"]["data"],
        json!("JVBERi0xLjQ=")
    );
    assert_eq!(
        anthropic[2]["content"][0]["content"][0]["source"]["data"],
        json!(PNG)
    );
    let openai = Value::Array(convert(&ai, None, Format::OpenAi).unwrap().messages);
    assert_eq!(
        openai[0]["content"][1]["image_url"]["url"],
        json!(format!("data:image/png;base64,{PNG}"))
    );
    assert_eq!(
        openai[0]["content"][2]["file"],
        json!({ "file_data": "data:application/pdf;base64,JVBERi0xLjQ=", "filename": "a.pdf" })
    );
    let pi = Value::Array(convert(&ai, None, Format::Pi).unwrap().messages);
    assert_eq!(
        pi[0]["content"][1],
        json!({ "type": "image", "data": PNG, "mimeType": "image/png" })
    );
    // Without a media type, the image's own bytes say what it is.
    let untyped = json!([{ "role": "user", "content": [{ "type": "image", "image": PNG }] }]);
    let typed = Value::Array(convert(&untyped, None, Format::Anthropic).unwrap().messages);
    assert_eq!(
        typed[0]["content"][0]["source"]["media_type"],
        json!("image/png")
    );
    // And back to the AI SDK from Anthropic.
    let back = Value::Array(convert(&anthropic, None, Format::AiSdk).unwrap().messages);
    assert_eq!(back[0]["content"][1]["image"], json!(PNG));
    assert_eq!(
        back[2]["role"],
        json!("tool"),
        "the results become a tool message"
    );
    // The count of media is kept and nothing reads as omitted.
    let target = Format::AiSdk.import(&back).unwrap();
    let inline = target
        .iter()
        .flat_map(|m| &m.parts)
        .filter(|p| {
            matches!(
                p,
                Part::Image {
                    source: ImageSource::Base64 { .. },
                    ..
                } | Part::File {
                    source: ImageSource::Base64 { .. },
                    ..
                }
            )
        })
        .count();
    assert_eq!(inline, 2);
    assert!(!back.to_string().contains("omitted"));
}

#[test]
fn anthropic_results_in_a_user_message_become_a_tool_message_and_openai_names_come_from_calls() {
    let anthropic = json!([
        { "role": "user", "content": "list" },
        { "role": "assistant", "content": [{ "type": "tool_use", "id": "t1", "name": "ls", "input": {} }] },
        { "role": "user", "content": [
            { "type": "tool_result", "tool_use_id": "t1", "content": "a b" },
            { "type": "text", "text": "and now?" }
        ] }
    ]);
    let ai = Value::Array(convert(&anthropic, None, Format::AiSdk).unwrap().messages);
    assert_eq!(ai[2]["role"], json!("tool"));
    assert_eq!(ai[2]["content"][0]["toolName"], json!("ls"));
    assert_eq!(ai[3], json!({ "role": "user", "content": "and now?" }));
    let openai = json!([
        { "role": "assistant", "content": null, "tool_calls": [{ "id": "c", "type": "function", "function": { "name": "read", "arguments": "{\"p\":1}" } }] },
        { "role": "tool", "tool_call_id": "c", "content": "x" }
    ]);
    let pi = Value::Array(convert(&openai, None, Format::Pi).unwrap().messages);
    assert_eq!(pi[1]["toolName"], json!("read"));
    assert_eq!(pi[0]["content"][0]["arguments"], json!({ "p": 1 }));
    let messages = Format::Pi.import(&pi).unwrap();
    assert!(validate(&messages).is_empty());
    assert_eq!(messages[1].role, Role::Tool);
}

#[test]
fn convert_options_are_parsed_with_their_paths() {
    use context_compaction::formats::convert::parse_formats;
    assert_eq!(
        parse_formats(&json!({"to": "openai"})).unwrap(),
        (None, Format::OpenAi)
    );
    let both = parse_formats(&json!({"from": "pi", "to": "anthropic"})).unwrap();
    assert_eq!(both, (Some(Format::Pi), Format::Anthropic));
    let keep = ConvertOptions::parse(&json!({"unansweredCalls": "keep"})).unwrap();
    assert!(!keep.answer_unanswered);
    assert!(ConvertOptions::parse(&json!({})).unwrap().answer_unanswered);
    for (bad, path) in [
        (json!({}), "options.to"),
        (json!({"to": 3}), "options.to"),
        (json!({"to": "openai", "from": "x"}), "options.from"),
    ] {
        let e = parse_formats(&bad).unwrap_err();
        assert_eq!(
            (e.code.as_str(), e.path.as_deref()),
            ("INVALID_OPTIONS", Some(path))
        );
    }
    let e = ConvertOptions::parse(&json!({"unansweredCalls": "drop"})).unwrap_err();
    assert_eq!(e.path.as_deref(), Some("options.unansweredCalls"));
}

#[test]
fn messages_are_read_in_the_given_format_or_the_detected_one() {
    let openai = json!([
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
            "function": {"name": "ls", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "a.txt"}
    ]);
    let (format, messages) = import_in(&openai, None).unwrap();
    assert_eq!(format, Format::OpenAi);
    assert_eq!(messages, Format::OpenAi.import(&openai).unwrap());
    let (format, given) = import_in(&openai, Some(Format::AiSdk)).unwrap_or_else(|e| {
        // Read as the AI SDK's, the same array may be refused; it is never detected instead.
        assert_eq!(e.code.as_str(), "INVALID_INPUT", "{}", e.message);
        (Format::AiSdk, Vec::new())
    });
    assert_eq!(format, Format::AiSdk);
    assert_ne!(given, messages);
    // Without a format: read in the detected one, or refused as detection or that import refuses.
    let detect = context_compaction::formats::detect::detect;
    for value in [
        json!([{"text": "no role"}]),
        json!("not messages"),
        json!({"a": 1}),
    ] {
        let expected = detect(&value).and_then(|f| Ok((f, f.import(&value)?)));
        assert_eq!(
            format!("{:?}", import_in(&value, None)),
            format!("{expected:?}")
        );
    }
    assert!(import_in(&json!("not messages"), None).is_err());
}
