//! The core's option key lists against the hand-written declarations (`js/types/*.d.ts`): the
//! keys each constructor's options accept (`OPTION_KEYS`, `SESSION_KEYS`, `TRIM_KEYS`) are
//! exactly the keys the interfaces declare, so an option added on one side only fails here; and
//! the list is what the unknown-option check uses.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::collections::BTreeSet;

use context_compaction::core::error::ErrorCode;
use context_compaction::core::options::trim::{parse_trim, TRIM_KEYS};
use context_compaction::core::options::{parse, OPTION_KEYS, TRANSCRIPT_KEYS};
use context_compaction::core::session::options::{parse as parse_session, SESSION_KEYS};
use serde_json::json;

/// The keys `js/stored-compactor.mjs` takes out of a `Compactor`'s options before the core sees
/// them (declared in `CompactorOptions`, left out of `SessionOptions` by its `Omit`).
const STORE_KEYS: [&str; 5] = [
    "store",
    "conversationId",
    "leaseMs",
    "compactionWaitMs",
    "holder",
];

fn declarations(file: &str) -> String {
    let path = format!("{}/js/types/{file}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The top-level members of `export interface <name>` in `text` (two-space indented
/// `key?:` / `key:` lines; nested object types are indented deeper).
fn members(text: &str, name: &str) -> BTreeSet<String> {
    let start = text
        .lines()
        .position(|l| l.starts_with(&format!("export interface {name}")))
        .unwrap_or_else(|| panic!("interface {name} not found"));
    let mut out = BTreeSet::new();
    for line in text.lines().skip(start + 1) {
        if line.starts_with('}') {
            break;
        }
        let Some(rest) = line.strip_prefix("  ") else {
            continue;
        };
        if rest.starts_with(' ') {
            continue;
        }
        let key: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let after = &rest[key.len()..];
        if !key.is_empty() && (after.starts_with("?:") || after.starts_with(':')) {
            out.insert(key);
        }
    }
    out
}

fn set(keys: &[&str]) -> BTreeSet<String> {
    keys.iter().map(|k| k.to_string()).collect()
}

#[test]
fn compactor_options_are_the_declared_ones() {
    let declared = members(&declarations("options.d.ts"), "CompactorOptions");
    let mut listed = set(&OPTION_KEYS);
    listed.extend(set(&STORE_KEYS));
    assert_eq!(
        listed, declared,
        "OPTION_KEYS + store keys vs CompactorOptions"
    );
}

#[test]
fn session_options_are_the_declared_ones() {
    let text = declarations("session.d.ts");
    let head = text
        .lines()
        .find(|l| l.starts_with("export interface SessionOptions"))
        .unwrap();
    // It extends the Compactor's options without exactly the store keys.
    for key in STORE_KEYS {
        assert!(
            head.contains(&format!("\"{key}\"")),
            "{key} omitted: {head}"
        );
    }
    assert_eq!(set(&SESSION_KEYS), members(&text, "SessionOptions"));
}

#[test]
fn trim_options_are_the_declared_ones() {
    let declared = members(&declarations("options.d.ts"), "TrimOptions");
    assert_eq!(set(&TRIM_KEYS), declared);
}

#[test]
fn transcript_options_are_the_declared_ones() {
    let declared = members(&declarations("options.d.ts"), "TranscriptOptions");
    assert_eq!(set(&TRANSCRIPT_KEYS), declared);
    let e = parse(&json!({"contextWindow": 10_000, "transcript": {"trimm": false}})).unwrap_err();
    assert_eq!(e.path.as_deref(), Some("transcript.trimm"));
    assert!(e.message.contains("trim"), "{}", e.message);
    for key in TRANSCRIPT_KEYS {
        if let Err(e) =
            parse(&json!({"contextWindow": 10_000, "transcript": {key: {"probe": true}}}))
        {
            assert!(
                !e.message.contains("unknown option"),
                "{key}: {}",
                e.message
            );
        }
    }
}

#[test]
fn an_unknown_key_is_refused_with_the_list() {
    let e = parse(&json!({"contextWindow": 10_000, "notAnOption": 1})).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidOptions);
    assert_eq!(e.path.as_deref(), Some("notAnOption"));
    assert!(
        e.message
            .contains(&format!("(expected {})", OPTION_KEYS.join(", "))),
        "{}",
        e.message
    );
    // A session also lists its own keys, and accepts them.
    let e = parse_session(json!({"contextWindow": 10_000, "notAnOption": 1})).unwrap_err();
    assert!(
        e.message.contains(", sessionId, background, strict)"),
        "{}",
        e.message
    );
    let (_, s) =
        parse_session(json!({"contextWindow": 10_000, "sessionId": "s", "strict": true})).unwrap();
    assert!(s.strict);
    let e = parse_trim(&json!({"maxTokens": 10, "notAnOption": 1})).unwrap_err();
    assert!(e.message.contains("(expected maxTokens, "), "{}", e.message);
    // Every listed key is accepted (a wrong value is refused by its own name, never as unknown).
    for key in OPTION_KEYS {
        if let Err(e) = parse(&json!({"contextWindow": 10_000, key: {"probe": true}})) {
            let unknown = e.path.as_deref() == Some(key) && e.message.contains("unknown option");
            assert!(!unknown, "{key}: {}", e.message);
        }
    }
}
