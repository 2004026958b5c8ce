//! Superseded file reads: an older read of a file that was read again later, or changed after
//! it, is stale and goes first.
//!
//! Rule: the result of a successful read R of path P is pruned when a later read of P exists
//! (the most recent read of a path is never pruned) and one of these comes after R: a write or
//! edit of P, a full read of P (no line range), or a read of P with exactly R's input. The
//! placeholder names the first such call. Failed calls (error results) and calls without a
//! result neither supersede nor are superseded. Paths are compared as written, after trimming
//! and dropping a leading `./`.
//!
//! Tool table (names compared lower-case without `_`/`-`, after any `mcp__server__` or `ns.`
//! prefix):
//!
//! | kind | tool names |
//! |---|---|
//! | read | `read`, `Read`, `read_file`, `readFile`, `read_text_file`, `view`, `view_file`, `open_file`, `cat`, `NotebookRead` |
//! | write | `write`, `Write`, `write_file`, `write_to_file`, `create_file`, `edit`, `Edit`, `MultiEdit`, `edit_file`, `NotebookEdit`, `replace`, `replace_in_file`, `str_replace`, `search_replace`, `delete_file` |
//! | by `command` | `str_replace_editor`, `str_replace_based_edit_tool`, `text_editor`: `view` reads, any other command writes |
//! | patch | `apply_patch`, `patch`: every path named by `*** Update File:`, `*** Add File:`, `*** Delete File:` or `*** Move to:` in any string of the input is written |
//!
//! Path keys, first found: `path`, `file_path`, `filePath`, `filepath`, `file`, `filename`,
//! `target_file`, `targetFile`, `absolute_path`, `notebook_path`. A read is partial when its
//! input has any of `offset`, `limit`, `view_range`, `start_line`, `end_line`, `startLine`,
//! `endLine`, `line_start`, `line_end`, `lines`, `range` (non-null).

use serde_json::Value;

use super::{action, Claimed, Cost, PruneAction, PruneKind};
use crate::core::message::{Message, Part};
use crate::core::validate::pairing;

const READ_TOOLS: &[&str] = &[
    "read",
    "readfile",
    "readtextfile",
    "view",
    "viewfile",
    "openfile",
    "cat",
    "notebookread",
];
const WRITE_TOOLS: &[&str] = &[
    "write",
    "writefile",
    "writetofile",
    "createfile",
    "edit",
    "multiedit",
    "editfile",
    "notebookedit",
    "replace",
    "replaceinfile",
    "strreplace",
    "searchreplace",
    "deletefile",
];
const COMMAND_TOOLS: &[&str] = &["strreplaceeditor", "strreplacebasededittool", "texteditor"];
const PATCH_TOOLS: &[&str] = &["applypatch", "patch"];
const PATH_KEYS: &[&str] = &[
    "path",
    "file_path",
    "filePath",
    "filepath",
    "file",
    "filename",
    "target_file",
    "targetFile",
    "absolute_path",
    "notebook_path",
];
const RANGE_KEYS: &[&str] = &[
    "offset",
    "limit",
    "view_range",
    "start_line",
    "end_line",
    "startLine",
    "endLine",
    "line_start",
    "line_end",
    "lines",
    "range",
];
const PATCH_MARKERS: &[&str] = &[
    "*** Update File:",
    "*** Add File:",
    "*** Delete File:",
    "*** Move to:",
];

/// What a tool call does to files, by the table of the module documentation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileAccess {
    /// Reads one file; `partial` when it asks for a line range.
    Read { path: String, partial: bool },
    /// Creates, changes or deletes these files.
    Write { paths: Vec<String> },
}

/// How the call `name(input)` touches files, or `None` for a tool not in the table or without a
/// path argument.
pub fn classify(name: &str, input: &Value) -> Option<FileAccess> {
    let tool = normalize_tool_name(name);
    let tool = tool.as_str();
    if PATCH_TOOLS.contains(&tool) {
        let mut paths = Vec::new();
        patch_paths(input, &mut paths);
        return (!paths.is_empty()).then_some(FileAccess::Write { paths });
    }
    let path = path_of(input)?;
    let reads = if COMMAND_TOOLS.contains(&tool) {
        let command = input
            .get("command")
            .or_else(|| input.get("action"))
            .and_then(Value::as_str)?;
        command == "view"
    } else if READ_TOOLS.contains(&tool) {
        true
    } else if WRITE_TOOLS.contains(&tool) {
        false
    } else {
        return None;
    };
    Some(if reads {
        let partial = RANGE_KEYS
            .iter()
            .any(|k| input.get(*k).is_some_and(|v| !v.is_null()));
        FileAccess::Read { path, partial }
    } else {
        FileAccess::Write { paths: vec![path] }
    })
}

/// Actions replacing every superseded read's output (rule of the module documentation).
pub fn prune_superseded(messages: &[Message], cost: Cost<'_>) -> Vec<PruneAction> {
    plan(messages, cost, &Claimed::default())
}

/// One successful file access, in call order.
struct Access<'a> {
    result: (usize, usize),
    id: &'a str,
    name: &'a str,
    input: &'a Value,
    what: FileAccess,
}

/// As [`prune_superseded`], leaving parts in `claimed` alone.
pub(crate) fn plan(messages: &[Message], cost: Cost<'_>, claimed: &Claimed) -> Vec<PruneAction> {
    let pairs = pairing(messages);
    let accesses: Vec<Access<'_>> = pairs
        .calls
        .iter()
        .filter_map(|c| {
            let result = c.answered_by?;
            let failed = matches!(
                part_at(messages, result)?,
                Part::ToolResult { is_error: true, .. }
            );
            let Part::ToolCall { id, name, input } = part_at(messages, (c.message, c.part))? else {
                return None;
            };
            let what = classify(name, input)?;
            (!failed).then_some(Access {
                result,
                id,
                name,
                input,
                what,
            })
        })
        .collect();
    let mut actions = Vec::new();
    for (i, read) in accesses.iter().enumerate() {
        let FileAccess::Read { path, .. } = &read.what else {
            continue;
        };
        if claimed.contains(&read.result) {
            continue;
        }
        let later = accesses.get(i + 1..).unwrap_or_default();
        let read_again = later
            .iter()
            .any(|a| matches!(&a.what, FileAccess::Read { path: p, .. } if p == path));
        if !read_again {
            continue;
        }
        let by = later.iter().find(|a| match &a.what {
            FileAccess::Write { paths } => paths.contains(path),
            FileAccess::Read { path: p, partial } => {
                p == path && (!partial || a.input == read.input)
            }
        });
        let Some(by) = by else {
            continue;
        };
        let verb = match by.what {
            FileAccess::Write { .. } => "changed",
            FileAccess::Read { .. } => "read again",
        };
        let placeholder = format!(
            "[Superseded: {path} was {verb} later by {} (call {}); this older read was cleared]",
            by.name, by.id
        );
        let kind = PruneKind::ReplaceOutput { placeholder };
        if let Some(a) = action(messages, read.result, kind, cost) {
            actions.push(a);
        }
    }
    actions.sort_by_key(|a| (a.message, a.part));
    actions
}

fn part_at(messages: &[Message], (m, p): (usize, usize)) -> Option<&Part> {
    messages.get(m)?.parts.get(p)
}

/// Lower-case, without `_`/`-`, after the last `__` or `.` (MCP and namespaced tool names).
pub fn normalize_tool_name(name: &str) -> String {
    let base = name.rsplit("__").next().unwrap_or(name);
    let base = base.rsplit('.').next().unwrap_or(base);
    base.chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

fn path_of(input: &Value) -> Option<String> {
    PATH_KEYS
        .iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
        .map(clean_path)
        .filter(|p| !p.is_empty())
}

fn clean_path(path: &str) -> String {
    let p = path.trim();
    p.strip_prefix("./").unwrap_or(p).to_string()
}

fn patch_paths(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(text) => {
            for line in text.lines() {
                let line = line.trim_start();
                for marker in PATCH_MARKERS {
                    if let Some(rest) = line.strip_prefix(marker) {
                        let path = clean_path(rest);
                        if !path.is_empty() && !out.contains(&path) {
                            out.push(path);
                        }
                    }
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| patch_paths(v, out)),
        Value::Object(map) => map.values().for_each(|v| patch_paths(v, out)),
        _ => {}
    }
}
