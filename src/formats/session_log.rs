//! An imported agent session (pi, Claude Code) as a [`Session`] log, honouring the compactions the
//! agent recorded: each becomes a compaction entry at its place in the file, with its summary and
//! its first kept message, so the session's live context is what the agent would send now and
//! branching before a recorded compaction undoes it.
//!
//! pi stores the provider's usage in each assistant message. Like pi (`estimateContextTokens`), the
//! session counts its context from the latest usage of an assistant message that was neither
//! aborted nor an error, plus an estimate of what follows; each such usage becomes a usage entry
//! after its message, so self-calibration learns from the file as it would have live.

use std::collections::HashSet;

use serde_json::Value;

use crate::core::error::Result;
use crate::core::estimate::Usage;
use crate::core::message::{Message, Original, Role};
use crate::core::session::{Compaction, Config, EntryKind, Header, Session};

use super::session::{ImportedSession, SessionSource};

/// The session log of `imported`. Messages keep the file's own entry ids when they are unique
/// (pi `id`, Claude Code `uuid`); others get `m<index>`. A message that carries a recorded
/// summary (Claude Code's `isCompactSummary` message) is not a message entry: its compaction entry
/// holds the summary.
pub fn session_from_imported(
    imported: &ImportedSession,
    config: Config,
    session_id: Option<String>,
) -> Result<Session> {
    session_from_imported_owned(imported.clone(), config, session_id)
}

/// [`session_from_imported`] taking the import, whose messages move into the log instead of
/// being copied.
pub fn session_from_imported_owned(
    mut imported: ImportedSession,
    config: Config,
    session_id: Option<String>,
) -> Result<Session> {
    let mut used: HashSet<String> = HashSet::new();
    let ids: Vec<String> = imported
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let id =
                e.id.clone()
                    .filter(|id| !id.is_empty() && !used.contains(id))
                    .unwrap_or_else(|| format!("m{i}"));
            let id = if used.contains(&id) {
                format!("m{i}")
            } else {
                id
            };
            used.insert(id.clone());
            id
        })
        .collect();
    let summary_messages: HashSet<usize> = imported
        .compactions
        .iter()
        .filter_map(|c| c.summary_message)
        .collect();
    let mut entries: Vec<(String, EntryKind)> = Vec::new();
    let mut next = 0usize;
    // Each compaction after the messages before it; `None` closes with the messages after the last.
    let compactions = std::mem::take(&mut imported.compactions);
    let records = compactions.iter().map(Some).chain([None]);
    for (k, record) in records.enumerate() {
        let len = imported.messages.len();
        let end = record.map_or(len, |r| r.at_message.min(len));
        for i in next..end {
            push_message(
                &mut imported,
                &ids,
                &mut used,
                &summary_messages,
                i,
                &mut entries,
            );
        }
        next = next.max(end);
        let Some(record) = record else { break };
        let first_kept_entry_id = record
            .first_kept_message
            .filter(|&i| i < record.at_message)
            .and_then(|i| ids.get(i).cloned());
        let mut id = record.id.clone().unwrap_or_else(|| format!("c{k}"));
        if used.contains(&id) {
            id = format!("c{k}");
        }
        used.insert(id.clone());
        entries.push((
            id,
            EntryKind::Compaction(Box::new(Compaction {
                summary: Some(record.summary.clone()),
                first_kept_entry_id,
                timestamp: record
                    .original
                    .get("timestamp")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                keep_last_messages: None,
                system_entry_ids: Vec::new(),
                pinned_entry_ids: Vec::new(),
                kept_entry_ids: Vec::new(),
                tokens_before: record
                    .tokens_before
                    .and_then(|n| usize::try_from(n).ok())
                    .unwrap_or(0),
                tokens_after: 0,
                round: u32::try_from(k + 1).unwrap_or(u32::MAX),
                covered_turn_ids: Vec::new(),
                split_turn_id: None,
                digest: Value::Null,
                state: None,
            })),
        ));
    }
    let id = session_id
        .or_else(|| imported.session_id.clone())
        .unwrap_or_else(|| "imported".to_string());
    let header = Header::new(id, imported.format.as_str().to_string(), None);
    Session::from_entries(config, header, entries)
}

fn push_message(
    imported: &mut ImportedSession,
    ids: &[String],
    used: &mut HashSet<String>,
    summary_messages: &HashSet<usize>,
    i: usize,
    entries: &mut Vec<(String, EntryKind)>,
) {
    if summary_messages.contains(&i) {
        return;
    }
    let source = imported.source;
    if let (Some(m), Some(id)) = (imported.messages.get_mut(i), ids.get(i)) {
        // Each message is taken once: the import is not used after this.
        let m = std::mem::replace(m, Message::new(Role::User, Vec::new()));
        let usage = match source {
            SessionSource::Pi if m.role == Role::Assistant => {
                m.original.as_ref().and_then(pi_usage)
            }
            SessionSource::Pi => None,
            SessionSource::ClaudeCode => None,
        };
        entries.push((id.clone(), EntryKind::Message(Box::new(m))));
        if let Some(usage) = usage {
            let mut usage_id = format!("{id}.usage");
            let mut k = 1;
            while used.contains(&usage_id) {
                k += 1;
                usage_id = format!("{id}.usage{k}");
            }
            used.insert(usage_id.clone());
            entries.push((usage_id, EntryKind::Usage(usage, None)));
        }
    }
}

/// The usage pi recorded in an assistant message (pi's `getAssistantUsage`: none for an aborted
/// or failed response, whose usage is not the context's).
fn pi_usage(message: &Original) -> Option<Usage> {
    if message.get("role").as_ref().and_then(Value::as_str) != Some("assistant") {
        return None;
    }
    if matches!(
        message.get("stopReason").as_ref().and_then(Value::as_str),
        Some("aborted" | "error")
    ) {
        return None;
    }
    let usage = message.get("usage")?;
    let usage = usage.as_object()?;
    let count = |key: &str| usage.get(key).and_then(Value::as_u64);
    let usage = Usage {
        input: count("input")?,
        output: count("output")?,
        cache_read: count("cacheRead").unwrap_or(0),
        cache_write: count("cacheWrite").unwrap_or(0),
    };
    (usage.total() > 0).then_some(usage)
}
