//! The session's log as JSONL text: written whole ([`Session::to_jsonl`]), in parts
//! ([`Session::jsonl_part`]) or as the lines new since the last flush
//! ([`Session::take_new_lines`]); read back ([`Session::from_jsonl`], [`Session::load`],
//! [`Session::from_loaded`]); and a session built from entries made elsewhere
//! ([`Session::from_entries`], an imported agent session).

use super::{
    copy,
    entry::{EntryKind, Header},
    loader, shared, Config, Entry, Import, Session, View,
};
use crate::core::error::{Error, Result};
use crate::core::summary::Recognizer;

impl Session {
    /// The whole log as JSONL (header first; every line ends with a newline).
    pub fn to_jsonl(&self) -> String {
        self.header_given_out();
        let mut out = String::new();
        out.push_str(&self.header.line);
        out.push('\n');
        for e in &self.log {
            out.push_str(&e.line());
            out.push('\n');
        }
        out
    }

    /// A part of [`Session::to_jsonl`], to write a long log without holding it whole: the header
    /// (when `from` is 0) and the lines of entries `from..`, as many as fit in `max_bytes` (at
    /// least one), and the entry the next part starts at (`None`: the log is written). The parts
    /// from 0 to the end, joined, are `to_jsonl()`.
    pub fn jsonl_part(&self, from: usize, max_bytes: usize) -> (String, Option<usize>) {
        let mut out = String::new();
        if from == 0 {
            self.header_given_out();
            out.push_str(&self.header.line);
            out.push('\n');
        }
        let mut next = from;
        for e in self.log.iter().skip(from) {
            if next > from && out.len() >= max_bytes {
                break;
            }
            out.push_str(&e.line());
            out.push('\n');
            next += 1;
        }
        (out, (next < self.log.len()).then_some(next))
    }

    /// The lines written since the previous call (the header included the first time): append
    /// them to a file and it never needs rewriting.
    pub fn take_new_lines(&mut self) -> String {
        self.header_given_out();
        let mut out = String::new();
        if !self.header_flushed {
            out.push_str(&self.header.line);
            out.push('\n');
            self.header_flushed = true;
        }
        for e in self.log.iter().skip(self.flushed) {
            out.push_str(&e.line());
            out.push('\n');
        }
        self.flushed = self.log.len();
        out
    }

    /// Reads a log written by [`Session::to_jsonl`] by the rules of [`loader`] (lenient on a torn
    /// last line). Message entries are imported with `import`. Bad lines are `INVALID_INPUT`
    /// naming the line; an empty log is `INVALID_INPUT` too (see [`Session::load`]).
    pub fn from_jsonl(text: &str, config: Config, import: Import<'_>) -> Result<Session> {
        Session::load(text, config, import, loader::LoadOptions::default())?
            .ok_or_else(|| Error::invalid_input("text", "the log is empty: it needs a header line"))
    }

    /// [`Session::from_jsonl`] with `options`; `None` for an empty log (what an empty session
    /// writes). What the reading noticed is [`Session::load_report`].
    pub fn load(
        text: &str,
        config: Config,
        import: Import<'_>,
        options: loader::LoadOptions,
    ) -> Result<Option<Session>> {
        let Some(loaded) = loader::read(text, import, options)? else {
            return Ok(None);
        };
        Ok(Some(Session::from_loaded(config, loaded)))
    }

    /// The session of a log read back ([`loader::read`], or [`loader::LogReader`] fed a piece
    /// at a time).
    pub fn from_loaded(config: Config, loaded: loader::Loaded) -> Session {
        let mut seq = 0u64;
        for entry in &loaded.log {
            if let Some(n) = shared::entry_seq(&entry.id) {
                seq = seq.max(n);
            }
        }
        let flushed = loaded.log.len();
        let mut s = Session {
            config,
            header: loaded.header,
            log: loaded.log,
            ids: loaded.ids,
            view: View::default(),
            version: 0,
            flushed,
            header_flushed: true,
            seq,
            id_tag: None,
            structural: 0,
            reorders: 0,
            live_epoch: 0,
            live_stored: 0,
            memory: None,
            recognizer: Recognizer::default(),
            load_report: loaded.report,
            copy: copy::CopyCursor::default(),
            provisional: None,
        };
        s.recognizer = Recognizer::with(&s.config.settings.summary);
        s.recognize_logged();
        s.rebuild();
        s
    }

    /// What reading the log noticed without refusing it (a torn last line left out).
    pub fn load_report(&self) -> &loader::LoadReport {
        &self.load_report
    }

    /// Builds a session from entries made elsewhere (an imported agent session). Ids must be
    /// unique; parent ids are set to the previous entry. A usage entry without calibration is
    /// recorded as [`Session::record_usage`] records it: self-calibration learns from the growth
    /// of the prompt since the previous usage, and the entry keeps what it has learned.
    pub fn from_entries(
        config: Config,
        header: Header,
        entries: Vec<(String, EntryKind)>,
    ) -> Result<Session> {
        let mut s = Session::empty(config, header);
        // The view follows the entries while only messages and usage come; another entry (a
        // compaction) rebuilds it before the next usage.
        let mut stale = false;
        for (id, kind) in entries {
            if s.ids.contains_key(&id) {
                return Err(Error::invalid_input(
                    "id",
                    format!("entry id \"{id}\" appears twice"),
                ));
            }
            match kind {
                EntryKind::Message(message) => {
                    let kinds = s.config.estimator.estimate_message(&message);
                    let at = s.push(id, EntryKind::Message(message));
                    if let (false, Some(m)) = (stale, s.log.get(at).and_then(Entry::message)) {
                        let m = m.clone();
                        s.view.push(at, None, &m, kinds);
                    }
                }
                EntryKind::Usage(usage, None) => {
                    if stale {
                        s.rebuild();
                        stale = false;
                    }
                    s.view
                        .record_usage(&s.log, &usage, s.config.self_calibration);
                    let learned = (s.view.learned.samples > 0).then_some(s.view.learned);
                    s.push(id, EntryKind::Usage(usage, learned));
                }
                other => {
                    s.push(id, other);
                    stale = true;
                }
            }
        }
        s.version = 0;
        s.rebuild();
        Ok(s)
    }
}
