//! The entries of a session log and their JSONL lines.
//!
//! A log is one header line (`{"type":"session",...}`) followed by entries, each one JSON object on
//! one line with `type`, `id` and `parentId`. Entries are only ever appended. A line is written
//! from its entry when asked for; a line read that writing would not give back byte for byte (another
//! writer's key order or numbers) is kept as it was read, so that `toJSONL → fromJSONL → toJSONL` is
//! byte-identical while a log read back holds no second copy of what its entries hold.

use serde_json::{Map, Value};

use crate::core::error::{Error, Result};
use crate::core::estimate::{Learned, Usage};
use crate::core::message::Message;

/// The version of the log format written by this package.
pub const LOG_VERSION: u64 = 1;

/// The first line of a log.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    /// The session's id.
    pub id: String,
    /// The message format of the `message` entries (`"ai-sdk"`, `"openai"`, ...).
    pub format: String,
    /// For a branch: the session and entry it was branched from (`None`: before its first entry).
    pub branched_from: Option<(String, Option<String>)>,
    /// The line as written or read.
    pub line: String,
}

/// A part of a message hidden behind a replacement (TTL pruning, tool-output pruning, truncation).
#[derive(Clone, Debug, PartialEq)]
pub struct Hidden {
    /// The message entry.
    pub entry_id: String,
    /// The index of the part in the message.
    pub part: usize,
    /// What stands in its place.
    pub replacement: Replacement,
}

/// What replaces a hidden part.
#[derive(Clone, Debug, PartialEq)]
pub enum Replacement {
    /// A tool result's output becomes this text.
    Output(String),
    /// A tool call's input becomes this value.
    Input(Value),
}

/// A compaction: the summary that stands for everything before `first_kept_entry_id`.
#[derive(Clone, Debug, PartialEq)]
pub struct Compaction {
    /// The summary text (without the framing prefix), `None` when the strategy dropped messages
    /// without summarizing and there was no earlier summary.
    pub summary: Option<String>,
    /// The first message entry kept verbatim after the summary (`None`: only what follows this
    /// entry).
    pub first_kept_entry_id: Option<String>,
    /// When it was made (ISO 8601, seed 000's `timestamp`); absent in older logs and imports
    /// without one.
    pub timestamp: Option<String>,
    /// How many message entries before this entry stay verbatim (seed 000's `keepLastMessages`:
    /// from `first_kept_entry_id` on); absent in older logs.
    pub keep_last_messages: Option<usize>,
    /// System messages before the kept tail that stay, placed first.
    pub system_entry_ids: Vec<String>,
    /// Pinned messages that stay, placed right after the summary.
    pub pinned_entry_ids: Vec<String>,
    /// Messages before the kept tail that a strategy keeps verbatim (Codex's recent user
    /// messages from the summarized part), placed after the pinned ones, in log order.
    pub kept_entry_ids: Vec<String>,
    /// Tokens of the context before the compaction.
    pub tokens_before: usize,
    /// Estimated tokens of the context right after it.
    pub tokens_after: usize,
    /// 1 for the first summary, +1 for each summary that folds in an earlier one.
    pub round: u32,
    /// Entry ids of the user messages that started the turns this summary stands for (including
    /// those of earlier summaries it folds in).
    pub covered_turn_ids: Vec<String>,
    /// The turn whose beginning was summarized while its end stays verbatim.
    pub split_turn_id: Option<String>,
    /// The digest of what was summarized (files, commands, errors, requests), as JSON.
    pub digest: Value,
    /// Workstream state after this compaction, when the summarizer keeps one.
    pub state: Option<Value>,
}

impl Compaction {
    /// Every entry the compaction names, with the key of its line that names it: the first kept
    /// entry, then the system, pinned and kept entries before the tail.
    pub fn named_entries(&self) -> impl Iterator<Item = (&'static str, &String)> + '_ {
        fn all<'a>(
            key: &'static str,
            list: &'a [String],
        ) -> impl Iterator<Item = (&'static str, &'a String)> {
            list.iter().map(move |id| (key, id))
        }
        self.first_kept_entry_id
            .iter()
            .map(|id| ("firstKeptEntryId", id))
            .chain(all("systemEntryIds", &self.system_entry_ids))
            .chain(all("pinnedEntryIds", &self.pinned_entry_ids))
            .chain(all("keptEntryIds", &self.kept_entry_ids))
    }
}

/// What an entry holds.
#[derive(Clone, Debug, PartialEq)]
pub enum EntryKind {
    /// A message of the conversation (its caller's object is `Message::original`).
    Message(Box<Message>),
    /// A compaction.
    Compaction(Box<Compaction>),
    /// Parts hidden behind replacement texts.
    Prune(Vec<Hidden>),
    /// The point a branched session continues from.
    Branch {
        /// The session the branch was made from.
        from_session: String,
        /// The entry it was made at (`None`: before the first entry).
        from_entry: Option<String>,
    },
    /// The provider's usage for the response that ends with the latest assistant message, and
    /// what self-calibration had learned once it was recorded (`calibration` in the line; absent
    /// before anything was learned and in logs written before self-calibration).
    Usage(Usage, Option<Learned>),
    /// A note of the session's memory block.
    Note(String),
    /// The memory block's older notes condensed into a summary.
    NotesCompacted {
        /// The summary of the memory block.
        summary: String,
        /// How many of the oldest notes it stands for.
        notes: usize,
        /// The newest note it stands for: the notes up to it are condensed, whatever came
        /// before them in a log read only in part (a store's live lines). Absent in logs written
        /// before stores, where `notes` counts.
        through: Option<String>,
    },
}

impl EntryKind {
    /// The `type` of the line.
    pub fn type_name(&self) -> &'static str {
        match self {
            EntryKind::Message(_) => "message",
            EntryKind::Compaction(_) => "compaction",
            EntryKind::Prune(_) => "prune",
            EntryKind::Branch { .. } => "branch",
            EntryKind::Usage(..) => "usage",
            EntryKind::Note(_) => "note",
            EntryKind::NotesCompacted { .. } => "notesCompacted",
        }
    }
}

/// One line of the log.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// Unique within the log.
    pub id: String,
    /// The entry before it (`None` for the first).
    pub parent_id: Option<String>,
    /// What it holds.
    pub kind: EntryKind,
    /// The line as read, kept only when writing the entry would not give it back (a line
    /// written by another writer, or with a lone surrogate read as U+FFFD); `None`: written on
    /// demand ([`Entry::line`]).
    line: Option<String>,
}

impl Entry {
    /// A new entry; its line is written when asked for.
    pub fn new(id: String, parent_id: Option<String>, kind: EntryKind) -> Entry {
        Entry {
            id,
            parent_id,
            kind,
            line: None,
        }
    }

    /// The line (no trailing newline): as read, or as this package writes the entry.
    pub fn line(&self) -> std::borrow::Cow<'_, str> {
        match &self.line {
            Some(line) => std::borrow::Cow::Borrowed(line),
            None => {
                std::borrow::Cow::Owned(write_line(&self.id, self.parent_id.as_deref(), &self.kind))
            }
        }
    }

    /// Keeps `line` as the entry's line (it was read from it, and writing would not give it back).
    pub(crate) fn keep_line(&mut self, line: &str) {
        self.line = Some(line.to_string());
    }

    /// The entry as `Session.entries()` lists it: `id`, `parentId`, `type`, and for a compaction
    /// `summary`, `firstKeptEntryId`, `tokensBefore`, `tokensAfter`, `round`.
    pub fn listing(&self) -> Value {
        let mut obj = Map::new();
        obj.insert("id".into(), Value::String(self.id.clone()));
        obj.insert(
            "parentId".into(),
            self.parent_id.clone().map_or(Value::Null, Value::String),
        );
        obj.insert("type".into(), Value::String(self.kind.type_name().into()));
        if let EntryKind::Compaction(c) = &self.kind {
            let opt = |s: &Option<String>| s.clone().map_or(Value::Null, Value::String);
            obj.insert("summary".into(), opt(&c.summary));
            obj.insert("firstKeptEntryId".into(), opt(&c.first_kept_entry_id));
            obj.insert("tokensBefore".into(), Value::from(c.tokens_before));
            obj.insert("tokensAfter".into(), Value::from(c.tokens_after));
            obj.insert("round".into(), Value::from(c.round));
        }
        Value::Object(obj)
    }

    /// The message, for a message entry.
    pub fn message(&self) -> Option<&Message> {
        match &self.kind {
            EntryKind::Message(m) => Some(m),
            _ => None,
        }
    }
}

impl Header {
    /// A new header; its line is written now.
    pub fn new(
        id: String,
        format: String,
        branched_from: Option<(String, Option<String>)>,
    ) -> Header {
        let mut line = format!(
            "{{\"type\":\"session\",\"version\":{LOG_VERSION},\"id\":{},\"format\":{}",
            quote(&id),
            quote(&format)
        );
        if let Some((session, entry)) = &branched_from {
            line.push_str(&format!(
                ",\"branchedFrom\":{{\"session\":{},\"entry\":{}}}",
                quote(session),
                opt_quote(entry.as_deref())
            ));
        }
        line.push('}');
        Header {
            id,
            format,
            branched_from,
            line,
        }
    }

    /// Reads a header line.
    pub fn read(line: &str) -> Result<Header> {
        let value = parse(line, 1)?;
        let obj = object(&value, 1)?;
        if obj.get("type").and_then(Value::as_str) != Some("session") {
            return Err(bad(
                1,
                "type",
                "the first line must be the session header ({\"type\":\"session\",...})",
            ));
        }
        let version = obj.get("version").and_then(Value::as_u64).unwrap_or(0);
        if version == 0 || version > LOG_VERSION {
            return Err(bad(
                1,
                "version",
                format!("unsupported log version (this package reads version {LOG_VERSION})"),
            ));
        }
        let id = string(obj, "id", 1)?;
        let format = string(obj, "format", 1)?;
        let branched_from = match obj.get("branchedFrom").and_then(Value::as_object) {
            Some(b) => Some((
                string(b, "session", 1)?,
                match b.get("entry") {
                    Some(Value::Null) => None,
                    _ => Some(string(b, "entry", 1)?),
                },
            )),
            None => None,
        };
        Ok(Header {
            id,
            format,
            branched_from,
            line: line.to_string(),
        })
    }
}

/// A JSON string literal.
fn quote(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

fn opt_quote(s: Option<&str>) -> String {
    s.map_or_else(|| "null".to_string(), quote)
}

fn ids(list: &[String]) -> String {
    Value::Array(list.iter().cloned().map(Value::String).collect()).to_string()
}

/// Writes the line of an entry, keys in a fixed order (`type`, `id`, `parentId`, then the data).
pub fn write_line(id: &str, parent_id: Option<&str>, kind: &EntryKind) -> String {
    let mut line = format!(
        "{{\"type\":\"{}\",\"id\":{},\"parentId\":{}",
        kind.type_name(),
        quote(id),
        opt_quote(parent_id)
    );
    match kind {
        EntryKind::Message(m) => {
            if let Some(ts) = m.timestamp {
                line.push_str(&format!(",\"timestamp\":{ts}"));
            }
            line.push_str(",\"message\":");
            line.push_str(m.original.as_ref().map_or("null", |o| o.text()));
        }
        EntryKind::Compaction(c) => {
            if let Some(ts) = &c.timestamp {
                line.push_str(&format!(",\"timestamp\":{}", quote(ts)));
            }
            line.push_str(&format!(
                ",\"summary\":{},\"firstKeptEntryId\":{}",
                opt_quote(c.summary.as_deref()),
                opt_quote(c.first_kept_entry_id.as_deref()),
            ));
            if let Some(n) = c.keep_last_messages {
                line.push_str(&format!(",\"keepLastMessages\":{n}"));
            }
            line.push_str(&format!(
                ",\"tokensBefore\":{},\"tokensAfter\":{},\"round\":{},\"coveredTurnIds\":{},\"splitTurnId\":{},\"digest\":{}",
                c.tokens_before,
                c.tokens_after,
                c.round,
                ids(&c.covered_turn_ids),
                opt_quote(c.split_turn_id.as_deref()),
                c.digest
            ));
            if !c.system_entry_ids.is_empty() {
                line.push_str(&format!(",\"systemEntryIds\":{}", ids(&c.system_entry_ids)));
            }
            if !c.pinned_entry_ids.is_empty() {
                line.push_str(&format!(",\"pinnedEntryIds\":{}", ids(&c.pinned_entry_ids)));
            }
            if !c.kept_entry_ids.is_empty() {
                line.push_str(&format!(",\"keptEntryIds\":{}", ids(&c.kept_entry_ids)));
            }
            if let Some(state) = &c.state {
                line.push_str(&format!(",\"state\":{state}"));
            }
        }
        EntryKind::Prune(hidden) => {
            let targets: Vec<String> = hidden
                .iter()
                .map(|h| {
                    let replacement = match &h.replacement {
                        Replacement::Output(text) => format!("\"output\":{}", quote(text)),
                        Replacement::Input(value) => format!("\"input\":{value}"),
                    };
                    format!(
                        "{{\"entryId\":{},\"part\":{},{replacement}}}",
                        quote(&h.entry_id),
                        h.part
                    )
                })
                .collect();
            line.push_str(&format!(",\"hidden\":[{}]", targets.join(",")));
        }
        EntryKind::Branch {
            from_session,
            from_entry,
        } => {
            line.push_str(&format!(
                ",\"fromSession\":{},\"fromEntryId\":{}",
                quote(from_session),
                opt_quote(from_entry.as_deref())
            ));
        }
        EntryKind::Usage(u, learned) => {
            line.push_str(&format!(
                ",\"usage\":{{\"input\":{},\"output\":{},\"cacheRead\":{},\"cacheWrite\":{}}}",
                u.input, u.output, u.cache_read, u.cache_write
            ));
            if let Some(l) = learned {
                line.push_str(&format!(",\"calibration\":{}", l.to_json()));
            }
        }
        EntryKind::Note(text) => line.push_str(&format!(",\"text\":{}", quote(text))),
        EntryKind::NotesCompacted {
            summary,
            notes,
            through,
        } => {
            line.push_str(&format!(
                ",\"summary\":{},\"notes\":{notes}",
                quote(summary)
            ));
            if let Some(id) = through {
                line.push_str(&format!(",\"through\":{}", quote(id)));
            }
        }
    }
    line.push('}');
    line
}

/// Reads one entry line (`number` is 1-based, for errors). Message entries are imported with
/// `import`, which gets the message value and its path.
pub fn read_line(
    line: &str,
    number: usize,
    import: &dyn Fn(&Value, &str) -> Result<Message>,
) -> Result<Entry> {
    let value = parse(line, number)?;
    let obj = object(&value, number)?;
    let id = string(obj, "id", number)?;
    let parent_id = match obj.get("parentId") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return Err(bad(number, "parentId", "must be a string or null")),
    };
    let kind = match obj.get("type").and_then(Value::as_str) {
        Some("message") => {
            let message = obj
                .get("message")
                .ok_or_else(|| bad(number, "message", "a message entry needs its message"))?;
            let path = format!("lines[{}].message", number.saturating_sub(1));
            let mut message = import(message, &path)?;
            if message.timestamp.is_none() {
                message.timestamp = obj.get("timestamp").and_then(Value::as_i64);
            }
            EntryKind::Message(Box::new(message))
        }
        Some("compaction") => EntryKind::Compaction(Box::new(read_compaction(obj, number)?)),
        Some("prune") => EntryKind::Prune(read_hidden(obj, number)?),
        Some("branch") => EntryKind::Branch {
            from_session: string(obj, "fromSession", number)?,
            from_entry: match obj.get("fromEntryId") {
                Some(Value::Null) => None,
                _ => Some(string(obj, "fromEntryId", number)?),
            },
        },
        Some("usage") => {
            let usage = obj
                .get("usage")
                .and_then(Usage::from_value)
                .ok_or_else(|| bad(number, "usage", "a usage entry needs token counts"))?;
            EntryKind::Usage(usage, obj.get("calibration").and_then(Learned::from_json))
        }
        Some("note") => EntryKind::Note(string(obj, "text", number)?),
        Some("notesCompacted") => EntryKind::NotesCompacted {
            summary: string(obj, "summary", number)?,
            notes: count(obj, "notes", number)?,
            through: match obj.get("through") {
                None | Some(Value::Null) => None,
                Some(Value::String(id)) => Some(id.clone()),
                Some(_) => return Err(bad(number, "through", "must be an entry id")),
            },
        },
        _ => {
            return Err(bad(
                number,
                "type",
                "unknown entry type (expected message, compaction, prune, branch, usage, note or notesCompacted)",
            ))
        }
    };
    // The line is kept only when writing the entry would not give it back byte for byte.
    let kept = (write_line(&id, parent_id.as_deref(), &kind) != line).then(|| line.to_string());
    Ok(Entry {
        id,
        parent_id,
        kind,
        line: kept,
    })
}

fn read_compaction(obj: &Map<String, Value>, n: usize) -> Result<Compaction> {
    let opt_string = |key: &str| -> Result<Option<String>> {
        match obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(bad(n, key, "must be a string or null")),
        }
    };
    let list = |key: &str| -> Result<Vec<String>> {
        match obj.get(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| {
                    v.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| bad(n, key, "must hold entry ids (strings)"))
                })
                .collect(),
            Some(_) => Err(bad(n, key, "must be an array of entry ids")),
        }
    };
    Ok(Compaction {
        summary: opt_string("summary")?,
        first_kept_entry_id: opt_string("firstKeptEntryId")?,
        timestamp: opt_string("timestamp")?,
        keep_last_messages: match obj.get("keepLastMessages") {
            None | Some(Value::Null) => None,
            Some(_) => Some(count(obj, "keepLastMessages", n)?),
        },
        system_entry_ids: list("systemEntryIds")?,
        pinned_entry_ids: list("pinnedEntryIds")?,
        kept_entry_ids: list("keptEntryIds")?,
        tokens_before: count(obj, "tokensBefore", n)?,
        tokens_after: count(obj, "tokensAfter", n)?,
        round: u32::try_from(count(obj, "round", n)?).unwrap_or(u32::MAX),
        covered_turn_ids: list("coveredTurnIds")?,
        split_turn_id: opt_string("splitTurnId")?,
        digest: obj.get("digest").cloned().unwrap_or(Value::Null),
        state: obj.get("state").cloned().filter(|v| !v.is_null()),
    })
}

fn read_hidden(obj: &Map<String, Value>, n: usize) -> Result<Vec<Hidden>> {
    let items = obj
        .get("hidden")
        .and_then(Value::as_array)
        .ok_or_else(|| bad(n, "hidden", "a prune entry needs its hidden parts"))?;
    items
        .iter()
        .map(|item| {
            let o = item
                .as_object()
                .ok_or_else(|| bad(n, "hidden", "each hidden part must be an object"))?;
            let replacement = match (o.get("output"), o.get("input")) {
                (Some(Value::String(text)), _) => Replacement::Output(text.clone()),
                (None, Some(value)) => Replacement::Input(value.clone()),
                _ => return Err(bad(n, "hidden", "a hidden part needs output text or input")),
            };
            Ok(Hidden {
                entry_id: string(o, "entryId", n)?,
                part: count(o, "part", n)?,
                replacement,
            })
        })
        .collect()
}

fn parse(line: &str, number: usize) -> Result<Value> {
    serde_json::from_str(line).map_err(|e| {
        Error::invalid_input(
            format!("lines[{}]", number.saturating_sub(1)),
            format!("line {number} is not valid JSON: {e}"),
        )
    })
}

fn object(value: &Value, number: usize) -> Result<&Map<String, Value>> {
    value.as_object().ok_or_else(|| {
        Error::invalid_input(
            format!("lines[{}]", number.saturating_sub(1)),
            format!("line {number} must be a JSON object"),
        )
    })
}

fn string(obj: &Map<String, Value>, key: &str, number: usize) -> Result<String> {
    obj.get(key)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| bad(number, key, "must be a string"))
}

fn count(obj: &Map<String, Value>, key: &str, number: usize) -> Result<usize> {
    obj.get(key)
        .and_then(Value::as_u64)
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| bad(number, key, "must be a non-negative integer"))
}

fn bad(number: usize, key: &str, why: impl Into<String>) -> Error {
    Error::invalid_input(
        format!("lines[{}].{key}", number.saturating_sub(1)),
        format!("line {number}: {key} {}", why.into()),
    )
}
