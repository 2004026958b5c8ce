//! The character classes the tiktoken patterns use, one lookup per character: ASCII from a
//! 128-entry table, the rest by binary search over the runs of `table.rs` (generated from
//! regex-syntax's Unicode tables, so the classes are exactly the regex engine's).

use super::table::{ASCII, RUNS};

/// `\p{L}`: Lu, Ll, Lt, Lm, Lo.
pub const LETTER: u8 = 1;
/// `\p{N}`.
pub const NUMBER: u8 = 2;
/// `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`: o200k's leading letters.
pub const UPPER: u8 = 4;
/// `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`: o200k's trailing letters.
pub const LOWER: u8 = 8;
/// `\s` as Rust's regex means it: the Unicode White_Space property.
pub const SPACE: u8 = 16;

/// One character of the text: its flags and its length in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Char {
    pub flags: u8,
    pub len: usize,
}

/// The flags of a code point.
pub fn flags_of(cp: u32) -> u8 {
    if let Some(&f) = usize::try_from(cp).ok().and_then(|i| ASCII.get(i)) {
        return f;
    }
    let key = (cp << 8) | 0xFF;
    let run = RUNS.partition_point(|&r| r <= key);
    run.checked_sub(1)
        .and_then(|i| RUNS.get(i))
        .map_or(0, |&r| (r & 0xFF) as u8)
}

/// The character starting at byte `i` of `text` (valid UTF-8), or `None` at the end.
#[inline(always)]
pub fn char_at(text: &[u8], i: usize) -> Option<Char> {
    let &b0 = text.get(i)?;
    if b0 < 0x80 {
        return Some(Char {
            flags: ASCII.get(usize::from(b0)).copied().unwrap_or(0),
            len: 1,
        });
    }
    Some(wide_char_at(text, i, b0))
}

/// A character of two to four bytes, whose first byte `b0` is at `i`.
#[inline(never)]
fn wide_char_at(text: &[u8], i: usize, b0: u8) -> Char {
    let cont = |k: usize| u32::from(text.get(i + k).copied().unwrap_or(0x80) & 0x3F);
    let (cp, len) = if b0 < 0xE0 {
        ((u32::from(b0 & 0x1F) << 6) | cont(1), 2)
    } else if b0 < 0xF0 {
        ((u32::from(b0 & 0x0F) << 12) | (cont(1) << 6) | cont(2), 3)
    } else {
        (
            (u32::from(b0 & 0x07) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3),
            4,
        )
    };
    // The CJK ideographs, most of the non-ASCII text in practice, without a search.
    let flags = if (0x4E00..=0x9FFF).contains(&cp) {
        CJK
    } else {
        flags_of(cp)
    };
    Char { flags, len }
}

/// The flags of U+4E00..=U+9FFF (all Lo), checked against the table by the tests.
const CJK: u8 = LETTER | UPPER | LOWER;

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn decodes_and_classifies() {
        let text = "a1 Éé中\u{301}\u{3000}😀";
        let got: Vec<(u8, usize)> = text
            .char_indices()
            .map(|(i, _)| char_at(text.as_bytes(), i).unwrap())
            .map(|c| (c.flags, c.len))
            .collect();
        assert_eq!(
            got,
            vec![
                (LETTER | LOWER, 1),
                (NUMBER, 1),
                (SPACE, 1),
                (LETTER | UPPER, 2),
                (LETTER | LOWER, 2),
                (LETTER | UPPER | LOWER, 3),
                (UPPER | LOWER, 2),
                (SPACE, 3),
                (0, 4),
            ]
        );
        assert_eq!(char_at(text.as_bytes(), text.len()), None);
        assert!((0x4E00..=0x9FFF).all(|cp| flags_of(cp) == CJK));
    }
}
