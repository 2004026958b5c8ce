//! JSONL text read a piece at a time: [`LineSplitter`] is fed pieces cut anywhere (inside a line,
//! inside a UTF-8 sequence) and hands each line to its reader as soon as its newline arrives, so a
//! reader never holds more text than the line it is reading. A line never holds a `\n` byte and no
//! UTF-8 sequence does either, so cutting at `\n` bytes cuts between characters.
//!
//! Whole-text readers are these readers fed once: there is no second implementation.

use std::borrow::Cow;
use std::str::Utf8Error;

use crate::core::error::Result;

/// One line of JSONL text.
#[derive(Debug)]
pub struct Line<'a> {
    /// 1-based, counting every line (blank ones too).
    pub number: usize,
    /// The line without its `\n` and without a `\r` before it; an error when its bytes are not
    /// UTF-8 (a write cut inside a character, or not text at all).
    pub text: std::result::Result<&'a str, Utf8Error>,
    /// False for the text after the last newline: a line that may have been cut short.
    pub ended: bool,
}

/// Cuts JSONL text fed in pieces into lines (see the module documentation).
#[derive(Debug, Default)]
pub struct LineSplitter {
    /// The start of the line the next piece continues.
    partial: Vec<u8>,
    /// Lines handed out so far.
    number: usize,
}

/// What a reader does with each line.
pub type OnLine<'f> = dyn FnMut(Line<'_>) -> Result<()> + 'f;

impl LineSplitter {
    /// A splitter at the start of the text.
    pub fn new() -> LineSplitter {
        LineSplitter::default()
    }

    /// Feeds the next piece: `on_line` gets each line the piece completes, in order.
    pub fn push(&mut self, piece: &[u8], on_line: &mut OnLine<'_>) -> Result<()> {
        let mut rest = piece;
        while let Some(at) = rest.iter().position(|&b| b == b'\n') {
            let (head, tail) = rest.split_at(at);
            rest = tail.get(1..).unwrap_or_default();
            self.number += 1;
            if self.partial.is_empty() {
                on_line(line(self.number, head, true))?;
            } else {
                self.partial.extend_from_slice(head);
                let whole = std::mem::take(&mut self.partial);
                on_line(line(self.number, &whole, true))?;
                // Keep the allocation for the next long line, emptied.
                self.partial = whole;
                self.partial.clear();
            }
        }
        self.partial.extend_from_slice(rest);
        Ok(())
    }

    /// Ends the text: `on_line` gets the text after the last newline, if there is any, as a line
    /// that is not `ended`.
    pub fn finish(&mut self, on_line: &mut OnLine<'_>) -> Result<()> {
        if self.partial.is_empty() {
            return Ok(());
        }
        self.number += 1;
        let rest = std::mem::take(&mut self.partial);
        on_line(line(self.number, &rest, false))
    }
}

fn line(number: usize, bytes: &[u8], ended: bool) -> Line<'_> {
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    Line {
        number,
        text: std::str::from_utf8(bytes),
        ended,
    }
}

/// A change made to each line's text before it is read (the binding's lone-surrogate marks).
pub type LineMap = fn(&str) -> Cow<'_, str>;

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn split(pieces: &[&[u8]]) -> Vec<(usize, String, bool)> {
        let mut out = Vec::new();
        let mut splitter = LineSplitter::new();
        let mut on = |l: Line<'_>| {
            let text = l.text.map_or_else(|_| "<bad>".to_string(), str::to_string);
            out.push((l.number, text, l.ended));
            Ok(())
        };
        for piece in pieces {
            splitter.push(piece, &mut on).unwrap();
        }
        splitter.finish(&mut on).unwrap();
        out
    }

    #[test]
    fn pieces_cut_anywhere_give_the_lines_of_the_whole_text() {
        let text = "{\"a\":\"é😀\"}\r\n\n{\"b\":1}\n{\"c\"";
        let whole = split(&[text.as_bytes()]);
        assert_eq!(
            whole,
            vec![
                (1, "{\"a\":\"é😀\"}".into(), true),
                (2, String::new(), true),
                (3, "{\"b\":1}".into(), true),
                (4, "{\"c\"".into(), false),
            ]
        );
        let bytes = text.as_bytes();
        for size in 1..bytes.len() {
            let pieces: Vec<&[u8]> = bytes.chunks(size).collect();
            assert_eq!(split(&pieces), whole, "pieces of {size} bytes");
        }
    }

    #[test]
    fn a_line_cut_inside_a_character_is_not_text() {
        let bytes = "x\né".as_bytes();
        let cut = bytes.get(..bytes.len() - 1).unwrap();
        let lines = split(&[cut]);
        assert_eq!(lines.last().unwrap(), &(2, "<bad>".to_string(), false));
        assert!(split(&[b"\n"])
            .iter()
            .all(|(_, t, ended)| t.is_empty() && *ended));
        assert!(split(&[]).is_empty());
    }
}
