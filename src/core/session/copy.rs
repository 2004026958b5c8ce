//! Copying a session's log out as it grows, so that a copy held elsewhere (the trap guard's, in
//! js/guard.mjs) can rebuild the session without reading it again.
//!
//! The session keeps a cursor: how many log entries the copy holds unchanged, and the bookkeeping
//! it last gave (entries stored or flushed, whether the header and the live set are). Each
//! [`Session::log_since`] gives the lines after the cursor (up to a byte limit, at least one line)
//! and moves it; nothing when nothing changed, so the copy costs O(new lines). A merge of other
//! writers' lines rewrites the log from the first pending entry on: the cursor goes back there,
//! and the next copy says from which entry its lines replace the copy's.

use super::Session;

/// What the copy holds (see the module documentation).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CopyCursor {
    /// Log entries the copy holds, unchanged since.
    entries: usize,
    /// The bookkeeping given last; `None` before the first copy.
    marks: Option<Marks>,
}

/// The bookkeeping a rebuilt session needs besides its lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Marks {
    /// Entries flushed (or held by the store), from the first.
    pub stored: usize,
    /// Whether the header was flushed (or is held by the store).
    pub header_stored: bool,
    /// Whether the live set changed since the store last recorded it.
    pub live_pending: bool,
}

/// Lines of the log the copy lacks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogCopy {
    /// The header line (every time: it may have changed, and it holds the decided format).
    pub header: String,
    /// The entry the lines start at: the copy drops what it holds from there on first.
    pub from: usize,
    /// The lines, each ending with a newline.
    pub lines: String,
    /// How many lines `lines` holds.
    pub count: usize,
    /// Whether more lines follow (the byte limit cut this copy short).
    pub more: bool,
    /// The bookkeeping as of this copy.
    pub marks: Marks,
}

impl CopyCursor {
    /// The copy holds at most the first `at` entries unchanged.
    pub(super) fn rewind(&mut self, at: usize) {
        self.entries = self.entries.min(at);
    }
}

impl Session {
    /// The bookkeeping a rebuilt session needs (see [`Session::restore_pending`]).
    pub fn marks(&self) -> Marks {
        Marks {
            stored: self.flushed,
            header_stored: self.header_flushed,
            live_pending: self.live_epoch != self.live_stored,
        }
    }

    /// The lines the copy lacks, up to about `byte_limit` bytes (at least one line), and moves the
    /// cursor past them; `None` when the copy is up to date.
    pub fn log_since(&mut self, byte_limit: usize) -> Option<LogCopy> {
        let marks = self.marks();
        let from = self.copy.entries.min(self.log.len());
        if from == self.log.len() && self.copy.marks == Some(marks) {
            return None;
        }
        let mut lines = String::new();
        let mut count = 0;
        for e in self.log.iter().skip(from) {
            let line = e.line();
            if count > 0 && lines.len() + line.len() >= byte_limit {
                break;
            }
            lines.push_str(&line);
            lines.push('\n');
            count += 1;
        }
        let more = from + count < self.log.len();
        self.copy.entries = from + count;
        self.copy.marks = (!more).then_some(marks);
        Some(LogCopy {
            header: self.header.line.clone(),
            from,
            lines,
            count,
            more,
            marks,
        })
    }
}

impl LogCopy {
    /// The copy as the trap guard reads it, one string: a JSON line `{ from, count, more, stored,
    /// headerStored, livePending }`, the header line, then the lines; lone surrogates as the
    /// `\udXXX` escapes `JSON.stringify` writes.
    pub fn into_text(self) -> String {
        let m = self.marks;
        let mut out = format!(
            "{{\"from\":{},\"count\":{},\"more\":{},\"stored\":{},\"headerStored\":{},\"livePending\":{}}}\n",
            self.from, self.count, self.more, m.stored, m.header_stored, m.live_pending
        );
        out.push_str(&self.header);
        out.push('\n');
        out.push_str(&self.lines);
        crate::core::surrogates::escaped(out)
    }
}
