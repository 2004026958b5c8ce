#![cfg(not(target_arch = "wasm32"))]
//! Properties of `core::summary` on random text: serialization never panics and keeps char
//! boundaries; chunks stay under their limits, in order, and lose no character of the transcript;
//! trimming (`transcript.trim`) never panics, never makes a transcript longer and never touches
//! user text, assistant text or errors.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use context_compaction::core::message::{Message, Part, Role};
use context_compaction::core::settings::TranscriptOptions;
use context_compaction::core::summary::chunk::{Chunker, CONTINUED};
use context_compaction::core::summary::transcript::{
    entries, serialize, truncate_chars, ENTRY_SEPARATOR,
};
use proptest::prelude::*;
use serde_json::json;
use std::collections::HashSet;

fn text() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just('a'),
            Just('é'),
            Just('日'),
            Just('\n'),
            Just('🦀'),
            Just(' ')
        ],
        0..300,
    )
    .prop_map(|v| v.into_iter().collect())
}

fn message(t: String, kind: u8) -> Message {
    match kind % 3 {
        0 => Message::text(Role::User, t),
        1 => Message::new(
            Role::Assistant,
            vec![Part::ToolCall {
                id: "c".into(),
                name: "bash".into(),
                input: json!({ "command": t }),
            }],
        ),
        _ => Message::new(
            Role::Tool,
            vec![Part::ToolResult {
                id: "c".into(),
                name: None,
                output: vec![Part::text(t)],
                is_error: kind.is_multiple_of(2),
            }],
        ),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(64)))]

    #[test]
    fn truncation_keeps_a_prefix(t in text(), max in 0usize..400) {
        let out = truncate_chars(&t, max);
        let n = t.chars().count();
        if n <= max {
            prop_assert_eq!(out, t);
        } else {
            let kept: String = t.chars().take(max).collect();
            prop_assert!(out.starts_with(&kept));
            let marker = format!("[... {} more characters cut]", n - max);
            prop_assert!(out.ends_with(&marker));
        }
    }

    #[test]
    fn chunks_cover_the_transcript_under_the_limit(
        items in proptest::collection::vec((text(), any::<u8>()), 1..12),
        limit in 20usize..400,
        out_chars in 0usize..200,
    ) {
        let msgs: Vec<Message> = items.into_iter().map(|(t, k)| message(t, k)).collect();
        let all: Vec<usize> = (0..msgs.len()).collect();
        let options = TranscriptOptions { tool_output_chars: out_chars, include_reasoning: false, tool_allow: None, style: Default::default(), trim: false };
        let whole = serialize(&msgs, &all, &options);
        let count = |s: &str| s.chars().count();
        let none = HashSet::new();
        let chunker = Chunker { estimate: &count, char_limit: limit, token_limit: None, overlap: &none, separator: ENTRY_SEPARATOR };
        let chunks = chunker.chunks(entries(&msgs, &all, &options, 1));
        let mut last = 0usize;
        let mut rebuilt = String::new();
        for c in &chunks {
            prop_assert!(c.transcript.chars().count() <= limit);
            prop_assert!(c.indices.first().copied().unwrap_or(0) >= last);
            last = c.indices.last().copied().unwrap_or(last);
            // Entries start with "[n] ", so the marker only opens the piece of a cut entry.
            match c.transcript.strip_prefix(CONTINUED) {
                Some(rest) => rebuilt.push_str(rest),
                None => {
                    if !rebuilt.is_empty() {
                        rebuilt.push_str("\n\n");
                    }
                    rebuilt.push_str(&c.transcript);
                }
            }
        }
        prop_assert_eq!(rebuilt, whole);
    }

    #[test]
    fn trimming_never_grows_and_never_touches_text_or_errors(
        items in proptest::collection::vec((long_text(), any::<u8>()), 1..10),
        repeat in any::<bool>(),
        out_chars in 500usize..3_000,
    ) {
        let mut msgs: Vec<Message> = items.into_iter().map(|(t, k)| any_message(t, k)).collect();
        if repeat {
            msgs.extend(msgs.clone());
        }
        let all: Vec<usize> = (0..msgs.len()).collect();
        let options = |trim: bool, out: usize| TranscriptOptions { tool_output_chars: out, include_reasoning: false, tool_allow: None, style: Default::default(), trim };
        // Never longer, at any toolOutputChars from 500 (the default is 2,000).
        let on = serialize(&msgs, &all, &options(true, out_chars));
        let off = serialize(&msgs, &all, &options(false, out_chars));
        prop_assert!(on.chars().count() <= off.chars().count(), "{} > {}", on.len(), off.len());
        // User text, assistant text and errors are whole.
        let on = serialize(&msgs, &all, &options(true, usize::MAX));
        for m in &msgs {
            for p in &m.parts {
                let kept = match p {
                    Part::Text { text } => Some(text),
                    Part::ToolResult { output, is_error: true, .. } => match output.first() {
                        Some(Part::Text { text }) => Some(text),
                        _ => None,
                    },
                    _ => None,
                };
                if let Some(t) = kept.filter(|t| !t.trim().is_empty()) {
                    prop_assert!(on.contains(t.as_str()), "lost: {t}");
                }
            }
        }
    }
}

fn long_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just('a'),
            Just('é'),
            Just('日'),
            Just('\n'),
            Just('🦀'),
            Just(' '),
            Just('"')
        ],
        0..1_500,
    )
    .prop_map(|v| v.into_iter().collect())
}

/// User or assistant text, a command, a write of a file, a successful or a failed result.
fn any_message(t: String, kind: u8) -> Message {
    let call = |input| {
        Message::new(
            Role::Assistant,
            vec![Part::ToolCall {
                id: "c".into(),
                name: "bash".into(),
                input,
            }],
        )
    };
    let result = |is_error| {
        Message::new(
            Role::Tool,
            vec![Part::ToolResult {
                id: "c".into(),
                name: None,
                output: vec![Part::text(t.clone())],
                is_error,
            }],
        )
    };
    match kind % 6 {
        0 => Message::text(Role::User, t),
        1 => Message::text(Role::Assistant, t),
        2 => call(json!({ "command": t })),
        3 => call(json!({ "file_path": "/a/b.rs", "content": t, "edits": [{ "newText": t }] })),
        4 => result(false),
        _ => result(true),
    }
}
