//! docs/QUALITY.md states the digest's budget and the extractive summary's: its numbers are the
//! constants of the digest, of the pending-task list and of the extractive summary.
#![allow(clippy::unwrap_used)]

use context_compaction::core::summary::digest::{
    COMMAND_CHARS, FIRST_COMMANDS, MAX_COMMANDS, MAX_ERRORS, MAX_FILES, MAX_REQUESTS, REQUEST_CHARS,
};
use context_compaction::core::summary::extractive::{
    MAX_TOKENS, MIN_TOKENS, RATIO, SHORT_CHARS, SHORT_ERROR_CHARS, SHORT_MESSAGE_CHARS,
};
use context_compaction::core::summary::pending::MAX_PENDING;

#[test]
fn the_documented_budget_is_the_digests() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/QUALITY.md"))
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for phrase in [
        format!("at most {MAX_FILES} files per list"),
        format!(
            "{MAX_COMMANDS} commands (the first {FIRST_COMMANDS} and the latest {}, each cut at {COMMAND_CHARS} characters)",
            MAX_COMMANDS - FIRST_COMMANDS
        ),
        format!("the last {MAX_ERRORS} errors"),
        format!(
            "{MAX_REQUESTS} user requests (the first and the latest {}, each cut at {REQUEST_CHARS} characters)",
            MAX_REQUESTS - 1
        ),
        format!("{MAX_PENDING} pending tasks"),
        format!(
            "at least {MIN_TOKENS} and at most {} tokens",
            fmt_thousands(MAX_TOKENS)
        ),
        format!(
            "list items cut to their first {SHORT_CHARS} characters, errors to {SHORT_ERROR_CHARS}, the last assistant message to {SHORT_MESSAGE_CHARS}"
        ),
    ] {
        assert!(doc.contains(&phrase), "docs/QUALITY.md lacks \"{phrase}\"");
    }
    assert!(
        RATIO == 10 && doc.contains("a tenth of the tokens it replaces"),
        "docs/QUALITY.md states the extractive summary's ratio"
    );
}

fn fmt_thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
