//! Compactions of a session: the snapshot a compaction is planned from, and the commit that turns
//! its result into log entries.
//!
//! A compaction works on a snapshot, never on the live session, so the conversation may go on
//! while the summary is written. The commit rule:
//! - nothing changed since the snapshot: commit;
//! - only messages (or usage, notes, prunes) were appended since: commit all the same; the new
//!   messages come after the summary (the compaction names its first kept entry, and every
//!   message entry after that entry stays), and parts a prune hid stay hidden;
//! - anything else (another compaction, a branch): `CONFLICT`, and nothing changes.
//!
//! The compaction entry's digest lists, besides what the summarizer's digest holds, the parts of
//! the summarized messages that were hidden behind a replacement text (seed 003: "hidden blocks
//! and replacement text"), so that what they held can be found again in the log: `hidden`, each
//! `{ entryId, part, tool, output | input }`.

use serde_json::Value;

use crate::core::error::{Error, ErrorCode, Result};
use crate::core::message::{format_iso8601_millis, Message};
use crate::core::plan::truncate::truncate_part;
use crate::core::plan::{Disposition, Plan};
use crate::core::prune::{self, PruneAction};

use super::entry::{Compaction, Entry, EntryKind, Hidden};
use super::view::replacement_of;
use crate::core::summary::hidden_list::{listed, HiddenList};
use crate::core::summary::Recognizer;

/// What a snapshot item is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A message entry, by id.
    Entry(String),
    /// A summary message of the compaction entry with this id.
    Summary(String),
}

/// The live context at one version, with everything a compaction needs.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    /// The session's version when taken.
    pub version: u64,
    /// Entries in the log when taken.
    pub log_len: usize,
    /// The session's count of entries other than messages and usage when taken.
    pub structural: u64,
    /// The session's count of reordering merges when taken.
    pub reorders: u64,
    /// Entries the store held when taken (all of them for a session without a store).
    pub stored: usize,
    /// The messages of the context, as sent.
    pub messages: Vec<Message>,
    /// Tokens of each message.
    pub tokens: Vec<usize>,
    /// Where each message comes from.
    pub sources: Vec<Source>,
    /// The calibrated total.
    pub total: usize,
    /// The latest compaction in the context.
    pub previous: Option<Compaction>,
    /// The first message logged after the latest compaction entry (0 without one): before it
    /// come the summary and the messages that compaction kept.
    pub floor: usize,
}

impl Snapshot {
    /// The round of a compaction of this snapshot with `plan`: one more than the previous
    /// summary's when the plan folds it in, else 1. A summary that came in with the appended
    /// messages (no compaction entry) counts by the round its text names (`recognizer`), at
    /// least 1.
    pub fn round(&self, plan: &Plan, recognizer: &Recognizer) -> u32 {
        match (&self.previous, plan.previous_summary) {
            (Some(prev), Some(_)) if prev.summary.is_some() => prev.round.saturating_add(1),
            (_, Some(i)) => {
                let named = self
                    .messages
                    .get(i)
                    .and_then(|m| recognizer.round(&m.plain_text()));
                crate::core::driver::progress::next_round(Some(named), 0)
            }
            _ => 1,
        }
    }

    /// The text of the previous summary, when there is one.
    pub fn previous_summary(&self) -> Option<&str> {
        self.previous.as_ref().and_then(|c| c.summary.as_deref())
    }
}

/// The result of a compaction, to be committed.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// The summary text (`None`: the plan only drops).
    pub summary: Option<String>,
    /// Estimated tokens of the compacted context.
    pub tokens_after: usize,
    /// The round.
    pub round: u32,
    /// The digest, as JSON.
    pub digest: Value,
    /// Workstream state after the compaction, if kept.
    pub state: Option<Value>,
    /// When the compaction was made, in milliseconds since the Unix epoch (the caller's clock:
    /// the core has none).
    pub timestamp: Option<i64>,
}

/// Checks the commit rule of the module documentation for a session now at `version`, with
/// `structural` entries other than messages and usage and `reorders` merges, after `snapshot`.
/// Other writers' messages merged before entries of the snapshot that the store did not hold
/// yet would land before the summary's kept tail: that is a conflict too.
pub fn check_commit(
    version: u64,
    structural: u64,
    reorders: u64,
    snapshot: &Snapshot,
) -> Result<()> {
    if version == snapshot.version {
        return Ok(());
    }
    let reordered = reorders != snapshot.reorders && snapshot.log_len > snapshot.stored;
    if structural == snapshot.structural && !reordered {
        Ok(())
    } else {
        Err(Error::new(
            ErrorCode::Conflict,
            "the session changed while the summary was written (another compaction or a branch); nothing was changed: compact again",
        ))
    }
}

/// The entries a compaction adds: a prune entry for the parts it hides in the kept tail (when
/// any), then the compaction entry. `new_id` gives fresh entry ids; `after` is the log as it is
/// now (messages appended since the snapshot come after the summary).
pub fn entries_for(
    snapshot: &Snapshot,
    plan: &Plan,
    outcome: &Outcome,
    log: &[Entry],
    new_id: &mut dyn FnMut() -> String,
) -> Result<Vec<(String, EntryKind)>> {
    if plan.dispositions.len() != snapshot.messages.len() {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            "the plan does not match the session's context",
        ));
    }
    let entry_id = |i: usize| match snapshot.sources.get(i) {
        Some(Source::Entry(id)) => Some(id.clone()),
        _ => None,
    };
    let with = |d: Disposition| -> Vec<String> {
        plan.indices(d).into_iter().filter_map(entry_id).collect()
    };
    // The kept tail is the run of kept messages that reaches the end of the snapshot. Kept
    // messages before it (Codex keeps recent user messages from the summarized part) are listed
    // on their own: the view shows them after the pinned ones, in order, as the Compactor does.
    let len = plan.dispositions.len();
    // The tail starts where the kept run is also an unbroken run of the log's message entries
    // (a dropped orphan between two kept messages must not come back through the view).
    let tail_start = log_run(snapshot, log, plan.tail_start());
    let kept_before_tail: Vec<String> = plan
        .dispositions
        .iter()
        .enumerate()
        .take(tail_start)
        .filter(|&(_, d)| *d == Disposition::Keep)
        .filter_map(|(i, _)| entry_id(i))
        .collect();
    let first_kept = (tail_start < len)
        .then_some(tail_start)
        .and_then(entry_id)
        .or_else(|| {
            // Nothing of the snapshot is kept: the first message appended since.
            log.iter()
                .skip(snapshot.log_len)
                .find(|e| matches!(e.kind, EntryKind::Message(_)))
                .map(|e| e.id.clone())
        });
    let hidden = hidden_by(snapshot, plan);
    let summary = outcome.summary.clone().or_else(|| {
        // A strategy that drops without summarizing keeps an earlier summary as it was.
        plan.indices(Disposition::Pinned)
            .into_iter()
            .any(|i| matches!(snapshot.sources.get(i), Some(Source::Summary(_))))
            .then(|| snapshot.previous_summary().map(str::to_string))
            .flatten()
    });
    let mut covered: Vec<String> = if plan.previous_summary.is_some() {
        snapshot
            .previous
            .as_ref()
            .map(|p| p.covered_turn_ids.clone())
            .unwrap_or_default()
    } else {
        Vec::new()
    };
    let mut split_turn_id = None;
    let mut turn: Option<String> = None;
    for (i, m) in snapshot.messages.iter().enumerate() {
        if m.is_user_turn_start() {
            turn = entry_id(i);
        }
        let d = plan.dispositions.get(i).copied();
        let removed = matches!(
            d,
            Some(Disposition::Summarize | Disposition::TurnPrefix | Disposition::Drop)
        );
        if removed && m.is_user_turn_start() {
            if let Some(id) = entry_id(i) {
                covered.push(id);
            }
        }
        if d == Some(Disposition::Keep) && plan.split_turn && split_turn_id.is_none() {
            split_turn_id = turn.clone();
        }
    }
    if let Some(split) = &split_turn_id {
        covered.retain(|id| id != split);
    }
    // Seed 000's keepLastMessages: the message entries from the first kept one to this entry.
    let keep_last_messages = first_kept.as_ref().map(|id| {
        log.iter()
            .skip_while(|e| &e.id != id)
            .filter(|e| matches!(e.kind, EntryKind::Message(_)))
            .count()
    });
    let digest = with_hidden_digest(outcome.digest.clone(), snapshot, plan, log);
    let compaction = Compaction {
        summary,
        timestamp: outcome.timestamp.map(format_iso8601_millis),
        keep_last_messages: Some(keep_last_messages.unwrap_or(0)),
        first_kept_entry_id: first_kept,
        system_entry_ids: with(Disposition::System),
        pinned_entry_ids: with(Disposition::Pinned),
        kept_entry_ids: kept_before_tail,
        tokens_before: snapshot.total,
        tokens_after: outcome.tokens_after,
        round: outcome.round,
        covered_turn_ids: covered,
        split_turn_id,
        digest,
        state: outcome.state.clone(),
    };
    let mut out = Vec::new();
    if !hidden.is_empty() {
        out.push((new_id(), EntryKind::Prune(hidden)));
    }
    out.push((new_id(), EntryKind::Compaction(Box::new(compaction))));
    Ok(out)
}

/// The start of the kept tail: the first index from `from` on whose messages are, in the log, an
/// unbroken run of message entries up to the snapshot's last. The view shows every message entry
/// from the first kept one on, so a kept message followed in the log by one the snapshot left out
/// (an orphan tool result an earlier compaction dropped) is listed in `keptEntryIds` instead:
/// naming it first kept would bring the left-out message back.
fn log_run(snapshot: &Snapshot, log: &[Entry], from: usize) -> usize {
    let len = snapshot.sources.len();
    let id_at = |i: usize| match snapshot.sources.get(i) {
        Some(Source::Entry(id)) => Some(id.as_str()),
        _ => None,
    };
    let Some(last) = len.checked_sub(1).and_then(id_at) else {
        return len;
    };
    let position: std::collections::HashMap<&str, usize> = log
        .iter()
        .enumerate()
        .map(|(i, e)| (e.id.as_str(), i))
        .collect();
    let Some(&end) = position.get(last) else {
        return len;
    };
    let mut start = len;
    let mut messages = 0;
    let mut at = end + 1;
    for i in (from..len).rev() {
        let Some(&p) = id_at(i).and_then(|id| position.get(id)) else {
            break;
        };
        if p >= at {
            break;
        }
        // Message entries of the log from this one up to the previous start.
        messages += log
            .get(p..at)
            .unwrap_or_default()
            .iter()
            .filter(|e| matches!(e.kind, EntryKind::Message(_)))
            .count();
        if messages != len - i {
            break;
        }
        start = i;
        at = p;
    }
    start
}

/// `digest` with `hidden`: the hidden parts of the messages the plan summarizes or drops, in
/// order, each named by its log entry ([`HiddenList`]).
fn with_hidden_digest(digest: Value, snapshot: &Snapshot, plan: &Plan, log: &[Entry]) -> Value {
    let hidden = super::view::hidden_parts(log);
    let mut list = HiddenList::new(&snapshot.messages);
    for (i, d) in plan.dispositions.iter().enumerate() {
        if !listed(d) {
            continue;
        }
        let (Some(Source::Entry(id)), Some(m)) =
            (snapshot.sources.get(i), snapshot.messages.get(i))
        else {
            continue;
        };
        for h in hidden.get(id.as_str()).into_iter().flatten() {
            list.push(
                ("entryId", Value::String(id.clone())),
                h.part,
                m.parts.get(h.part),
                h.replacement.clone(),
            );
        }
    }
    list.into_digest(digest)
}

/// The parts of kept messages the plan prunes or truncates, as hidden parts.
fn hidden_by(snapshot: &Snapshot, plan: &Plan) -> Vec<Hidden> {
    let mut out = hidden_of(snapshot, &plan.pruned);
    for t in &plan.truncations {
        if let Some(h) = hide_part(snapshot, t.message, t.part, |part| {
            replacement_of(&truncate_part(part, t))
        }) {
            out.push(h);
        }
    }
    out
}

/// The parts `actions` prune (indices into the snapshot's messages), as hidden parts; actions on a
/// summary message or a missing part are left out.
pub fn hidden_of(snapshot: &Snapshot, actions: &[PruneAction]) -> Vec<Hidden> {
    actions
        .iter()
        .filter_map(|a| {
            hide_part(snapshot, a.message, a.part, |part| {
                prune::replaced(part, &a.kind).and_then(|p| replacement_of(&p))
            })
        })
        .collect()
}

/// Part `part` of snapshot message `message` hidden behind what `replace` makes of it.
fn hide_part(
    snapshot: &Snapshot,
    message: usize,
    part: usize,
    replace: impl Fn(&crate::core::message::Part) -> Option<super::entry::Replacement>,
) -> Option<Hidden> {
    let (Some(Source::Entry(id)), Some(m)) = (
        snapshot.sources.get(message),
        snapshot.messages.get(message),
    ) else {
        return None;
    };
    let replacement = replace(m.parts.get(part)?)?;
    Some(Hidden {
        entry_id: id.clone(),
        part,
        replacement,
    })
}
