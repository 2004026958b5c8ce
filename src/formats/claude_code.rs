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
//! Queued messages: what the user types while the agent is busy is recorded as a `queue-operation`
//! `enqueue` line with its `content`. A `dequeue` means the prompt was taken up as a turn of its
//! own, written later as an ordinary `user` line, so the queued copy is dropped. Otherwise (a
//! `remove`, the message absorbed into the running turn, or no later operation) it becomes a user
//! text message, placed where the agent saw it: before the next assistant message that is not
//! part of the exchange under way (after the tool results of that exchange), or at the end. A
//! queued slash command (`/mcp`) and a text that a later `user` line repeats are not imported
//! again. Its entry's `lines` is the `enqueue` line.
//!
//! Each message's `original` is the API message `{ role, content }` (line metadata such as
//! `uuid` is in [`EntryRef`]), so exporting with the Anthropic adapter gives API-ready messages.

use serde_json::{Map, Value};

use crate::core::error::{Error, Result};

use super::anthropic;
use super::json_path::{as_object, opt_u64};
use super::session::{CompactionRecord, EntryRef, ImportedSession, SessionSource};
use super::session_lines::{at_line, check_writer, parse_lines, Lines, ReadOptions};
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
    import_claude_code_lines(parse_lines(text, options)?)
}

/// Imports a Claude Code transcript from its lines, read by [`super::session_lines::LineReader`] (a piece at a
/// time) or [`parse_lines`].
pub fn import_claude_code_lines(read: Lines) -> Result<ImportedSession> {
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
    let typed = user_texts(&lines, subagent);
    let mut queue = Queue::default();
    // Each line is let go once read: its message is in `pending` (or the session) by then.
    for (n, value) in lines {
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
            "user" | "assistant" => {
                if !continues_exchange(&pending, obj, &kind) {
                    queue.flush(&mut pending);
                }
                add_line(&mut pending, obj, n, &kind)?
            }
            "queue-operation" => {
                if !queue.operation(obj, n, &typed) {
                    session.other_entries.push((n, kind));
                }
            }
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
    queue.close();
    queue.flush(&mut pending);
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

/// A queued message: the `enqueue` line, its text and time.
struct Queued {
    line: usize,
    /// False for a slash command or a text a later `user` line repeats: tracked, never written.
    import: bool,
    text: String,
    timestamp: Option<i64>,
}

/// The input queue as the `queue-operation` lines record it (see the module documentation).
#[derive(Default)]
struct Queue {
    /// Enqueued and not yet taken.
    waiting: Vec<Queued>,
    /// Absorbed into the running turn, to be written before the next new assistant message.
    absorbed: Vec<Queued>,
}

impl Queue {
    /// Applies one `queue-operation` line; true when the line becomes (part of) a message.
    fn operation(&mut self, obj: &Map<String, Value>, n: usize, typed: &[(usize, String)]) -> bool {
        let content = obj.get("content").and_then(Value::as_str);
        let taken = |waiting: &mut Vec<Queued>| {
            let at = match content {
                Some(c) => waiting.iter().position(|q| q.text.trim() == c.trim()),
                None => (!waiting.is_empty()).then_some(0),
            };
            at.map(|i| waiting.remove(i))
        };
        match obj.get("operation").and_then(Value::as_str) {
            Some("enqueue") => {
                let Some(text) = content.filter(|c| !c.trim().is_empty()) else {
                    return false;
                };
                let repeated = typed.iter().any(|(m, t)| *m > n && t.trim() == text.trim());
                let import = !repeated && !is_slash_command(text);
                self.waiting.push(Queued {
                    line: n,
                    import,
                    text: text.to_string(),
                    timestamp: obj
                        .get("timestamp")
                        .and_then(Value::as_str)
                        .and_then(crate::core::message::parse_iso8601_millis),
                });
                import
            }
            Some("dequeue") => {
                taken(&mut self.waiting);
                false
            }
            Some("remove") => {
                if let Some(q) = taken(&mut self.waiting) {
                    self.absorbed.push(q);
                }
                false
            }
            _ => false,
        }
    }

    /// The messages never taken up are written at the end.
    fn close(&mut self) {
        self.absorbed.append(&mut self.waiting);
    }

    /// Writes the absorbed messages as user messages.
    fn flush(&mut self, pending: &mut Vec<Pending>) {
        for q in self.absorbed.drain(..).filter(|q| q.import) {
            pending.push(Pending {
                role: "user",
                content: Vec::new(),
                string_content: Some(q.text),
                lines: vec![q.line],
                id: None,
                parent_id: None,
                api_id: None,
                tool_results_only: false,
                compact_summary: false,
                timestamp: q.timestamp,
            });
        }
    }
}

/// `/name` or `/name args`: a command for the agent's interface, not a message to the model.
fn is_slash_command(text: &str) -> bool {
    let Some(rest) = text.trim_start().strip_prefix('/') else {
        return false;
    };
    let word = rest.split_whitespace().next().unwrap_or_default();
    word.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':'))
}

/// True when a `user` or `assistant` line continues the exchange under way: tool results, or
/// another block of the last assistant message.
fn continues_exchange(pending: &[Pending], obj: &Map<String, Value>, kind: &str) -> bool {
    let message = obj.get("message").and_then(Value::as_object);
    let content = message.and_then(|m| m.get("content"));
    if kind == "user" {
        return matches!(content, Some(Value::Array(items)) if !items.is_empty()
            && items.iter().all(|b| b.get("type").and_then(Value::as_str) == Some("tool_result")));
    }
    let id = message.and_then(|m| m.get("id")).and_then(Value::as_str);
    let last = pending.iter().rposition(|p| p.role == "assistant");
    id.is_some()
        && last
            .and_then(|a| pending.get(a))
            .and_then(|p| p.api_id.as_deref())
            == id
}

/// The text of every `user` line of the conversation with its line number (string content, or its
/// text blocks joined).
fn user_texts(lines: &[(usize, Value)], subagent: bool) -> Vec<(usize, String)> {
    lines
        .iter()
        .filter(|(_, v)| v.get("type").and_then(Value::as_str) == Some("user"))
        .filter(|(_, v)| subagent || v.get("isSidechain") != Some(&Value::Bool(true)))
        .filter_map(|(n, v)| {
            let text = match v.get("message")?.get("content")? {
                Value::String(s) => s.clone(),
                Value::Array(items) => items
                    .iter()
                    .filter_map(|b| b.get("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join("\n"),
                _ => return None,
            };
            Some((*n, text))
        })
        .collect()
}
