//! Reading a session log back: exactly as lenient as a log written by a process that may have
//! died mid-line, and as strict as the live context needs. [`LogReader`] reads it a piece at a
//! time (each entry as its line completes); [`read`] is the same reader fed the whole text.
//!
//! Lenient (both modes):
//! - a byte-order mark before the header is skipped;
//! - a lone UTF-16 surrogate escape (`"\ud800"`, which `JSON.stringify` writes for a string
//!   holding one) is read as U+FFFD instead of refusing the line; the line itself is kept as
//!   written;
//! - `""` (what an empty Session writes) is an empty log: [`read`] gives `None`.
//!
//! A torn last line (it does not end with a newline and is not valid JSON: a write cut short) is
//! left out and reported ([`LoadReport::torn_line`]); with `strict` it is refused instead.
//!
//! Strict (both modes), each refusal `INVALID_INPUT` naming the line:
//! - a `parentId` that names the entry itself or one on a later line (entries are written after
//!   their parent, so this is the only way a cycle can form);
//! - a `parentId` that names no entry: anywhere in a log without a compaction, and after the
//!   start of the live range (the latest compaction's first kept entry) in one with a compaction.
//!   A log read in part (a store's live lines) starts there, so the entries up to it may have lost
//!   their parent;
//! - an id named by the latest compaction (`firstKeptEntryId`, `systemEntryIds`,
//!   `pinnedEntryIds`, `keptEntryIds`) that names no entry: the live context would silently lose messages.

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::Value;

use crate::core::error::{Error, Result};
use crate::core::jsonl::{Line, LineMap, LineSplitter};
use crate::core::message::Message;
use crate::core::pieces::PieceReader;

use super::entry::{self, Entry, EntryKind, Header};
use super::Import;

/// How a log is read.
#[derive(Clone, Copy, Debug, Default)]
pub struct LoadOptions {
    /// Refuse a torn last line instead of leaving it out.
    pub strict: bool,
    /// A change made to each line before it is read (the binding's lone-surrogate marks).
    pub map: Option<LineMap>,
}

/// What reading a log noticed without refusing it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoadReport {
    /// The 1-based number of a torn last line that was left out, and why it did not parse.
    pub torn_line: Option<(usize, String)>,
}

/// A log read back: its header, its entries in order and their ids, and the report.
#[derive(Debug)]
pub struct Loaded {
    pub header: Header,
    pub log: Vec<Entry>,
    pub ids: HashMap<String, usize>,
    pub report: LoadReport,
}

/// The text without a leading byte-order mark.
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// The header of `text`, or `None` for an empty log (nothing but whitespace and a byte-order
/// mark).
pub fn header(text: &str) -> Result<Option<Header>> {
    match strip_bom(text).lines().find(|l| !l.trim().is_empty()) {
        None => Ok(None),
        Some(line) => Header::read(line.strip_suffix('\r').unwrap_or(line)).map(Some),
    }
}

/// Reads `text` (see the module documentation); `None` for an empty log. It is [`LogReader`]
/// fed the whole text at once.
pub fn read(text: &str, import: Import<'_>, options: LoadOptions) -> Result<Option<Loaded>> {
    let mut reader = LogReader::new(options, |_: &Header| Ok(import));
    reader.push(text.as_bytes())?;
    reader.finish()
}

/// Reads a log fed a piece at a time (pieces cut anywhere, [`crate::core::jsonl`]): each entry
/// is read as soon as its line is complete, so only the entries and one line are held. `choose`
/// gives the message importer for the format the header names.
pub struct LogReader<C, I> {
    splitter: LineSplitter,
    state: State<C, I>,
}

struct State<C, I> {
    options: LoadOptions,
    choose: C,
    head: Option<(Header, I)>,
    log: Vec<Entry>,
    numbers: Vec<usize>,
    ids: HashMap<String, usize>,
    report: LoadReport,
}

impl<C, I> LogReader<C, I>
where
    C: FnMut(&Header) -> Result<I>,
    I: Fn(&Value, &str) -> Result<Message>,
{
    /// A reader at the start of a log.
    pub fn new(options: LoadOptions, choose: C) -> LogReader<C, I> {
        LogReader {
            splitter: LineSplitter::new(),
            state: State {
                options,
                choose,
                head: None,
                log: Vec::new(),
                numbers: Vec::new(),
                ids: HashMap::new(),
                report: LoadReport::default(),
            },
        }
    }

    /// Feeds the next piece of the log; a bad line that a newline ends is refused here.
    pub fn push(&mut self, piece: &[u8]) -> Result<()> {
        let state = &mut self.state;
        self.splitter.push(piece, &mut |line| state.line(line))
    }

    /// Ends the log: its last line, then the link rules; `None` for an empty log.
    pub fn finish(mut self) -> Result<Option<Loaded>> {
        let state = &mut self.state;
        self.splitter.finish(&mut |line| state.line(line))?;
        let State {
            head,
            log,
            numbers,
            ids,
            report,
            ..
        } = self.state;
        let Some((header, _)) = head else {
            return Ok(None);
        };
        check_links(&log, &ids, &numbers)?;
        Ok(Some(Loaded {
            header,
            log,
            ids,
            report,
        }))
    }
}

/// The binding feeds a log's pieces to it ([`LogReader::push`], [`LogReader::finish`]).
impl<C, I> PieceReader for LogReader<C, I>
where
    C: FnMut(&Header) -> Result<I>,
    I: Fn(&Value, &str) -> Result<Message>,
{
    type Output = Option<Loaded>;

    fn push(&mut self, piece: &[u8]) -> Result<()> {
        LogReader::push(self, piece)
    }

    fn finish(self) -> Result<Option<Loaded>> {
        LogReader::finish(self)
    }
}

impl<C, I> State<C, I>
where
    C: FnMut(&Header) -> Result<I>,
    I: Fn(&Value, &str) -> Result<Message>,
{
    fn line(&mut self, line: Line<'_>) -> Result<()> {
        let number = line.number;
        if self.report.torn_line.is_some() {
            return Ok(());
        }
        let text = match line.text {
            Ok(text) => text,
            // Cut inside a character: a torn write.
            Err(e) if !line.ended && !self.options.strict && self.head.is_some() => {
                self.report.torn_line = Some((number, format!("not UTF-8 text: {e}")));
                return Ok(());
            }
            Err(e) => {
                return Err(Error::invalid_input(
                    format!("lines[{}]", number - 1),
                    format!("line {number} is not UTF-8 text: {e}"),
                ))
            }
        };
        let text = if number == 1 { strip_bom(text) } else { text };
        if text.trim().is_empty() {
            return Ok(());
        }
        let text = match self.options.map {
            Some(map) => map(text),
            None => Cow::Borrowed(text),
        };
        let Some((_, import)) = &self.head else {
            let header = Header::read(&text)?;
            let import = (self.choose)(&header)?;
            self.head = Some((header, import));
            return Ok(());
        };
        let entry = match read_line(&text, number, import) {
            Ok(entry) => entry,
            Err(e) if !line.ended && !self.options.strict && is_syntax_error(&text) => {
                self.report.torn_line = Some((number, e.message));
                return Ok(());
            }
            Err(e) => return Err(e),
        };
        if self.ids.insert(entry.id.clone(), self.log.len()).is_some() {
            return Err(Error::invalid_input(
                format!("lines[{}].id", number - 1),
                format!("line {number}: entry id \"{}\" appears twice", entry.id),
            ));
        }
        self.log.push(entry);
        self.numbers.push(number);
        Ok(())
    }
}

/// One entry line; a lone surrogate escape is read as U+FFFD (the line is kept as written).
fn read_line(
    line: &str,
    number: usize,
    import: &dyn Fn(&Value, &str) -> Result<Message>,
) -> Result<Entry> {
    match entry::read_line(line, number, import) {
        Err(e) => {
            let replaced = replace_lone_surrogates(line);
            if replaced == line {
                return Err(e);
            }
            let mut entry = entry::read_line(&replaced, number, import)?;
            entry.keep_line(line);
            Ok(entry)
        }
        ok => ok,
    }
}

/// True when `line` is not valid JSON (as opposed to valid JSON that is not a valid entry).
fn is_syntax_error(line: &str) -> bool {
    serde_json::from_str::<serde::de::IgnoredAny>(&replace_lone_surrogates(line)).is_err()
}

/// `line` with every `\uD800`–`\uDFFF` escape that is not part of a surrogate pair replaced by
/// `\uFFFD`.
fn replace_lone_surrogates(line: &str) -> String {
    let bytes = line.as_bytes();
    let mut out = String::with_capacity(line.len());
    let mut i = 0usize;
    let mut copied = 0usize;
    let hex = |at: usize| -> Option<u16> {
        let digits = line.get(at..at + 4)?;
        u16::from_str_radix(digits, 16).ok()
    };
    let escape_at = |at: usize| -> Option<u16> {
        (bytes.get(at) == Some(&b'\\') && bytes.get(at + 1) == Some(&b'u'))
            .then(|| hex(at + 2))
            .flatten()
    };
    while i < bytes.len() {
        if bytes.get(i) != Some(&b'\\') {
            i += 1;
            continue;
        }
        match escape_at(i) {
            Some(0xD800..=0xDBFF)
                if escape_at(i + 6).is_some_and(|low| (0xDC00..=0xDFFF).contains(&low)) =>
            {
                i += 12;
            }
            Some(0xD800..=0xDFFF) => {
                out.push_str(line.get(copied..i).unwrap_or_default());
                out.push_str("\\uFFFD");
                i += 6;
                copied = i;
            }
            // Any other escape: skip the backslash and the escaped character, so `\\u` stays.
            _ => i += 2,
        }
    }
    out.push_str(line.get(copied..).unwrap_or_default());
    out
}

/// The link rules of the module documentation.
fn check_links(log: &[Entry], ids: &HashMap<String, usize>, numbers: &[usize]) -> Result<()> {
    let line_of = |i: usize| numbers.get(i).copied().unwrap_or(0);
    // The live range starts at the latest compaction's first kept entry (or at the compaction);
    // without a compaction the whole log is live and every parent must be there.
    let mut live_from: Option<usize> = None;
    if let Some((c, comp)) = log
        .iter()
        .enumerate()
        .rev()
        .find_map(|(i, e)| match &e.kind {
            EntryKind::Compaction(comp) => Some((i, comp)),
            _ => None,
        })
    {
        let n = line_of(c);
        let named = comp.named_entries();
        for (key, id) in named {
            if !ids.contains_key(id) {
                return Err(Error::invalid_input(
                    format!("lines[{}].{key}", n - 1),
                    format!(
                        "line {n}: the compaction's {key} names entry \"{id}\", which is not in \
                         the log: its live context cannot be rebuilt"
                    ),
                ));
            }
        }
        live_from = Some(
            comp.first_kept_entry_id
                .as_ref()
                .and_then(|id| ids.get(id).copied())
                .map_or(c, |k| k.min(c)),
        );
    }
    for (i, e) in log.iter().enumerate() {
        let Some(parent) = &e.parent_id else {
            continue;
        };
        let n = line_of(i);
        match ids.get(parent) {
            Some(&p) if p >= i => {
                return Err(Error::invalid_input(
                    format!("lines[{}].parentId", n - 1),
                    format!(
                        "line {n}: parentId \"{parent}\" names {} (line {}): entries must follow \
                         their parent, so the log holds a cycle",
                        if p == i {
                            "the entry itself"
                        } else {
                            "a later entry"
                        },
                        line_of(p)
                    ),
                ))
            }
            Some(_) => {}
            None if live_from.is_none_or(|from| i > from) => {
                return Err(Error::invalid_input(
                    format!("lines[{}].parentId", n - 1),
                    format!("line {n}: parentId \"{parent}\" names no entry of the log"),
                ))
            }
            None => {}
        }
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn lone_surrogates_become_replacement_escapes_and_pairs_stay() {
        assert_eq!(replace_lone_surrogates(r#""a\ud800b""#), r#""a\uFFFDb""#);
        assert_eq!(replace_lone_surrogates(r#""\udc00""#), r#""\uFFFD""#);
        let pair = r#""\ud83d\ude00 \\ud800""#;
        assert_eq!(replace_lone_surrogates(pair), pair);
        let v: Value =
            serde_json::from_str(&replace_lone_surrogates(r#"{"t":"x\ud800"}"#)).unwrap();
        assert_eq!(v["t"], Value::String("x\u{fffd}".into()));
        for garbage in ["\\", "\\u", "\\uD8", "é\\ud800", "\\ud800\\u"] {
            let _ = replace_lone_surrogates(garbage);
        }
    }
}
