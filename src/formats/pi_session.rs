//! pi session files (JSONL) imported into an [`ImportedSession`].
//!
//! Every version is read, and the compaction design of seed 000 (`keepLastMessages`: the last N
//! messages before the entry, never reaching back past the previous compaction).
//! v1 (no entry ids; `compaction.firstKeptEntryIndex` counts file entries
//! from the header at 0), v2+ (entries with `id` / `parentId`, `compaction.firstKeptEntryId`,
//! `branch_summary`, v3 `custom_message`). Line types: `session` (header), `message`,
//! `compaction`, `branch_summary` and `custom_message` (both become messages, as pi shows them
//! to the model), and anything else (`model_change`, `thinking_level_change`, `label`,
//! `session_info`, `custom`, unknown types) listed in `other_entries`.
//!
//! With entry ids the file is a tree: the messages are those on the path from the root to the
//! last entry (the active branch). Errors name the line: `line 17: ...`. The lines are read by
//! [`session_file`](super::session_file) (an incomplete last line, a file of another agent).

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::core::error::{Error, Result};

use super::json_path::{as_object, opt_str, opt_u64, req_str};
use super::session::{CompactionRecord, EntryRef, ImportedSession, SessionSource};
use super::session_lines::{at_line, check_writer, parse_lines, Lines, ReadOptions};
use super::{pi, Format};

/// One parsed line.
struct Line {
    number: usize,
    value: Value,
}

impl Line {
    fn obj(&self) -> Option<&Map<String, Value>> {
        self.value.as_object()
    }
    fn str_field(&self, key: &str) -> Option<&str> {
        self.obj().and_then(|o| o.get(key)).and_then(Value::as_str)
    }
}

/// Imports a pi session file, leaving out an incomplete last line (see
/// [`import_pi_session_with`]).
pub fn import_pi_session(text: &str) -> Result<ImportedSession> {
    import_pi_session_with(text, ReadOptions::default())
}

/// Imports a pi session file. Never panics; errors are `INVALID_INPUT` naming the line, and a
/// file of another agent is refused ([`session_file`](super::session_file)).
pub fn import_pi_session_with(text: &str, options: ReadOptions) -> Result<ImportedSession> {
    import_pi_session_lines(parse_lines(text, options)?)
}

/// Imports a pi session file from its lines, read by [`super::session_lines::LineReader`] (a piece at a
/// time) or [`parse_lines`].
pub fn import_pi_session_lines(read: Lines) -> Result<ImportedSession> {
    for (number, value) in &read.lines {
        let obj = value
            .as_object()
            .ok_or_else(|| Error::invalid_input("line", "not an object"))?;
        req_str(obj, "type", "entry").map_err(|e| at_line(*number, e))?;
    }
    check_writer(&read.lines, SessionSource::Pi)?;
    let lines: Vec<Line> = read
        .lines
        .into_iter()
        .map(|(number, value)| Line { number, value })
        .collect();
    let on_path = active_path(&lines);
    let mut session = ImportedSession {
        source: SessionSource::Pi,
        format: Format::Pi,
        session_id: None,
        version: None,
        messages: Vec::new(),
        entries: Vec::new(),
        compactions: Vec::new(),
        other_entries: Vec::new(),
        warnings: read.warnings,
    };
    // (entry index in file, message index) for each message, to resolve compaction targets.
    let mut message_at_entry: Vec<(usize, usize)> = Vec::new();
    let mut pending: Vec<(usize, usize, FirstKept)> = Vec::new();
    // A message line's message is taken out of it once read: the lines stay for their ids only.
    let mut lines = lines;
    for (entry_index, line) in lines.iter_mut().enumerate() {
        if !on_path.get(entry_index).copied().unwrap_or(true) {
            continue;
        }
        let kind = line.str_field("type").unwrap_or("").to_string();
        let kind = kind.as_str();
        let n = line.number;
        match kind {
            "session" => {
                session.session_id = line.str_field("id").map(str::to_string);
                let version = line
                    .obj()
                    .and_then(|o| o.get("version"))
                    .map(|v| match v {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    })
                    .unwrap_or_else(|| "1".to_string());
                session.version = Some(version);
            }
            "message" | "branch_summary" | "custom_message" => {
                let message_value = message_value(line, kind)?;
                let path = if kind == "message" {
                    "message"
                } else {
                    "entry"
                };
                let mut message =
                    pi::import_message(&message_value, path).map_err(|e| at_line(n, e))?;
                if message.timestamp.is_none() {
                    message.timestamp = line
                        .str_field("timestamp")
                        .and_then(crate::core::message::parse_iso8601_millis);
                }
                message_at_entry.push((entry_index, session.messages.len()));
                session.messages.push(message);
                session.entries.push(EntryRef {
                    line: n,
                    lines: vec![n],
                    id: line.str_field("id").map(str::to_string),
                    parent_id: line.str_field("parentId").map(str::to_string),
                });
            }
            "compaction" => {
                let obj = line
                    .obj()
                    .ok_or_else(|| Error::invalid_input("line", "not an object"))?;
                let record = compaction(obj, line, session.messages.len())?;
                let first_kept = match (
                    obj.get("firstKeptEntryIndex").and_then(Value::as_u64),
                    record.first_kept_entry_id.clone(),
                    obj.get("keepLastMessages").and_then(Value::as_u64),
                ) {
                    (Some(i), _, _) => FirstKept::Index(usize::try_from(i).unwrap_or(usize::MAX)),
                    (None, Some(id), _) => FirstKept::Id(id),
                    (None, None, Some(n)) => {
                        FirstKept::Last(usize::try_from(n).unwrap_or(usize::MAX))
                    }
                    (None, None, None) => FirstKept::None,
                };
                pending.push((session.compactions.len(), entry_index, first_kept));
                session.compactions.push(record);
            }
            other => session.other_entries.push((n, other.to_string())),
        }
    }
    for (ci, _entry_index, first_kept) in pending {
        // The design of compaction (seed 000): keep the last N messages before the entry, counting
        // only those after the previous compaction.
        let previous_boundary = ci
            .checked_sub(1)
            .and_then(|p| session.compactions.get(p))
            .map_or(0, |p| p.at_message);
        let Some(record) = session.compactions.get_mut(ci) else {
            continue;
        };
        if let FirstKept::Last(n) = first_kept {
            let start = record.at_message.saturating_sub(n).max(previous_boundary);
            record.first_kept_message = (start < record.at_message).then_some(start);
            continue;
        }
        let target_entry = match first_kept {
            FirstKept::Index(i) => {
                if let Some(id) = lines.get(i).and_then(|l| l.str_field("id")) {
                    record.first_kept_entry_id = Some(id.to_string());
                }
                Some(i)
            }
            FirstKept::Id(id) => lines
                .iter()
                .position(|l| l.str_field("id") == Some(id.as_str())),
            FirstKept::None | FirstKept::Last(_) => None,
        };
        record.first_kept_message = target_entry.and_then(|t| {
            message_at_entry
                .iter()
                .find(|(e, _)| *e >= t)
                .map(|(_, m)| *m)
                .filter(|m| *m < record.at_message)
        });
    }
    Ok(session)
}

enum FirstKept {
    Index(usize),
    Id(String),
    /// Seed 000's `keepLastMessages`.
    Last(usize),
    None,
}

/// The pi message a line stands for (`branch_summary` and `custom_message` entries are shown to
/// the model as `branchSummary` and `custom` messages).
fn message_value(line: &mut Line, kind: &str) -> Result<Value> {
    let number = line.number;
    if kind == "message" {
        let message = line
            .value
            .as_object_mut()
            .and_then(|o| o.get_mut("message"));
        return match message {
            Some(v) => {
                as_object(v, "message").map_err(|e| at_line(number, e))?;
                Ok(v.take())
            }
            None => Err(at_line(
                number,
                Error::invalid_input("message", "missing required field \"message\""),
            )),
        };
    }
    let obj = line
        .obj()
        .ok_or_else(|| Error::invalid_input("line", "not an object"))?;
    let mut m = obj.clone();
    m.shift_remove("type");
    m.shift_remove("id");
    m.shift_remove("parentId");
    let role = if kind == "branch_summary" {
        "branchSummary"
    } else {
        "custom"
    };
    m.insert("role".into(), Value::String(role.into()));
    if let Some(ts) = line
        .str_field("timestamp")
        .and_then(crate::core::message::parse_iso8601_millis)
    {
        m.insert("timestamp".into(), Value::from(ts));
    }
    Ok(Value::Object(m))
}

fn compaction(
    obj: &Map<String, Value>,
    line: &Line,
    at_message: usize,
) -> Result<CompactionRecord> {
    let n = line.number;
    let summary = req_str(obj, "summary", "entry").map_err(|e| at_line(n, e))?;
    Ok(CompactionRecord {
        line: n,
        id: opt_str(obj, "id", "entry")
            .map_err(|e| at_line(n, e))?
            .map(str::to_string),
        summary: summary.to_string(),
        tokens_before: opt_u64(obj, "tokensBefore", "entry").map_err(|e| at_line(n, e))?,
        trigger: None,
        first_kept_entry_id: opt_str(obj, "firstKeptEntryId", "entry")
            .map_err(|e| at_line(n, e))?
            .map(str::to_string),
        first_kept_message: None,
        at_message,
        summary_message: None,
        original: line.value.clone(),
    })
}

/// For files with entry ids: which entries lie on the path from the root to the last entry.
/// Entries without an id (the header, v1 files) always count as on the path.
fn active_path(lines: &[Line]) -> Vec<bool> {
    let ids: HashMap<&str, usize> = lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| l.str_field("id").map(|id| (id, i)))
        .filter(|(_, i)| lines.get(*i).and_then(|l| l.str_field("type")) != Some("session"))
        .collect();
    if ids.is_empty() {
        return vec![true; lines.len()];
    }
    let mut on = vec![false; lines.len()];
    for (i, l) in lines.iter().enumerate() {
        if l.str_field("type") == Some("session") {
            if let Some(slot) = on.get_mut(i) {
                *slot = true;
            }
        }
    }
    let leaf = lines
        .iter()
        .rposition(|l| l.str_field("id").is_some() && l.str_field("type") != Some("session"));
    let mut cur = leaf;
    let mut steps = 0usize;
    while let Some(i) = cur {
        match on.get_mut(i) {
            Some(slot) if !*slot => *slot = true,
            _ => break, // already visited: a cycle
        }
        steps += 1;
        if steps > lines.len() {
            break;
        }
        cur = lines
            .get(i)
            .and_then(|l| l.str_field("parentId"))
            .and_then(|p| ids.get(p).copied());
    }
    // Entries without ids (other than the header) stay included.
    for (i, l) in lines.iter().enumerate() {
        if l.str_field("id").is_none() {
            if let Some(slot) = on.get_mut(i) {
                *slot = true;
            }
        }
    }
    on
}
