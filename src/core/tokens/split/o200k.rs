//! `o200k_base`'s pattern, alternative by alternative:
//!
//! ```text
//! [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//! |[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//! |\p{N}{1,3}
//! | ?[^\s\p{L}\p{N}]+[\r\n/]*
//! |\s*[\r\n]+
//! |\s+(?!\S)
//! |\s+
//! ```
//!
//! The pattern backtracks, which matters in the first alternative: the upper run gives characters
//! back until a lower one can follow (Lm, Lo and M are in both classes).

use super::class::{char_at, Char, LOWER, NUMBER, SPACE, UPPER};
use super::{
    contraction_len, digits_end, is_newline, is_word_prefix, punct_end, run_while, space_end,
};

/// The end of the piece starting at `i` (`i` is a character boundary before the end).
pub fn piece_end(text: &[u8], i: usize) -> usize {
    let Some(c) = char_at(text, i) else {
        return text.len();
    };
    let prefixed = is_word_prefix(text, i, c);
    let after = i + c.len;
    let word = (prefixed.then(|| lower_word(text, after)).flatten())
        .or_else(|| lower_word(text, i))
        .or_else(|| prefixed.then(|| upper_word(text, after)).flatten())
        .or_else(|| upper_word(text, i));
    if let Some(end) = word {
        return end;
    }
    if c.flags & NUMBER != 0 {
        return digits_end(text, i);
    }
    if let Some(end) = punct_end(text, i, |b| is_newline(b) || b == b'/') {
        return end;
    }
    if c.flags & SPACE != 0 {
        return space_end(text, i);
    }
    i + c.len
}

#[inline(always)]
fn is_upper(c: Char) -> bool {
    c.flags & UPPER != 0
}

#[inline(always)]
fn is_lower(c: Char) -> bool {
    c.flags & LOWER != 0
}

/// `U*L+C?` at `i`: the greedy upper run gives back characters until a lower one starts.
#[inline(always)]
fn lower_word(text: &[u8], i: usize) -> Option<usize> {
    // The start of the last character of the upper run that is also lower, and the run's end.
    let mut last_lower = None;
    let mut end = i;
    while let Some(c) = char_at(text, end) {
        if !is_upper(c) {
            break;
        }
        if is_lower(c) {
            last_lower = Some(end);
        }
        end += c.len;
    }
    let start = match char_at(text, end) {
        Some(c) if is_lower(c) => end,
        _ => last_lower?,
    };
    Some(contraction_end(text, run_while(text, start, is_lower)))
}

/// `U+L*C?` at `i`.
#[inline(always)]
fn upper_word(text: &[u8], i: usize) -> Option<usize> {
    let upper_end = run_while(text, i, is_upper);
    if upper_end == i {
        return None;
    }
    Some(contraction_end(text, run_while(text, upper_end, is_lower)))
}

/// After a word: `(?i:'s|'t|'re|'ve|'m|'ll|'d)?`.
#[inline(always)]
fn contraction_end(text: &[u8], i: usize) -> usize {
    if text.get(i) == Some(&b'\'') {
        if let Some(len) = contraction_len(text, i + 1) {
            return i + 1 + len;
        }
    }
    i
}
