//! The hand-written pre-tokenizers against the regular expressions they replace: the character
//! classes equal regex-syntax's for every code point, and the pieces equal fancy-regex's on real
//! texts, pathological runs and random strings.
#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

#[path = "common/char_classes.rs"]
mod char_classes;
#[path = "common/token_texts.rs"]
mod token_texts;

use context_compaction::core::tokens::split::class::flags_of;
use context_compaction::core::tokens::split::{pieces, Pattern};
use fancy_regex::Regex;
use proptest::prelude::*;
use std::sync::OnceLock;

const CL100K: &str = r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s";

fn regex(pattern: Pattern) -> &'static Regex {
    static O200K: OnceLock<Regex> = OnceLock::new();
    static CL: OnceLock<Regex> = OnceLock::new();
    match pattern {
        Pattern::O200k => {
            O200K.get_or_init(|| Regex::new(tiktoken_rs::O200K_BASE_PAT_STR).unwrap())
        }
        Pattern::Cl100k => CL.get_or_init(|| Regex::new(CL100K).unwrap()),
    }
}

/// The pieces fancy-regex finds, or `None` if it gave up (backtracking limit).
fn reference(pattern: Pattern, text: &str) -> Option<Vec<&str>> {
    regex(pattern)
        .find_iter(text)
        .map(|m| m.ok().map(|m| m.as_str()))
        .collect()
}

fn assert_same_pieces(text: &str, what: &str) {
    for pattern in [Pattern::O200k, Pattern::Cl100k] {
        let expected = reference(pattern, text)
            .unwrap_or_else(|| panic!("{pattern:?}: fancy-regex gave up on {what}"));
        let got: Vec<&str> = pieces(pattern, text).collect();
        if got != expected {
            let at = got.iter().zip(&expected).position(|(a, b)| a != b);
            let at = at.unwrap_or(got.len().min(expected.len()));
            panic!(
                "{pattern:?} on {what}: piece {at} is {:?}, the regex's {:?}",
                got.get(at),
                expected.get(at)
            );
        }
    }
}

#[test]
fn the_committed_table_is_regex_syntaxs() {
    let committed = include_str!("../src/core/tokens/split/table.rs");
    assert!(
        committed == char_classes::render(),
        "src/core/tokens/split/table.rs is stale: cargo run --example gen_char_classes > src/core/tokens/split/table.rs"
    );
    let flags = char_classes::flags();
    for (cp, &expected) in flags.iter().enumerate() {
        assert_eq!(flags_of(cp as u32), expected, "U+{cp:04X}");
    }
}

#[test]
fn contractions_fold_case_as_the_regex_does() {
    // The letters of `(?i:'s|'t|'re|'ve|'m|'ll|'d)` match these code points and no others.
    let folded = char_classes::ranges("(?i:[sdmtlvre])");
    let mut expected: Vec<(u32, u32)> = "DELMRSTVdelmrstv"
        .chars()
        .map(|c| (c as u32, c as u32))
        .collect();
    expected.push((0x17F, 0x17F));
    let flat: Vec<(u32, u32)> = folded
        .iter()
        .flat_map(|&(lo, hi)| (lo..=hi).map(|c| (c, c)))
        .collect();
    assert_eq!(flat, expected);
    for text in [
        "it'ſ", "IT'S", "we'LL", "They'Ve", "'ſ x", "'RE", "'Dd", "'l", "ſ'ſ",
    ] {
        assert_same_pieces(text, text);
    }
}

#[test]
fn same_pieces_on_the_fixtures() {
    for (what, text) in token_texts::all() {
        assert_same_pieces(&text, &what);
    }
}

#[test]
fn same_pieces_on_pathological_inputs() {
    for (what, text) in token_texts::pathological() {
        assert_same_pieces(&text, what);
    }
}

proptest! {
    #[test]
    fn same_pieces_on_random_texts(text in token_texts::dense_text(), other in "\\PC{0,40}") {
        assert_same_pieces(&text, "a random text");
        assert_same_pieces(&other, "a random text");
        assert_same_pieces(&format!("{other}{text}"), "a random text");
    }
}
