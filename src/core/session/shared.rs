//! A session whose log is shared through a store by several writers (processes, tabs).
//!
//! The store holds the entries in commit order and compares versions, so a writer appends its
//! pending entries only on top of what it has seen. When another writer got there first, the
//! writer reads the entries it missed and [`Session::merge_remote`] puts them before its own
//! pending ones, by the session's commit rule:
//! - the other writer's messages, usage and notes just come first; pending messages stay, in order;
//! - when the other writer changed the log otherwise (a compaction, a prune, a memory-block
//!   summary), this writer's pending compactions, prunes and memory-block summaries are dropped
//!   (reported in [`Merged::dropped`]): a lost race costs a summary, never a message;
//! - a pending compaction whose kept tail starts at a pending message keeps the other writer's
//!   messages by starting its tail at the first of them; one that summarized a pending message
//!   is dropped, as those messages would land before its tail.
//!
//! Entries the store already holds with the same id are this writer's own (an append that
//! succeeded although its answer was lost): they are not written twice.
//!
//! [`Session::live_set`] names the entries a later load needs to rebuild the live context (the
//! loader rule of [`super::view`]): the range from the latest compaction's kept tail on, and the
//! few entries before it that the context still uses.

use std::collections::HashSet;

use crate::core::error::{Error, ErrorCode, Result};

use super::entry::{self, Entry, EntryKind, Header};
use super::{index, notes, Import, Session};

/// Counted by the commit rule: anything that changes which messages the context holds. Messages,
/// usage, notes and prunes are not: a prune hides parts by entry id, so a summary written
/// meanwhile still commits, and the parts stay hidden in its kept tail.
pub fn is_structural(kind: &EntryKind) -> bool {
    !matches!(
        kind,
        EntryKind::Message(_)
            | EntryKind::Usage(..)
            | EntryKind::Prune(_)
            | EntryKind::Note(_)
            | EntryKind::NotesCompacted { .. }
    )
}

/// Entries that change what earlier entries mean (and so the live set): compactions, prunes,
/// memory-block summaries and branch marks.
pub fn rewrites(kind: &EntryKind) -> bool {
    matches!(
        kind,
        EntryKind::Compaction(_)
            | EntryKind::Prune(_)
            | EntryKind::NotesCompacted { .. }
            | EntryKind::Branch { .. }
    )
}

/// The number of an entry id the session made (`e12` or `e12.TAG`).
pub fn entry_seq(id: &str) -> Option<u64> {
    let rest = id.strip_prefix('e')?;
    let digits = rest.split('.').next()?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// What a later load needs (see the module documentation), by entry id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LiveSet {
    /// The first entry of the contiguous live range (`None`: the whole log).
    pub from: Option<String>,
    /// Entries before `from` that the live context needs, in log order.
    pub carry: Vec<String>,
}

/// What the store does not hold yet.
#[derive(Clone, Debug, PartialEq)]
pub struct Pending<'a> {
    /// The header line, when the conversation is not in the store yet.
    pub header: Option<&'a str>,
    /// The entries to append, in order.
    pub entries: &'a [Entry],
    /// The live set, when it changed since the store last recorded it.
    pub live: Option<LiveSet>,
    /// Which change of the live set `live` is (for [`Session::mark_stored`]).
    pub live_epoch: u64,
}

/// The outcome of [`Session::merge_remote`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Merged {
    /// Entries of other writers put into the log.
    pub merged: usize,
    /// Pending entries dropped by the commit rule: `(id, type)`.
    pub dropped: Vec<(String, &'static str)>,
}

impl Session {
    /// Makes new entry ids carry `tag` (`e12.TAG`), so that writers sharing a log never make the
    /// same id. `None` goes back to plain ids.
    pub fn set_id_tag(&mut self, tag: Option<String>) {
        self.id_tag = tag;
    }

    /// What the store does not hold yet (see [`Session::mark_stored`]).
    pub fn pending(&self) -> Pending<'_> {
        self.header_given_out();
        Pending {
            header: (!self.header_flushed).then_some(self.header.line.as_str()),
            entries: self.log.get(self.flushed..).unwrap_or_default(),
            live: (self.live_epoch != self.live_stored).then(|| self.live_set()),
            live_epoch: self.live_epoch,
        }
    }

    /// Records that the store now holds the header, the first `entries` pending entries and,
    /// when given, the live set of change `live_epoch` (a later change is still pending).
    pub fn mark_stored(&mut self, entries: usize, live_epoch: Option<u64>) {
        self.header_flushed = true;
        self.flushed = self.flushed.saturating_add(entries).min(self.log.len());
        if let Some(epoch) = live_epoch {
            self.live_stored = self.live_stored.max(epoch);
        }
    }

    /// Takes back what [`Session::pending`] said of a session this one was read from (its log,
    /// written by `to_jsonl`): the last `entries` entries, the header when `header`, and the live
    /// set when `live` are not in the store yet. A log read back counts as stored otherwise.
    pub fn restore_pending(&mut self, entries: usize, header: bool, live: bool) {
        self.flushed = self.log.len().saturating_sub(entries);
        self.header_flushed = !header;
        if live {
            self.live_epoch = self.live_stored.saturating_add(1);
        }
    }

    /// Entries the store holds, of those in this session's log.
    pub fn stored(&self) -> usize {
        self.flushed
    }

    /// Puts entries another writer stored (`lines`, in store order, after what this session has
    /// stored) before this session's pending entries, by the rule of the module documentation.
    /// `header` is the store's header line: a session whose header the store does not hold yet
    /// takes it, when it names the same message format.
    pub fn merge_remote(
        &mut self,
        header: &str,
        lines: &[&str],
        import: Import<'_>,
    ) -> Result<Merged> {
        if !self.header_flushed {
            let theirs = Header::read(header)?;
            if theirs.format != self.header.format {
                return Err(Error::new(
                    ErrorCode::Conflict,
                    format!(
                        "the stored conversation holds {} messages; this session's are {}",
                        theirs.format, self.header.format
                    ),
                ));
            }
            self.header = theirs;
            self.header_flushed = true;
        }
        let mut remote = Vec::with_capacity(lines.len());
        for (i, line) in lines.iter().enumerate() {
            remote.push(entry::read_line(line, self.flushed + i + 2, import)?);
        }
        // The pending entries are written again after the merged ones.
        self.copy.rewind(self.flushed);
        let mut pending = self.log.split_off(self.flushed.min(self.log.len()));
        let remote_ids: HashSet<&str> = remote.iter().map(|e| e.id.as_str()).collect();
        // This writer's own entries that reached the store: they are stored, not pending.
        let ours: HashSet<String> = pending
            .iter()
            .filter(|e| remote_ids.contains(e.id.as_str()))
            .map(|e| e.id.clone())
            .collect();
        pending.retain(|e| !ours.contains(&e.id));
        let stored = self.log.len();
        let clash = remote
            .iter()
            .find(|e| self.ids.get(&e.id).is_some_and(|&i| i < stored));
        if let Some(clash) = clash {
            let id = clash.id.clone();
            self.log.extend(pending);
            return Err(Error::new(
                ErrorCode::Conflict,
                format!("the store holds entry \"{id}\" twice: the stored log is damaged"),
            ));
        }
        let theirs: Vec<&Entry> = remote.iter().filter(|e| !ours.contains(&e.id)).collect();
        let mut report = Merged {
            merged: theirs.len(),
            dropped: Vec::new(),
        };
        let live = theirs.iter().any(|e| rewrites(&e.kind));
        let structural = theirs.iter().filter(|e| is_structural(&e.kind)).count();
        let any_theirs = !theirs.is_empty();
        if live {
            pending.retain(|e| {
                let keep = !rewrites(&e.kind);
                if !keep {
                    report.dropped.push((e.id.clone(), e.kind.type_name()));
                }
                keep
            });
        }
        let first_theirs = theirs
            .iter()
            .find(|e| matches!(e.kind, EntryKind::Message(_)))
            .map(|e| e.id.clone());
        if any_theirs {
            retarget_tails(&mut pending, first_theirs.as_deref(), &mut report);
        }
        for e in &remote {
            if let Some(n) = entry_seq(&e.id) {
                self.seq = self.seq.max(n);
            }
        }
        let stored = self.log.len() + remote.len();
        self.log.extend(remote);
        let reordered = any_theirs && !pending.is_empty();
        for e in pending {
            let parent = self.log.last().map(|p| p.id.clone());
            self.log.push(Entry::new(e.id, parent, e.kind));
        }
        self.ids = index(&self.log);
        self.flushed = stored;
        self.version += 1;
        self.structural += structural as u64;
        if reordered {
            self.reorders += 1;
        }
        if live || !report.dropped.is_empty() {
            self.live_epoch += 1;
        }
        self.recognize_logged();
        self.rebuild();
        Ok(report)
    }

    /// The entries a load needs to rebuild the live context (see the module documentation).
    pub fn live_set(&self) -> LiveSet {
        let Some(c) = self.view.compaction else {
            return LiveSet::default();
        };
        let Some(EntryKind::Compaction(comp)) = self.log.get(c).map(|e| &e.kind) else {
            return LiveSet::default();
        };
        let kept = comp
            .first_kept_entry_id
            .as_ref()
            .and_then(|id| self.position(id))
            .unwrap_or(c);
        let from = kept.min(c);
        let mut carry: Vec<usize> = comp
            .named_entries()
            .filter_map(|(_, id)| self.position(id))
            .filter(|&i| i < from)
            .collect();
        let before = self.log.get(..from).unwrap_or_default();
        // The latest calibration, when the live range holds none.
        let calibrated = |e: &Entry| matches!(e.kind, EntryKind::Usage(_, Some(_)));
        if !self.log.iter().skip(from).any(calibrated) {
            carry.extend(before.iter().rposition(calibrated));
        }
        // The memory block: its latest summary and the notes it does not cover.
        let block = notes::live_notes(&self.log);
        for id in block
            .compacted
            .into_iter()
            .chain(block.notes.iter().map(|n| n.0))
        {
            carry.extend(self.position(id).filter(|&i| i < from));
        }
        // Prunes before the range that hide parts of messages the context still shows.
        let shown: HashSet<&str> = carry
            .iter()
            .filter_map(|&i| self.log.get(i))
            .chain(self.log.iter().skip(from))
            .map(|e| e.id.as_str())
            .collect();
        for (i, e) in before.iter().enumerate() {
            if let EntryKind::Prune(hidden) = &e.kind {
                if hidden.iter().any(|h| shown.contains(h.entry_id.as_str())) {
                    carry.push(i);
                }
            }
        }
        carry.sort_unstable();
        carry.dedup();
        LiveSet {
            from: self.log.get(from).map(|e| e.id.clone()),
            carry: carry
                .into_iter()
                .filter_map(|i| self.log.get(i).map(|e| e.id.clone()))
                .collect(),
        }
    }
}

/// Pending compactions after other writers' entries were put before them: a kept tail that
/// starts at a pending message starts at `first_theirs` instead (their messages stay after the
/// summary), unless a pending message before it was summarized; then the compaction (and the
/// prune made with it) is dropped.
fn retarget_tails(pending: &mut Vec<Entry>, first_theirs: Option<&str>, report: &mut Merged) {
    let mut drop: Vec<usize> = Vec::new();
    for at in 0..pending.len() {
        let Some(EntryKind::Compaction(comp)) = pending.get(at).map(|e| &e.kind) else {
            continue;
        };
        // Where the kept tail starts among the pending entries (after the compaction when it
        // names none); a tail in the stored entries is after everything merged.
        let kept = match comp.first_kept_entry_id.as_deref() {
            None => at,
            Some(id) => match pending.iter().position(|e| e.id == id) {
                Some(p) => p,
                None => continue,
            },
        };
        let summarized_pending = pending
            .iter()
            .take(kept)
            .any(|e| matches!(e.kind, EntryKind::Message(_)));
        if summarized_pending {
            drop.push(at);
            if at > 0
                && matches!(
                    pending.get(at - 1).map(|e| &e.kind),
                    Some(EntryKind::Prune(_))
                )
            {
                drop.push(at - 1);
            }
        } else if let (Some(first), Some(EntryKind::Compaction(comp))) =
            (first_theirs, pending.get_mut(at).map(|e| &mut e.kind))
        {
            comp.first_kept_entry_id = Some(first.to_string());
        }
    }
    drop.sort_unstable();
    drop.dedup();
    for at in drop.into_iter().rev() {
        let e = pending.remove(at);
        report.dropped.push((e.id, e.kind.type_name()));
    }
}
