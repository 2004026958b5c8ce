//! Branching: a new session from any entry of this one (pi's fork, seed 000's branch entry).
//! The new session holds the log up to that entry and a branch entry; its context is what the
//! loader builds from that prefix, so branching before a compaction undoes it and after one keeps
//! it.

use super::{copy, index, loader, provisional, Entry, EntryKind, Header, Session, View};
use crate::core::error::{Error, Result};

impl Session {
    /// A new session holding the log up to and including entry `id`, then a branch entry. Its
    /// context is what the loader builds from that prefix: branching before a compaction undoes
    /// it. `new_session_id` names the new session.
    pub fn branch(&self, id: &str, new_session_id: String) -> Result<Session> {
        self.branch_at(Some(id), new_session_id)
    }

    /// [`Session::branch`] at entry `id`, or before the first entry (`None`, as pi's fork before
    /// the first message): the new session's log then holds only the branch entry, and its
    /// context is empty.
    pub fn branch_at(&self, id: Option<&str>, new_session_id: String) -> Result<Session> {
        let kept = match id {
            None => 0,
            Some(id) => match self.position(id) {
                Some(at) => at + 1,
                None => {
                    return Err(Error::invalid_input(
                        "entryId",
                        format!("no entry \"{id}\" in this session"),
                    ))
                }
            },
        };
        let log: Vec<Entry> = self.log.iter().take(kept).cloned().collect();
        let ids = index(&log);
        let mut s = Session {
            config: self.config.clone(),
            header: Header::new(
                new_session_id,
                self.header.format.clone(),
                Some((self.header.id.clone(), id.map(str::to_string))),
            ),
            log,
            ids,
            view: View::default(),
            version: 0,
            flushed: 0,
            header_flushed: false,
            seq: self.seq,
            id_tag: self.id_tag.clone(),
            structural: 0,
            reorders: 0,
            live_epoch: 1,
            live_stored: 0,
            memory: None,
            recognizer: self.recognizer.clone(),
            load_report: loader::LoadReport::default(),
            copy: copy::CopyCursor::default(),
            // A branch of a session whose format is provisional is provisional too (its own header
            // is new).
            provisional: self
                .provisional
                .as_ref()
                .map(|_| provisional::Provisional::default()),
        };
        let branch_id = s.next_id();
        s.push(
            branch_id,
            EntryKind::Branch {
                from_session: self.header.id.clone(),
                from_entry: id.map(str::to_string),
            },
        );
        s.rebuild();
        Ok(s)
    }
}
