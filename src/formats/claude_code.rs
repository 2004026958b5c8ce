//! Claude Code transcripts (JSONL) imported into an [`ImportedSession`].
//!
//! `user` and `assistant` lines carry Anthropic-shaped `message` objects. Claude Code writes one
//! API assistant message as several lines (one per content block, same `message.id`), with the
//! tool results of earlier blocks written in between; the importer rebuilds the API messages:
//! the blocks of one `message.id` are merged into one assistant message and the tool-result-only
//! user lines that follow its blocks into one user message after it.
//!
//! Messages follow file order (not the `parentUuid` chain, which does not link parallel tool
//! results). Lines with `isSidechain: true` (sub-agent work) are left out of a main session; a
//! sub-agent transcript, whose every message line is a sidechain line, imports as its messages. A `system` line with
//! subtype `compact_boundary` becomes a [`CompactionRecord`] whose summary is the following
//! `isCompactSummary` user message. Other lines (`progress`, `file-history-snapshot`, `system`,
//! `queue-operation`, `summary`...) are listed in `other_entries`.
//!
//! Each message's `original` is the API message `{ role, content }` (line metadata such as
//! `uuid` is in [`EntryRef`]), so exporting with the Anthropic adapter gives API-ready messages.

use serde_json::{Map, Value};

use crate::core::error::{Error, Result};

use super::anthropic;
use super::json_path::{as_object, opt_u64};
use super::pi_session::at_line;
use super::session::{CompactionRecord, EntryRef, ImportedSession, SessionSource};
use super::session_file::{check_writer, parse_lines, ReadOptions};
use super::Format;

/// A message being assembled from one or more lines.
struct Pending {
    role: &'static str,
    content: Vec<Value>,
    /// Set when the content was a plain string (kept as a string if nothing is merged in).
    string_content: Option<String>,
    lines: Vec<usize>,
    id: Option<String>,
    parent_id: Option<String>,
    api_id: Option<String>,
    tool_results_only: bool,
    compact_summary: bool,
    timestamp: Option<i64>,
}

/// Imports a Claude Code transcript, leaving out an incomplete last line (see
/// [`import_claude_code_with`]).
pub fn import_claude_code(text: &str) -> Result<ImportedSession> {
    import_claude_code_with(text, ReadOptions::default())
}

/// Imports a Claude Code transcript. Never panics; errors are `INVALID_INPUT` naming the line, and
/// a file of another agent is refused ([`session_file`](super::session_file)).
pub fn import_claude_code_with(text: &str, options: ReadOptions) -> Result<ImportedSession> {
    let read = parse_lines(text, options)?;
    check_writer(&read.lines, SessionSource::ClaudeCode)?;
    let lines = read.lines;
    let mut session = ImportedSession {
        source: SessionSource::ClaudeCode,
        format: Format::Anthropic,
        session_id: None,
        version: None,
        messages: Vec::new(),
        entries: Vec::new(),
        compactions: Vec::new(),
        other_entries: Vec::new(),
        warnings: read.warnings,
    };
    // A sub-agent transcript holds only sidechain messages: then they are the conversation. In a
    // main session, sidechain lines (sub-agent work) stay out of it.
    let is_message = |v: &Value| {
        matches!(
            v.get("type").and_then(Value::as_str),
            Some("user" | "assistant")
        )
    };
    let subagent = lines.iter().any(|(_, v)| is_message(v))
        && lines
            .iter()
            .filter(|(_, v)| is_message(v))
            .all(|(_, v)| v.get("isSidechain") == Some(&Value::Bool(true)));
    let mut pending: Vec<Pending> = Vec::new();
    // (compaction index, number of pending messages at the boundary)
    let mut boundaries: Vec<(usize, usize)> = Vec::new();
    for (n, value) in &lines {
        let n = *n;
        let Some(obj) = value.as_object() else {
            continue;
        };
        let str_field = |k: &str| obj.get(k).and_then(Value::as_str);
        if session.session_id.is_none() {
            session.session_id = str_field("sessionId").map(str::to_string);
        }
        if session.version.is_none() {
            session.version = str_field("version").map(str::to_string);
        }
        let kind = str_field("type").unwrap_or("").to_string();
        if !subagent && obj.get("isSidechain") == Some(&Value::Bool(true)) {
            session.other_entries.push((n, format!("sidechain {kind}")));
            continue;
        }
        match kind.as_str() {
            "user" | "assistant" => add_line(&mut pending, obj, n, &kind)?,
            "system" if str_field("subtype") == Some("compact_boundary") => {
                let meta = obj.get("compactMetadata").and_then(Value::as_object);
                let tokens_before = match meta {
                    Some(m) => {
                        opt_u64(m, "preTokens", "compactMetadata").map_err(|e| at_line(n, e))?
                    }
                    None => None,
                };
                boundaries.push((session.compactions.len(), pending.len()));
                session.compactions.push(CompactionRecord {
                    line: n,
                    id: str_field("uuid").map(str::to_string),
                    summary: String::new(),
                    tokens_before,
                    trigger: meta
                        .and_then(|m| m.get("trigger"))
                        .and_then(Value::as_str)
                        .map(str::to_string),
                    first_kept_entry_id: None,
                    first_kept_message: None,
                    at_message: 0,
                    summary_message: None,
                    original: value.clone(),
                });
            }
            _ => session.other_entries.push((n, kind)),
        }
    }
    for (ci, at) in boundaries {
        if let Some(record) = session.compactions.get_mut(ci) {
            record.at_message = at;
            let summary_idx = pending
                .iter()
                .enumerate()
                .skip(at)
                .find(|(_, p)| p.compact_summary)
                .map(|(i, _)| i);
            record.summary_message = summary_idx;
        }
    }
    for p in pending {
        let first_line = p.lines.first().copied().unwrap_or(0);
        let content = match (&p.string_content, p.content.is_empty()) {
            (Some(s), true) => Value::String(s.clone()),
            _ => Value::Array(p.content),
        };
        let mut api = Map::new();
        api.insert("role".into(), Value::String(p.role.into()));
        api.insert("content".into(), content);
        let api = Value::Object(api);
        let mut message =
            anthropic::import_message(&api, "message").map_err(|e| at_line(first_line, e))?;
        message.timestamp = p.timestamp;
        if p.compact_summary {
            message.summary = true;
        }
        session.messages.push(message);
        session.entries.push(EntryRef {
            line: first_line,
            lines: p.lines,
            id: p.id,
            parent_id: p.parent_id,
        });
    }
    for record in &mut session.compactions {
        if let Some(m) = record.summary_message.and_then(|i| session.messages.get(i)) {
            record.summary = m.plain_text();
        }
    }
    Ok(session)
}

fn add_line(
    pending: &mut Vec<Pending>,
    obj: &Map<String, Value>,
    n: usize,
    kind: &str,
) -> Result<()> {
    let message = match obj.get("message") {
        Some(m) => m,
        None => {
            return Err(at_line(
                n,
                Error::invalid_input("message", "missing required field \"message\""),
            ))
        }
    };
    let mobj = as_object(message, "message").map_err(|e| at_line(n, e))?;
    // Validates the blocks and reports the exact path of a bad field.
    anthropic::parse_content(mobj, "message").map_err(|e| at_line(n, e))?;
    let role: &'static str = if kind == "assistant" {
        "assistant"
    } else {
        "user"
    };
    let (blocks, string_content) = match mobj.get("content") {
        Some(Value::Array(items)) => (items.clone(), None),
        Some(Value::String(s)) => (Vec::new(), Some(s.clone())),
        _ => (Vec::new(), None),
    };
    let tool_results_only = role == "user"
        && !blocks.is_empty()
        && blocks
            .iter()
            .all(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"));
    let api_id = mobj.get("id").and_then(Value::as_str).map(str::to_string);
    let str_field = |k: &str| obj.get(k).and_then(Value::as_str).map(str::to_string);

    let target = if role == "assistant" {
        api_id.as_ref().and_then(|id| {
            let a = pending.iter().rposition(|p| p.role == "assistant")?;
            let same = pending.get(a)?.api_id.as_ref() == Some(id);
            let only_results_after = pending.iter().skip(a + 1).all(|p| p.tool_results_only);
            (same && only_results_after).then_some(a)
        })
    } else if tool_results_only {
        pending
            .len()
            .checked_sub(1)
            .filter(|last| pending.get(*last).is_some_and(|p| p.tool_results_only))
    } else {
        None
    };
    match target.and_then(|t| pending.get_mut(t)) {
        Some(p) => {
            if let Some(s) = p.string_content.take() {
                p.content
                    .push(serde_json::json!({ "type": "text", "text": s }));
            }
            p.content.extend(blocks);
            if let Some(s) = string_content {
                p.content
                    .push(serde_json::json!({ "type": "text", "text": s }));
            }
            p.lines.push(n);
        }
        None => pending.push(Pending {
            role,
            content: blocks,
            string_content,
            lines: vec![n],
            id: str_field("uuid"),
            parent_id: str_field("parentUuid"),
            api_id,
            tool_results_only,
            compact_summary: obj.get("isCompactSummary") == Some(&Value::Bool(true)),
            timestamp: obj
                .get("timestamp")
                .and_then(Value::as_str)
                .and_then(crate::core::message::parse_iso8601_millis),
        }),
    }
    Ok(())
}
