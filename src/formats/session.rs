//! What a session-file importer returns: the messages, where each came from, and the compactions
//! the agent recorded.

use serde_json::Value;

use crate::core::message::{Message, Original, Part, Role};

use super::pi::{COMPACTION_SUMMARY_PREFIX, SUMMARY_SUFFIX};
use super::Format;

/// The agent that wrote the session file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionSource {
    /// pi (`~/.pi/agent/sessions/*.jsonl`), any version.
    Pi,
    /// Claude Code (`~/.claude/projects/*/*.jsonl`).
    ClaudeCode,
}

/// Where a message came from in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryRef {
    /// 1-based line of the (first) line the message was read from.
    pub line: usize,
    /// All 1-based lines merged into this message (Claude Code writes one API message as several
    /// lines).
    pub lines: Vec<usize>,
    /// The entry id (pi v2+ `id`, Claude Code `uuid` of the first line), when present.
    pub id: Option<String>,
    /// The parent entry id (pi `parentId`, Claude Code `parentUuid`), when present.
    pub parent_id: Option<String>,
}

/// A compaction the agent recorded.
#[derive(Clone, Debug, PartialEq)]
pub struct CompactionRecord {
    /// 1-based line of the compaction entry (pi `compaction`, Claude Code `compact_boundary`).
    pub line: usize,
    /// The entry id, when present.
    pub id: Option<String>,
    /// The summary text as the agent stored it (without any framing).
    pub summary: String,
    /// Context tokens before the compaction (pi `tokensBefore`, Claude Code `preTokens`).
    pub tokens_before: Option<u64>,
    /// `"manual"` or `"auto"` when recorded.
    pub trigger: Option<String>,
    /// The first entry kept verbatim: pi `firstKeptEntryId`, or the id of the entry at pi v1's
    /// `firstKeptEntryIndex`.
    pub first_kept_entry_id: Option<String>,
    /// Index into [`ImportedSession::messages`] of the first message kept verbatim after this
    /// compaction (`None`: nothing before the compaction is kept).
    pub first_kept_message: Option<usize>,
    /// Number of messages that came before the compaction entry in the file.
    pub at_message: usize,
    /// Index of the message that carries the summary in [`ImportedSession::messages`] (Claude Code
    /// writes it as a message), if any.
    pub summary_message: Option<usize>,
    /// The entry as written.
    pub original: Value,
}

/// A session file, imported.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportedSession {
    /// Who wrote the file.
    pub source: SessionSource,
    /// The format of the messages' `original` objects (`Pi` for pi, `Anthropic` for Claude Code).
    pub format: Format,
    /// The session id from the header or lines, when present.
    pub session_id: Option<String>,
    /// The file's version (pi header `version`, 1 when absent; Claude Code `version` string).
    pub version: Option<String>,
    /// Every message of the file's conversation, in file order (the whole history, including
    /// what compactions summarized).
    pub messages: Vec<Message>,
    /// Where each message came from (same length and order as `messages`).
    pub entries: Vec<EntryRef>,
    /// The compactions, in file order.
    pub compactions: Vec<CompactionRecord>,
    /// Lines that hold no message (model changes, progress, snapshots...), as `(line, type)`.
    pub other_entries: Vec<(usize, String)>,
    /// What reading left out (an incomplete last line), each naming its line.
    pub warnings: Vec<String>,
}

impl ImportedSession {
    /// `importSession`'s `compactions`: `[{ line, id, summary, tokensBefore, trigger,
    /// firstKeptEntryId, firstKeptIndex, atMessage, summaryIndex }]`; the first kept entry's id
    /// is the recorded one, or the id of the entry of the first kept message.
    pub fn compactions_json(&self) -> Value {
        let one = |c: &CompactionRecord| {
            let first_kept_id = c.first_kept_entry_id.clone().or_else(|| {
                c.first_kept_message
                    .and_then(|i| self.entries.get(i))
                    .and_then(|e| e.id.clone())
            });
            serde_json::json!({"line": c.line, "id": c.id, "summary": c.summary,
                "tokensBefore": c.tokens_before, "trigger": c.trigger,
                "firstKeptEntryId": first_kept_id, "firstKeptIndex": c.first_kept_message,
                "atMessage": c.at_message, "summaryIndex": c.summary_message})
        };
        self.compactions.iter().map(one).collect()
    }

    /// The context the agent would send now: after the latest compaction, its summary (the
    /// recorded summary message, or for pi a `compactionSummary` message), then the kept messages
    /// and everything after; without compactions, all messages.
    pub fn context(&self) -> Vec<Message> {
        let (head, start) = self.context_parts();
        let mut out: Vec<Message> = head.into_iter().collect();
        if let Some(rest) = self.messages.get(start..) {
            out.extend_from_slice(rest);
        }
        out
    }

    /// [`ImportedSession::context`] in parts: a summary message made for it (pi's compactions
    /// that recorded none), then `messages[start..]` (`start` past the end: nothing).
    pub fn context_parts(&self) -> (Option<Message>, usize) {
        let Some(last) = self.compactions.last() else {
            return (None, 0);
        };
        if let Some(idx) = last.summary_message {
            return (None, idx);
        }
        let start = last.first_kept_message.unwrap_or(last.at_message);
        (Some(pi_summary_message(last)), start)
    }

    /// `importSession`'s `messages` beside its `history` (the messages exported as `exported`
    /// values): when each message is one value, the context shares the history's values from
    /// `start` on after its own `head` ([`ImportedSession::context_parts`]); otherwise it is
    /// exported on its own.
    pub fn context_beside_history(&self, exported: usize) -> ContextBeside {
        if exported != self.messages.len() {
            return ContextBeside::Own(self.context());
        }
        let (head, start) = self.context_parts();
        ContextBeside::Shared {
            head: head.into_iter().collect(),
            start: start.min(self.messages.len()),
        }
    }

    /// Number of tool calls and tool results across all messages.
    pub fn tool_counts(&self) -> (usize, usize) {
        let calls = self.messages.iter().map(|m| m.tool_call_ids().len()).sum();
        let results = self
            .messages
            .iter()
            .map(|m| m.tool_result_ids().len())
            .sum();
        (calls, results)
    }
}

/// How the context is made beside the history ([`ImportedSession::context_beside_history`]).
#[derive(Clone, Debug, PartialEq)]
pub enum ContextBeside {
    /// `head`, then the history's own values from `start` on (`start` at most its length).
    Shared { head: Vec<Message>, start: usize },
    /// The context's messages, exported apart from the history.
    Own(Vec<Message>),
}

/// A pi `compactionSummary` message for a compaction record.
fn pi_summary_message(record: &CompactionRecord) -> Message {
    let text = format!(
        "{COMPACTION_SUMMARY_PREFIX}{}{SUMMARY_SUFFIX}",
        record.summary
    );
    let mut message = Message::new(Role::User, vec![Part::text(text)]);
    message.summary = true;
    let mut original = serde_json::Map::new();
    original.insert("role".into(), Value::String("compactionSummary".into()));
    original.insert("summary".into(), Value::String(record.summary.clone()));
    original.insert(
        "tokensBefore".into(),
        Value::from(record.tokens_before.unwrap_or(0)),
    );
    if let Some(ts) = record
        .original
        .get("timestamp")
        .and_then(Value::as_str)
        .and_then(crate::core::message::parse_iso8601_millis)
    {
        original.insert("timestamp".into(), Value::from(ts));
        message.timestamp = Some(ts);
    }
    message.original = Some(Original::new(&Value::Object(original)));
    message
}
