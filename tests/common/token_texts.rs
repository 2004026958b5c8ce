//! Texts for the exact-counting differential tests: the parity corpus, every fixture file whole,
//! and every string value in the fixtures' JSON lines (the texts an agent history holds).
#![allow(dead_code, clippy::unwrap_used)]

use proptest::prelude::*;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::PathBuf;

fn strings(value: &Value, out: &mut BTreeSet<String>) {
    match value {
        Value::String(s) => {
            out.insert(s.clone());
        }
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => map.iter().for_each(|(k, v)| {
            out.insert(k.clone());
            strings(v, out);
        }),
        _ => {}
    }
}

/// The fixture files: `tests/fixtures/**`, sorted.
pub fn fixture_files() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["tests/fixtures/pi", "tests/fixtures/claude-code"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path
                .extension()
                .is_some_and(|x| x == "jsonl" || x == "json")
            {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(files.len() >= 6, "fixtures missing: {files:?}");
    files
}

/// `(what, text)` pairs: the corpus samples, each fixture whole, each distinct string in them.
pub fn all() -> Vec<(String, String)> {
    let corpus: Value = serde_json::from_str(include_str!("../data/token-parity.json")).unwrap();
    let mut out: Vec<(String, String)> = corpus
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, s)| {
            (
                format!("corpus sample {i}"),
                s["text"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let mut segments = BTreeSet::new();
    for path in fixture_files() {
        let text = std::fs::read_to_string(&path).unwrap();
        for line in text.lines() {
            if let Ok(value) = serde_json::from_str::<Value>(line) {
                strings(&value, &mut segments);
            }
        }
        out.push((path.display().to_string(), text));
    }
    out.extend(
        segments
            .into_iter()
            .map(|s| ("a fixture string".to_string(), s)),
    );
    out
}

/// Inputs that were slow or that stress one alternative: long runs of one class, and runs that
/// make the regex backtrack.
pub fn pathological() -> Vec<(&'static str, String)> {
    vec![
        ("x × 100k", "x".repeat(100_000)),
        ("40k CJK characters", "漢字かな交じり文".repeat(5_000)),
        ("a 60k '=' line", format!("{}\n", "=".repeat(60_000))),
        (
            "100k spaces then a word",
            format!("{}word", " ".repeat(100_000)),
        ),
        ("spaces and newlines", " \n\r\t\u{3000}".repeat(20_000)),
        ("digits", "0123456789".repeat(10_000)),
        ("upper then lower", "ABCDEFGHIJ".repeat(5_000) + "abc"),
        ("Lo then Lu", "中A".repeat(20_000)),
        ("marks", "e\u{301}\u{302}".repeat(20_000)),
        ("punctuation and slashes", "!/\n/".repeat(20_000)),
        ("apostrophes", "'s'S'ſ'll ".repeat(10_000)),
    ]
}

/// Characters of every class the patterns tell apart, to build dense random texts from.
const ALPHABET: &[char] = &[
    ' ', ' ', '\n', '\r', '\t', '\u{0B}', '\u{85}', '\u{A0}', '\u{2028}', '\u{3000}', '\'', 's',
    'S', 'ſ', 'l', 'L', 'v', 'e', 'r', 't', 'm', 'd', 'x', 'Q', 'é', 'É', 'ǅ', 'ʰ', '中', 'ا',
    '\u{301}', '\u{94D}', '1', '٣', '½', 'Ⅻ', '!', '/', '.', '-', '😀', '\u{200D}', '\u{0}',
];

pub fn dense_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(ALPHABET), 0..60)
        .prop_map(|chars| chars.into_iter().collect())
}
