//! The one way tests reach the real sessions of `tests/fixtures` (pi and Claude Code, MIT, licenses
//! beside them). A missing fixture fails the test that needs it: the suite never passes by skipping.
#![allow(dead_code, clippy::unwrap_used, clippy::panic)]

use std::path::PathBuf;

/// `tests/fixtures`, which must exist.
pub fn root() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    assert!(root.is_dir(), "fixtures missing at {}", root.display());
    root
}

/// The text of `tests/fixtures/<rel>`.
pub fn text(rel: &str) -> String {
    let path = root().join(rel);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("fixture missing at {}: {e}", path.display()))
}

/// The `.jsonl` session files of `tests/fixtures/<sub>` (`pi`, `claude-code`), sorted; at least one.
pub fn files(sub: &str) -> Vec<PathBuf> {
    let dir = root().join(sub);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("fixtures missing at {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no sessions in {}", dir.display());
    files
}
