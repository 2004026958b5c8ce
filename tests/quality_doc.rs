//! docs/QUALITY.md states the digest's budget: its numbers are the constants of the digest and of
//! the pending-task list.
#![allow(clippy::unwrap_used)]

use context_compaction::core::summary::digest::{
    COMMAND_CHARS, FIRST_COMMANDS, MAX_COMMANDS, MAX_ERRORS, MAX_FILES, MAX_REQUESTS, REQUEST_CHARS,
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
    ] {
        assert!(doc.contains(&phrase), "docs/QUALITY.md lacks \"{phrase}\"");
    }
}
