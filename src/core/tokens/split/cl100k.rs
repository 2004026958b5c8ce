//! `cl100k_base`'s pattern, alternative by alternative:
//!
//! ```text
//! '(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+
//! |\s++$|\s*[\r\n]|\s+(?!\S)|\s
//! ```
//!
//! Its quantifiers are possessive, so only the whitespace alternatives need any care.

use super::class::{char_at, LETTER, NUMBER, SPACE};
use super::{
    contraction_len, digits_end, is_newline, is_word_prefix, punct_end, run_while, space_end,
};

/// The end of the piece starting at `i` (`i` is a character boundary before the end).
pub fn piece_end(text: &[u8], i: usize) -> usize {
    let Some(c) = char_at(text, i) else {
        return text.len();
    };
    if text.get(i) == Some(&b'\'') {
        if let Some(len) = contraction_len(text, i + 1) {
            return i + 1 + len;
        }
    }
    let letters = if is_word_prefix(text, i, c) {
        i + c.len
    } else {
        i
    };
    let letters_end = run_while(text, letters, |c| c.flags & LETTER != 0);
    if letters_end > letters {
        return letters_end;
    }
    if c.flags & NUMBER != 0 {
        return digits_end(text, i);
    }
    if let Some(end) = punct_end(text, i, is_newline) {
        return end;
    }
    if c.flags & SPACE != 0 {
        // `\s++$` comes first: whitespace that ends the text is one piece.
        let end = run_while(text, i, |c| c.flags & SPACE != 0);
        if end >= text.len() {
            return end;
        }
        return space_end(text, i);
    }
    i + c.len
}
