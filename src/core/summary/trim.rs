//! Trimming the summarizer's transcript to what its prompt needs (`transcript.trim`, on by
//! default; seed 001's layout ignores it).
//!
//! Rules (the numbers are characters):
//! - a successful tool result over [`OUTPUT_TRIM_OVER`] keeps its first [`OUTPUT_HEAD`] and last
//!   [`OUTPUT_TAIL`], each cut at a line break when one lies within [`LINE_SLACK`] of the cut,
//!   with the line `[... N characters cut]` between them;
//! - a successful tool result of [`REPEAT_MIN`] or more that repeats an earlier one of the same
//!   transcript word for word is written `(same output as [n])`, `n` the earlier entry's number;
//! - a string in a tool call's input keeps its first [`INPUT_HEAD`] (the body of an edit or write,
//!   under one of [`BODY_KEYS`], its first [`BODY_HEAD`]) followed by `[... N more characters
//!   cut]`; a string cut by less than [`MARKER_ROOM`] stays whole, so paths, commands and other
//!   short values are never cut and nothing grows;
//! - errors, user text, assistant text, reasoning and everything else are never touched.

use std::collections::HashMap;

use serde_json::Value;

/// A successful tool result longer than this is trimmed.
pub const OUTPUT_TRIM_OVER: usize = 500;
/// What a trimmed tool result keeps of its beginning, at most.
pub const OUTPUT_HEAD: usize = 300;
/// What a trimmed tool result keeps of its end, at most.
pub const OUTPUT_TAIL: usize = 150;
/// A cut moves to a line break this close to it.
pub const LINE_SLACK: usize = 60;
/// A tool result at least this long that repeats an earlier one refers to it.
pub const REPEAT_MIN: usize = 200;
/// What a string in a tool call's input keeps.
pub const INPUT_HEAD: usize = 300;
/// What the body of an edit or write keeps.
pub const BODY_HEAD: usize = 80;
/// A string is cut only when it is longer than its head by more than this (the marker's room).
pub const MARKER_ROOM: usize = 64;
/// The input keys whose strings are the bodies of edits and writes (Claude Code's, pi's,
/// OpenCode's and Anthropic's text editor's names).
pub const BODY_KEYS: [&str; 10] = [
    "content",
    "new_string",
    "old_string",
    "newText",
    "oldText",
    "newString",
    "oldString",
    "new_str",
    "old_str",
    "file_text",
];

/// The successful tool results of one transcript seen so far, to refer repeats to their first
/// occurrence.
#[derive(Debug, Default)]
pub struct Repeats {
    first: HashMap<String, usize>,
}

impl Repeats {
    /// The entry number of an earlier result equal to `output` (of [`REPEAT_MIN`] characters or
    /// more); otherwise records `output` as shown in entry `number` and returns `None`.
    pub fn earlier(&mut self, output: &str, number: usize) -> Option<usize> {
        if output.chars().count() < REPEAT_MIN {
            return None;
        }
        if let Some(&n) = self.first.get(output) {
            return Some(n);
        }
        self.first.insert(output.to_string(), number);
        None
    }
}

/// The reference written instead of a repeated output.
pub fn repeat_reference(number: usize) -> String {
    format!("(same output as [{number}])")
}

/// A successful tool result's text, trimmed (see the module documentation); never longer.
pub fn output(text: &str) -> String {
    let total = text.chars().count();
    if total <= OUTPUT_TRIM_OVER {
        return text.to_string();
    }
    let head_end = byte_at(text, OUTPUT_HEAD);
    let head = text.get(..head_end).unwrap_or_default();
    // A line break near the end of the head: cut there.
    let head = match head.rfind('\n') {
        Some(at) if head.get(at..).map_or(0, |s| s.chars().count()) <= LINE_SLACK => {
            head.get(..at).unwrap_or_default()
        }
        _ => head,
    };
    let tail_start = byte_at(text, total - OUTPUT_TAIL);
    let tail = text.get(tail_start..).unwrap_or_default();
    // A line break near the start of the tail: begin after it.
    let tail = match tail.find('\n') {
        Some(at) if tail.get(..at).map_or(0, |s| s.chars().count()) < LINE_SLACK => {
            tail.get(at + 1..).unwrap_or_default()
        }
        _ => tail,
    };
    let cut = total - head.chars().count() - tail.chars().count();
    format!("{head}\n[... {cut} characters cut]\n{tail}")
}

/// A tool call's input with its long strings cut (see the module documentation); never longer
/// as compact JSON.
pub fn input(value: &Value) -> Value {
    cut_strings(value, INPUT_HEAD)
}

fn cut_strings(value: &Value, head: usize) -> Value {
    match value {
        Value::String(s) => Value::String(cut_string(s, head)),
        Value::Array(items) => Value::Array(items.iter().map(|v| cut_strings(v, head)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let keep = if BODY_KEYS.contains(&k.as_str()) {
                        BODY_HEAD
                    } else {
                        INPUT_HEAD
                    };
                    (k.clone(), cut_strings(v, keep))
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `text` cut to its first `head` characters and `[... N more characters cut]`, when that saves
/// more than [`MARKER_ROOM`] characters; otherwise whole.
pub fn cut_string(text: &str, head: usize) -> String {
    let total = text.chars().count();
    if total <= head.saturating_add(MARKER_ROOM) {
        return text.to_string();
    }
    let kept = text.get(..byte_at(text, head)).unwrap_or_default();
    format!("{kept}[... {} more characters cut]", total - head)
}

/// The byte offset of character `n` of `text` (its length when `n` is past the end).
fn byte_at(text: &str, n: usize) -> usize {
    text.char_indices().nth(n).map_or(text.len(), |(at, _)| at)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn output_keeps_head_and_tail_at_line_breaks() {
        let lines: Vec<String> = (0..100).map(|i| format!("line {i:03} .....")).collect();
        let text = lines.join("\n"); // 14 characters a line, 15 with its break
        let out = output(&text);
        // The head ends at the last full line within 300 characters, the tail starts at a line.
        assert!(out.starts_with("line 000 .....\n"));
        assert!(out.contains("line 019 .....\n[... "), "{out}");
        assert!(out.ends_with("line 099 ....."));
        assert!(out.contains("characters cut]\nline 090"), "{out}");
        assert!(out.chars().count() < text.chars().count());
        assert_eq!(output("short"), "short");
    }

    #[test]
    fn input_cuts_bodies_and_long_strings_only() {
        let v =
            json!({"file_path": "/a/b.rs", "content": "x".repeat(1_000), "note": "y".repeat(330)});
        let t = input(&v);
        assert_eq!(t["file_path"], "/a/b.rs");
        assert_eq!(
            t["content"],
            format!("{}[... 920 more characters cut]", "x".repeat(80))
        );
        assert_eq!(t["note"], "y".repeat(330), "within the marker's room");
        assert!(t.to_string().len() < v.to_string().len());
    }

    #[test]
    fn repeats_refer_to_the_first() {
        let mut r = Repeats::default();
        let long = "z".repeat(REPEAT_MIN);
        assert_eq!(r.earlier(&long, 3), None);
        assert_eq!(r.earlier("short", 4), None);
        assert_eq!(r.earlier("short", 5), None);
        assert_eq!(r.earlier(&long, 9), Some(3));
    }
}
