//! Lone surrogates in a Rust string. A JS string may hold a UTF-16 surrogate without its pair (a
//! cut emoji); a Rust string cannot. The binding writes each one as [`MARK`] followed by a
//! private-use character that names it (U+D800 + k as U+E000 + k), and a [`MARK`] of the text
//! itself as two of them, so the text survives the core unchanged. JSON text leaves the package
//! with each marked surrogate as the `\udXXX` escape `JSON.stringify` writes
//! ([`marks_to_escapes`]), and JSON text read by it turns those escapes back into marks
//! ([`escapes_to_marks`]): a session log keeps lone surrogates across `toJSONL` / `fromJSONL`.

use std::borrow::Cow;

/// The noncharacter U+FDD0 (reserved by Unicode for a program's internal use) that starts a mark.
pub const MARK: char = '\u{FDD0}';

const FIRST_SURROGATE: u32 = 0xD800;
const LAST_SURROGATE: u32 = 0xDFFF;
const FIRST_NAME: u32 = 0xE000;

/// The marked form of a lone surrogate `unit` (U+D800 to U+DFFF); `None` for any other unit.
pub fn name_of(unit: u16) -> Option<char> {
    let unit = u32::from(unit);
    if !(FIRST_SURROGATE..=LAST_SURROGATE).contains(&unit) {
        return None;
    }
    char::from_u32(FIRST_NAME + unit - FIRST_SURROGATE)
}

/// [`marks_to_escapes`] of owned text: the text itself when it holds no mark (no copy).
pub fn marks_to_escapes_owned(text: String) -> String {
    match marks_to_escapes(&text) {
        Cow::Borrowed(_) => text,
        Cow::Owned(escaped) => escaped,
    }
}

/// [`escapes_to_marks`] of owned text: the text itself when it holds no escape (no copy).
pub fn escapes_to_marks_owned(text: String) -> String {
    match escapes_to_marks(&text) {
        Cow::Borrowed(_) => text,
        Cow::Owned(marked) => marked,
    }
}

/// JSON text (as written by `serde_json`) with every mark written as JSON text reads it back in
/// JS: a marked surrogate as its `\udXXX` escape, a doubled [`MARK`] as one. Text without a mark
/// is returned as it is.
pub fn marks_to_escapes(json: &str) -> Cow<'_, str> {
    if !json.contains(MARK) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 8);
    let mut chars = json.chars();
    while let Some(c) = chars.next() {
        if c != MARK {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some(MARK) => out.push(MARK),
            Some(n) if (FIRST_NAME..=FIRST_NAME + 0x7FF).contains(&u32::from(n)) => {
                let unit = u32::from(n) - FIRST_NAME + FIRST_SURROGATE;
                out.push_str(&format!("\\u{unit:04x}"));
            }
            // Not a mark the binding wrote: kept as it is.
            Some(n) => {
                out.push(MARK);
                out.push(n);
            }
            None => out.push(MARK),
        }
    }
    Cow::Owned(out)
}

/// The bytes of [`MARK`] in UTF-8.
const MARK_UTF8: [u8; 3] = [0xEF, 0xB7, 0x90];

/// False when `json` holds neither a `\ud`/`\uD` escape nor a [`MARK`], in one pass over its
/// bytes (every line of a log read back goes through here); true may be a false alarm (an escaped
/// backslash before `ud`), which [`escapes_to_marks`] then reads properly.
fn may_hold_escape_or_mark(json: &[u8]) -> bool {
    let mut rest = json;
    while let Some(at) = rest.iter().position(|&b| b == b'\\' || b == MARK_UTF8[0]) {
        let tail = rest.get(at..).unwrap_or_default();
        let found = match tail.first() {
            Some(b'\\') => tail.get(1) == Some(&b'u') && matches!(tail.get(2), Some(b'd' | b'D')),
            _ => tail.starts_with(&MARK_UTF8),
        };
        if found {
            return true;
        }
        rest = tail.get(1..).unwrap_or_default();
    }
    false
}

/// JSON text (a session log, a session file) with every `\udXXX` escape of a lone surrogate
/// turned into its mark and every [`MARK`] of the text doubled, so that `serde_json` reads it and
/// [`marks_to_escapes`] writes it back the same. Text with neither is returned as it is.
pub fn escapes_to_marks(json: &str) -> Cow<'_, str> {
    if !may_hold_escape_or_mark(json.as_bytes()) {
        return Cow::Borrowed(json);
    }
    let bytes = json.as_bytes();
    let mut out = String::with_capacity(json.len());
    let mut copied = 0;
    let mut i = 0;
    let mut in_string = false;
    while i < bytes.len() {
        match bytes.get(i) {
            Some(b'"') => {
                in_string = !in_string;
                i += 1;
            }
            Some(b'\\') if in_string => {
                let Some(unit) = hex_escape(bytes, i) else {
                    i += 2;
                    continue;
                };
                if !(FIRST_SURROGATE..=LAST_SURROGATE).contains(&u32::from(unit)) {
                    i += 6;
                    continue;
                }
                let high = unit < 0xDC00;
                let paired = high
                    && hex_escape(bytes, i + 6).is_some_and(|u| (0xDC00..=0xDFFF).contains(&u));
                if paired {
                    i += 12;
                    continue;
                }
                // A low surrogate after a high one was consumed with it above: this one is lone.
                out.push_str(json.get(copied..i).unwrap_or_default());
                out.extend(name_of(unit).map(|n| [MARK, n]).into_iter().flatten());
                i += 6;
                copied = i;
            }
            Some(_) if json.get(i..).is_some_and(|rest| rest.starts_with(MARK)) => {
                out.push_str(json.get(copied..i).unwrap_or_default());
                out.push(MARK);
                out.push(MARK);
                i += MARK.len_utf8();
                copied = i;
            }
            _ => i += 1,
        }
    }
    out.push_str(json.get(copied..).unwrap_or_default());
    Cow::Owned(out)
}

/// The unit of a `\uXXXX` escape starting at `at`, if there is one.
fn hex_escape(bytes: &[u8], at: usize) -> Option<u16> {
    if bytes.get(at) != Some(&b'\\') || bytes.get(at + 1) != Some(&b'u') {
        return None;
    }
    let hex = std::str::from_utf8(bytes.get(at + 2..at + 6)?).ok()?;
    u16::from_str_radix(hex, 16).ok()
}

/// [`marks_to_escapes`] of an owned text, without a copy when it holds no mark.
pub fn escaped(text: String) -> String {
    match marks_to_escapes(&text) {
        Cow::Borrowed(_) => text,
        Cow::Owned(escaped) => escaped,
    }
}

/// [`escapes_to_marks`] of an owned text, without a copy when it holds no escape.
pub fn marked(text: String) -> String {
    match escapes_to_marks(&text) {
        Cow::Borrowed(_) => text,
        Cow::Owned(marked) => marked,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marked(unit: u16) -> String {
        [MARK, name_of(unit).unwrap_or(MARK)].iter().collect()
    }

    #[test]
    fn lone_escapes_become_marks_and_back() {
        let json = r#"{"a":"x\ud83d y","b":"\ude00","c":"\ud83d\ude00","d":"\\ud800"}"#;
        let read = escapes_to_marks(json);
        let value: serde_json::Value = serde_json::from_str(&read).unwrap_or_default();
        let field = |k: &str| {
            value
                .get(k)
                .and_then(serde_json::Value::as_str)
                .map(str::to_string)
        };
        assert_eq!(field("a"), Some(format!("x{} y", marked(0xD83D))));
        assert_eq!(field("b"), Some(marked(0xDE00)));
        assert_eq!(field("c").as_deref(), Some("😀"));
        assert_eq!(field("d").as_deref(), Some("\\ud800"));
        let written = serde_json::to_string(&value).unwrap_or_default();
        assert_eq!(
            marks_to_escapes(&written),
            r#"{"a":"x\ud83d y","b":"\ude00","c":"😀","d":"\\ud800"}"#
        );
    }

    #[test]
    fn a_mark_of_the_text_survives() {
        let json = "{\"a\":\"\u{FDD0}\u{E000}\"}";
        let read = escapes_to_marks(json);
        let value: serde_json::Value = serde_json::from_str(&read).unwrap_or_default();
        let written = serde_json::to_string(&value).unwrap_or_default();
        assert_eq!(marks_to_escapes(&written), json);
    }

    #[test]
    fn text_without_either_is_borrowed() {
        assert!(matches!(
            escapes_to_marks(r#"{"a":"\u00e9"}"#),
            Cow::Borrowed(_)
        ));
        assert!(matches!(marks_to_escapes(r#"{"a":"b"}"#), Cow::Borrowed(_)));
    }

    #[test]
    fn the_quick_scan_finds_every_escape_and_mark() {
        let found = |s: &str| may_hold_escape_or_mark(s.as_bytes());
        for s in [
            r#""\ud800""#,
            r#""x\uDBFF""#,
            "\u{FDD0}",
            "é\u{FDD0}",
            r#"\\ud8"#,
            r#"a\\\ud800"#,
        ] {
            assert!(found(s), "{s}");
        }
        for s in [
            r#""\u00e9""#,
            r#""\n\t\\""#,
            "\u{FDD1}é😀",
            "\\",
            "\\u",
            "\u{FDCF}",
            "",
        ] {
            assert!(!found(s), "{s}");
        }
    }
}
