//! The pre-tokenizers of `o200k_base` and `cl100k_base`, written by hand: they cut a text into
//! exactly the pieces tiktoken's regular expressions find (leftmost-first, with the patterns'
//! backtracking), in one forward pass with no regex engine. Every step looks at each character a
//! bounded number of times, so splitting is linear in the text's length.

mod cl100k;
pub mod class;
mod o200k;
mod table;

use class::{char_at, Char, LETTER, NUMBER, SPACE};

/// Which pattern to split with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// `o200k_base`'s pattern (tiktoken-rs's `O200K_BASE_PAT_STR`).
    O200k,
    /// `cl100k_base`'s pattern.
    Cl100k,
}

/// The pieces of `text`, in order; together they are the whole text.
pub fn pieces(pattern: Pattern, text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= bytes.len() {
            return None;
        }
        let end = match pattern {
            Pattern::O200k => o200k::piece_end(bytes, start),
            Pattern::Cl100k => cl100k::piece_end(bytes, start),
        };
        // Never stuck and never inside a character, whatever the matchers return.
        let end = next_boundary(bytes, end.max(start + 1));
        let piece = text.get(start..end).unwrap_or_default();
        start = end;
        Some(piece)
    })
}

/// `i`, or the next character boundary after it.
#[inline(always)]
fn next_boundary(text: &[u8], mut i: usize) -> usize {
    while text.get(i).is_some_and(|b| b & 0xC0 == 0x80) {
        i += 1;
    }
    i.min(text.len())
}

/// The end of the run of characters from `i` whose flags satisfy `keep`.
#[inline(always)]
fn run_while(text: &[u8], mut i: usize, keep: impl Fn(Char) -> bool) -> usize {
    while let Some(c) = char_at(text, i) {
        if !keep(c) {
            break;
        }
        i += c.len;
    }
    i
}

/// `b` is `\r` or `\n`.
#[inline(always)]
fn is_newline(b: u8) -> bool {
    b == b'\r' || b == b'\n'
}

/// `[^\r\n\p{L}\p{N}]`: the optional character before a word.
#[inline(always)]
fn is_word_prefix(text: &[u8], i: usize, c: Char) -> bool {
    c.flags & (LETTER | NUMBER) == 0 && !text.get(i).copied().is_some_and(is_newline)
}

/// `[^\s\p{L}\p{N}]`: punctuation and symbols.
#[inline(always)]
fn is_punct(c: Char) -> bool {
    c.flags & (SPACE | LETTER | NUMBER) == 0
}

/// `\p{N}{1,3}` at `i` (whose character is a number).
#[inline(always)]
fn digits_end(text: &[u8], i: usize) -> usize {
    let mut end = i;
    for _ in 0..3 {
        match char_at(text, end) {
            Some(c) if c.flags & NUMBER != 0 => end += c.len,
            _ => break,
        }
    }
    end
}

/// `' ?[^\s\p{L}\p{N}]+` then `tail*` for the bytes `tail` accepts, or `None`.
#[inline(always)]
fn punct_end(text: &[u8], i: usize, tail: impl Fn(u8) -> bool) -> Option<usize> {
    let start = if text.get(i) == Some(&b' ') { i + 1 } else { i };
    let end = run_while(text, start, is_punct);
    if end == start {
        return None;
    }
    let mut end = end;
    while text.get(end).copied().is_some_and(&tail) {
        end += 1;
    }
    Some(end)
}

/// The length of `(?i:s|t|m|d|ll|ve|re)` at `i` (after an apostrophe), case-insensitive as
/// Unicode folds it (`ſ`, U+017F, is an `s`).
#[inline(always)]
fn contraction_len(text: &[u8], i: usize) -> Option<usize> {
    let at = |k: usize| text.get(i + k).map(u8::to_ascii_lowercase);
    match (at(0)?, at(1)) {
        (b's' | b't' | b'm' | b'd', _) => Some(1),
        (b'l', Some(b'l')) | (b'v' | b'r', Some(b'e')) => Some(2),
        (0xC5, _) if text.get(i + 1) == Some(&0xBF) => Some(2),
        _ => None,
    }
}

/// The whitespace run at `i` (whose character is whitespace): its end, the start of its last
/// character, and the end of its last `\r` or `\n` if it holds one.
struct SpaceRun {
    end: usize,
    last: usize,
    newline_end: Option<usize>,
}

fn space_run(text: &[u8], i: usize) -> SpaceRun {
    let mut run = SpaceRun {
        end: i,
        last: i,
        newline_end: None,
    };
    while let Some(c) = char_at(text, run.end) {
        if c.flags & SPACE == 0 {
            break;
        }
        if text.get(run.end).copied().is_some_and(is_newline) {
            run.newline_end = Some(run.end + 1);
        }
        run.last = run.end;
        run.end += c.len;
    }
    run
}

/// The whitespace alternatives both patterns end with, at `i` (whose character is whitespace):
/// `\s*[\r\n]` (up to the run's last newline), then `\s+(?!\S)` (the run, less its last
/// character unless the text ends there), then `\s` or `\s+` (the run).
fn space_end(text: &[u8], i: usize) -> usize {
    let run = space_run(text, i);
    if let Some(end) = run.newline_end {
        end
    } else if run.end >= text.len() || run.last == i {
        run.end
    } else {
        run.last
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_cover_the_text() {
        for pattern in [Pattern::O200k, Pattern::Cl100k] {
            let text = "Hello, world!  It's 12345 \u{3000}中文\r\n\n  x";
            let joined: String = pieces(pattern, text).collect();
            assert_eq!(joined, text);
        }
    }
}
