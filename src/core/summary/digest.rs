//! The digest: facts extracted from the summarized messages without a model, checked against the
//! model's summary; what the summary misses is appended to it.
//!
//! Extraction (deterministic: the same messages always give the same digest):
//! - **files** by [`crate::core::prune::classify`]; calls whose result is an error are skipped; a
//!   file both read and modified is listed as modified only; both lists sorted, at most
//!   [`MAX_FILES`] each (the most recently touched);
//! - **commands** from shell-like tools (names compared lower-case without `_`/`-` after any
//!   `mcp__server__` or `ns.` prefix: `bash`, `shell`, `sh`, `zsh`, `terminal`, `runterminalcmd`,
//!   `runcommand`, `runshellcommand`, `executecommand`, `exec`, `execcommand`, `localshell`,
//!   `powershell`) with a `command` or `cmd` input (a string, or an argument array whose script
//!   after `-c`/`-lc` is taken, else the arguments joined by spaces); whitespace collapsed, at most
//!   [`COMMAND_CHARS`] characters; in call order without repeats. The budget: at most
//!   [`MAX_COMMANDS`], the first [`FIRST_COMMANDS`] and the latest others, so neither how the
//!   work began nor where it stands is lost;
//! - **errors** from error tool results: `tool: line`, the line being the one that names the error
//!   ([`super::error_line`]: not an exit status or build progress), at most [`ITEM_CHARS`]
//!   characters; in order without repeats, the last [`MAX_ERRORS`];
//! - **user requests**: the text of user messages that start a turn, whitespace collapsed, at most
//!   [`REQUEST_CHARS`] characters; in order without repeats, the first one and the last
//!   `MAX_REQUESTS - 1`. Messages the agent's interface wrote rather than the user are not
//!   requests: a background task's `<task-notification>`, a local command's
//!   `<local-command-caveat>` / `<local-command-stdout>` / `<local-command-stderr>`, a lone
//!   `<system-reminder>`, `[Request interrupted by user…]`, a skill's text that Claude Code inserts
//!   (`Base directory for this skill: …`), and a bare slash command (`/mode`);
//! - **pending tasks**: the agent's latest plan or to-do state ([`super::pending`]).
//!
//! Matching ([`Digest::missing_from`]): the summary and each item are normalized (lower case,
//! every run of whitespace one space, backticks removed). A file is mentioned when the summary
//! contains its path, or its last two path components (`core/mod.rs`); a command, error or
//! request when the summary contains its first [`MATCH_CHARS`] normalized characters.

use crate::core::prune::supersede::normalize_tool_name as normalize_tool;
use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::core::message::{Message, Part};
use crate::core::prune::{classify, FileAccess};

use super::transcript::{tool_allowed, truncate_plain};

/// Most files listed per list.
pub const MAX_FILES: usize = 100;
/// Most commands listed.
pub const MAX_COMMANDS: usize = 150;
/// Of [`MAX_COMMANDS`], how many are the first ones when there are more.
pub const FIRST_COMMANDS: usize = 30;
/// Most characters of a command.
pub const COMMAND_CHARS: usize = 160;
/// Most errors listed.
pub const MAX_ERRORS: usize = 20;
/// Most user requests listed.
pub const MAX_REQUESTS: usize = 200;
/// Most characters of a command or error.
pub const ITEM_CHARS: usize = 200;
/// Most characters of a user request.
pub const REQUEST_CHARS: usize = 200;
/// Characters of a command, error or request that must appear in a summary to count as mentioned.
pub const MATCH_CHARS: usize = 60;
/// The heading of the appended section.
pub const APPENDED_HEADING: &str = "## Details the summary did not mention (extracted)";

const SHELL_TOOLS: &[&str] = &[
    "bash",
    "shell",
    "sh",
    "zsh",
    "terminal",
    "runterminalcmd",
    "runcommand",
    "runshellcommand",
    "executecommand",
    "exec",
    "execcommand",
    "localshell",
    "powershell",
];

/// Facts extracted from messages (see the module documentation for the rules).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Digest {
    /// Files read and not modified, sorted.
    pub files_read: Vec<String>,
    /// Files created, changed or deleted, sorted.
    pub files_modified: Vec<String>,
    /// Shell commands, in call order.
    pub commands: Vec<String>,
    /// Errors of tool calls, in order.
    pub errors: Vec<String>,
    /// What the user asked, in order.
    pub user_requests: Vec<String>,
    /// What the agent's latest plan or to-do state leaves to do.
    pub pending_tasks: Vec<String>,
}

impl Digest {
    /// Extracts the digest of `messages[i]` for every `i` of `indices` (out-of-range indices are
    /// skipped). Tool calls and results are matched by id across the given messages.
    pub fn extract(messages: &[Message], indices: &[usize]) -> Digest {
        Digest::extract_allowed(messages, indices, None)
    }

    /// [`Digest::extract`] seeing only the tools the transcript's allow-list lets through (seed
    /// 004): with `allow`, calls of other tools and their results (or results of unknown tools)
    /// give no file, command or error, exactly as the transcript leaves them out.
    pub fn extract_allowed(
        messages: &[Message],
        indices: &[usize],
        allow: Option<&[String]>,
    ) -> Digest {
        let chosen: Vec<&Message> = indices.iter().filter_map(|&i| messages.get(i)).collect();
        let failed: HashSet<&str> = chosen
            .iter()
            .flat_map(|m| m.parts.iter())
            .filter_map(|p| match p {
                Part::ToolResult {
                    id, is_error: true, ..
                } => Some(id.as_str()),
                _ => None,
            })
            .collect();
        let mut names: HashMap<&str, &str> = HashMap::new();
        // path -> (order of last touch, modified)
        let mut files: HashMap<String, (usize, bool)> = HashMap::new();
        let mut touch = 0usize;
        let mut commands = Ordered::default();
        let mut errors = Ordered::default();
        let mut requests = Ordered::default();
        for message in chosen {
            if message.is_user_turn_start() {
                let text = collapse(&message.plain_text());
                if !text.is_empty() && !is_interface_message(&text) {
                    requests.push(truncate_plain(&text, REQUEST_CHARS));
                }
            }
            for part in &message.parts {
                match part {
                    Part::ToolCall { id, name, input } => {
                        names.insert(id.as_str(), name.as_str());
                        if !tool_allowed(name, allow) {
                            continue;
                        }
                        if let Some(command) = shell_command(name, input) {
                            commands.push(truncate_plain(&command, COMMAND_CHARS));
                        }
                        if failed.contains(id.as_str()) {
                            continue;
                        }
                        let (paths, modified) = match classify(name, input) {
                            Some(FileAccess::Read { path, .. }) => (vec![path], false),
                            Some(FileAccess::Write { paths }) => (paths, true),
                            None => continue,
                        };
                        for path in paths {
                            touch += 1;
                            let entry = files.entry(path).or_insert((touch, modified));
                            entry.0 = touch;
                            entry.1 |= modified;
                        }
                    }
                    Part::ToolResult {
                        id,
                        name,
                        output,
                        is_error: true,
                    } => {
                        let known = name.as_deref().or_else(|| names.get(id.as_str()).copied());
                        if allow.is_some() && !known.is_some_and(|n| tool_allowed(n, allow)) {
                            continue;
                        }
                        let tool = known.unwrap_or("tool");
                        let line = telling_line(output);
                        let item = if line.is_empty() {
                            format!("{tool}: (error without output)")
                        } else {
                            format!("{tool}: {line}")
                        };
                        errors.push(truncate_plain(&item, ITEM_CHARS));
                    }
                    _ => {}
                }
            }
        }
        let (files_read, files_modified) = split_files(files);
        let chosen: Vec<&Message> = indices.iter().filter_map(|&i| messages.get(i)).collect();
        Digest {
            files_read,
            files_modified,
            commands: commands.first_and_latest(FIRST_COMMANDS, MAX_COMMANDS),
            errors: errors.last(MAX_ERRORS),
            user_requests: requests.first_and_last(MAX_REQUESTS),
            pending_tasks: super::pending::latest(&chosen).unwrap_or_default(),
        }
    }

    /// True when every list is empty.
    pub fn is_empty(&self) -> bool {
        self.files_read.is_empty()
            && self.files_modified.is_empty()
            && self.commands.is_empty()
            && self.errors.is_empty()
            && self.user_requests.is_empty()
            && self.pending_tasks.is_empty()
    }

    /// The items of this digest that `summary` does not mention, by the matching rule of the
    /// module documentation; order is kept.
    pub fn missing_from(&self, summary: &str) -> Digest {
        let haystack = normalize(summary);
        let file_missing = |p: &&String| !mentions_path(&haystack, p);
        let text_missing = |s: &&String| !mentions_text(&haystack, s);
        Digest {
            files_read: self
                .files_read
                .iter()
                .filter(file_missing)
                .cloned()
                .collect(),
            files_modified: self
                .files_modified
                .iter()
                .filter(file_missing)
                .cloned()
                .collect(),
            commands: self.commands.iter().filter(text_missing).cloned().collect(),
            errors: self.errors.iter().filter(text_missing).cloned().collect(),
            user_requests: self
                .user_requests
                .iter()
                .filter(text_missing)
                .cloned()
                .collect(),
            pending_tasks: self
                .pending_tasks
                .iter()
                .filter(text_missing)
                .cloned()
                .collect(),
        }
    }
}

/// `summary` followed by a section headed [`APPENDED_HEADING`] listing `missing`; `summary`
/// unchanged (trailing whitespace trimmed) when `missing` is empty.
pub fn append_to(summary: &str, missing: &Digest) -> String {
    let summary = summary.trim_end();
    if missing.is_empty() {
        return summary.to_string();
    }
    let mut out = String::from(summary);
    if !out.is_empty() {
        out.push_str("\n\n");
    }
    out.push_str(APPENDED_HEADING);
    let lists: [(&str, &[String], bool); 6] = [
        ("Files read", &missing.files_read, false),
        ("Files modified", &missing.files_modified, false),
        ("Commands run", &missing.commands, true),
        ("Errors seen", &missing.errors, false),
        ("User requests", &missing.user_requests, false),
        ("Pending tasks", &missing.pending_tasks, false),
    ];
    for (title, items, code) in lists {
        if items.is_empty() {
            continue;
        }
        out.push_str(&format!("\n\n### {title}"));
        for item in items {
            if code {
                out.push_str(&format!("\n- `{item}`"));
            } else {
                out.push_str(&format!("\n- {item}"));
            }
        }
    }
    out
}

/// [`append_to`] within `max_tokens` (counted by `estimate`): while the result is over the limit,
/// the longest list gives up its oldest item (files: the first in order), so the most recent
/// facts stay; the summary itself is never cut here. Returns the text and what was appended.
pub fn append_within(
    summary: &str,
    missing: &Digest,
    max_tokens: usize,
    estimate: &dyn Fn(&str) -> usize,
) -> (String, Digest) {
    let mut kept = missing.clone();
    loop {
        let text = append_to(summary, &kept);
        if kept.is_empty() || estimate(&text) <= max_tokens {
            return (text, kept);
        }
        let lists = [
            &mut kept.files_read,
            &mut kept.files_modified,
            &mut kept.commands,
            &mut kept.errors,
            &mut kept.user_requests,
            &mut kept.pending_tasks,
        ];
        if let Some(longest) = lists.into_iter().max_by_key(|l| l.len()) {
            // Drop half of the longest list at once: O(log n) rounds of estimation.
            let drop = longest.len().div_ceil(2);
            longest.drain(..drop);
        }
    }
}

/// Items in first-seen order without repeats.
#[derive(Default)]
struct Ordered {
    items: Vec<String>,
    seen: HashSet<String>,
}

impl Ordered {
    fn push(&mut self, item: String) {
        if self.seen.insert(item.clone()) {
            self.items.push(item);
        }
    }

    fn last(self, n: usize) -> Vec<String> {
        let skip = self.items.len().saturating_sub(n);
        self.items.into_iter().skip(skip).collect()
    }

    /// The first `first` items and the latest others, `n` in all.
    fn first_and_latest(self, first: usize, n: usize) -> Vec<String> {
        if self.items.len() <= n {
            return self.items;
        }
        let first = first.min(n);
        let skip = self.items.len() - (n - first);
        let mut out: Vec<String> = self.items.iter().take(first).cloned().collect();
        out.extend(self.items.into_iter().skip(skip));
        out
    }

    fn first_and_last(self, n: usize) -> Vec<String> {
        if self.items.len() <= n || n == 0 {
            return self.items.into_iter().take(n).collect();
        }
        let skip = self.items.len() - (n - 1);
        let mut items = self.items.into_iter();
        let mut out: Vec<String> = items.next().into_iter().collect();
        out.extend(items.skip(skip.saturating_sub(1)));
        out
    }
}

fn split_files(files: HashMap<String, (usize, bool)>) -> (Vec<String>, Vec<String>) {
    let mut read: Vec<(usize, String)> = Vec::new();
    let mut modified: Vec<(usize, String)> = Vec::new();
    for (path, (order, is_modified)) in files {
        if is_modified {
            modified.push((order, path));
        } else {
            read.push((order, path));
        }
    }
    (newest_sorted(read), newest_sorted(modified))
}

/// The [`MAX_FILES`] most recently touched paths, sorted by path.
fn newest_sorted(mut files: Vec<(usize, String)>) -> Vec<String> {
    files.sort_by_key(|f| std::cmp::Reverse(f.0));
    let mut paths: Vec<String> = files.into_iter().take(MAX_FILES).map(|(_, p)| p).collect();
    paths.sort();
    paths
}

/// The command of a shell-like tool call, whitespace collapsed; `None` for other tools.
fn shell_command(name: &str, input: &Value) -> Option<String> {
    if !SHELL_TOOLS.contains(&normalize_tool(name).as_str()) {
        return None;
    }
    let value = input.get("command").or_else(|| input.get("cmd"))?;
    let text = match value {
        Value::String(s) => s.clone(),
        Value::Array(items) => {
            let args: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
            let script = args
                .iter()
                .position(|a| matches!(*a, "-c" | "-lc" | "-ic" | "/c" | "-Command"))
                .and_then(|at| args.get(at + 1));
            match script {
                Some(s) => (*s).to_string(),
                None => args.join(" "),
            }
        }
        _ => return None,
    };
    let text = collapse(&text);
    (!text.is_empty()).then_some(text)
}

/// The line of a result's text output that names the error ([`telling_line`]).
fn telling_line(output: &[Part]) -> String {
    let text: Vec<&str> = output
        .iter()
        .filter_map(|p| match p {
            Part::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    super::error_line::telling_line(&text.join("\n"))
}

/// Messages an agent's interface writes in the user's place (see the module documentation).
fn is_interface_message(text: &str) -> bool {
    let t = text.trim();
    let slash_command = t.strip_prefix('/').is_some_and(|c| {
        c.chars()
            .all(|ch| ch.is_ascii_alphanumeric() || matches!(ch, '-' | '_' | ':'))
    });
    slash_command
        || t.starts_with("[Request interrupted by user")
        || t.starts_with("Base directory for this skill:")
        || t.starts_with("<task-notification>")
        || t.starts_with("<local-command-")
        || (t.starts_with("<system-reminder>") && t.ends_with("</system-reminder>"))
}

/// Every run of whitespace becomes one space; ends trimmed.
fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Lower case, whitespace collapsed, backticks removed.
fn normalize(text: &str) -> String {
    collapse(&text.replace('`', " ")).to_lowercase()
}

fn mentions_path(haystack: &str, path: &str) -> bool {
    let p = normalize(path);
    let p = p.strip_prefix("./").unwrap_or(&p);
    if p.is_empty() || haystack.contains(p) {
        return true;
    }
    let components: Vec<&str> = p.split(['/', '\\']).filter(|c| !c.is_empty()).collect();
    match components.as_slice() {
        [.., a, b] => haystack.contains(&format!("{a}/{b}")),
        _ => false,
    }
}

fn mentions_text(haystack: &str, item: &str) -> bool {
    let n = normalize(item);
    let n = n.strip_suffix('…').unwrap_or(&n);
    let probe = truncate_plain(n, MATCH_CHARS);
    let probe = probe.strip_suffix('…').unwrap_or(&probe);
    probe.is_empty() || haystack.contains(probe)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::core::message::Role;
    use serde_json::json;

    fn call(id: &str, name: &str, input: Value) -> Message {
        Message::new(
            Role::Assistant,
            vec![Part::ToolCall {
                id: id.into(),
                name: name.into(),
                input,
            }],
        )
    }

    fn result(id: &str, text: &str, is_error: bool) -> Message {
        Message::new(
            Role::Tool,
            vec![Part::ToolResult {
                id: id.into(),
                name: None,
                output: vec![Part::text(text)],
                is_error,
            }],
        )
    }

    fn history() -> Vec<Message> {
        vec![
            Message::text(Role::User, "Fix   the\nlogin bug"),
            call("1", "read", json!({"path": "/app/src/auth.ts"})),
            result("1", "code", false),
            call(
                "2",
                "edit",
                json!({"path": "/app/src/auth.ts", "old": "a", "new": "b"}),
            ),
            result("2", "ok", false),
            call("3", "read", json!({"path": "/app/README.md"})),
            result("3", "readme", false),
            call("4", "write", json!({"path": "/app/fail.ts"})),
            result("4", "permission denied", true),
            call("5", "bash", json!({"command": "npm   test"})),
            result("5", "\n  Error: 2 tests failed\nmore", true),
            call(
                "6",
                "shell",
                json!({"command": ["bash", "-lc", "cargo build"]}),
            ),
            result("6", "ok", false),
            call("7", "bash", json!({"command": "npm test"})),
            Message::text(Role::User, "Fix the login bug"),
        ]
    }

    #[test]
    fn extracts_files_commands_errors_requests() {
        let msgs = history();
        let all: Vec<usize> = (0..msgs.len()).collect();
        let d = Digest::extract(&msgs, &all);
        assert_eq!(d.files_read, vec!["/app/README.md"]);
        assert_eq!(d.files_modified, vec!["/app/src/auth.ts"]);
        assert_eq!(d.commands, vec!["npm test", "cargo build"]);
        assert_eq!(
            d.errors,
            vec!["write: permission denied", "bash: Error: 2 tests failed"]
        );
        assert_eq!(d.user_requests, vec!["Fix the login bug"]);
        // Only the chosen messages count.
        let d = Digest::extract(&msgs, &[0, 1, 2, 99]);
        assert_eq!(d.files_read, vec!["/app/src/auth.ts"]);
        assert!(d.files_modified.is_empty() && d.commands.is_empty());
    }

    #[test]
    fn missing_and_appended() {
        let msgs = history();
        let all: Vec<usize> = (0..msgs.len()).collect();
        let d = Digest::extract(&msgs, &all);
        let summary = "Edited `src/auth.ts`; ran `NPM TEST`.\nUser: fix the login bug";
        let m = d.missing_from(summary);
        assert_eq!(m.files_read, vec!["/app/README.md"]);
        assert!(m.files_modified.is_empty());
        assert_eq!(m.commands, vec!["cargo build"]);
        assert_eq!(m.errors.len(), 2);
        assert!(m.user_requests.is_empty());
        let out = append_to(summary, &m);
        assert!(out.starts_with(summary));
        assert!(out.contains(APPENDED_HEADING));
        assert!(out.contains("### Files read\n- /app/README.md"));
        assert!(out.contains("### Commands run\n- `cargo build`"));
        assert!(!out.contains("### Files modified"));
        let full = append_to(&out, &d);
        assert_eq!(d.missing_from(&full), Digest::default());
        assert_eq!(append_to("s \n", &Digest::default()), "s");
    }

    #[test]
    fn requests_are_what_the_user_typed_and_errors_their_telling_line() {
        let msgs = vec![
            Message::text(Role::User, "Fix the build"),
            Message::text(Role::User, "[Request interrupted by user]"),
            Message::text(
                Role::User,
                "<task-notification>\n<task-id>x</task-id>\n</task-notification>",
            ),
            Message::text(
                Role::User,
                "<local-command-stdout>ok</local-command-stdout>",
            ),
            Message::text(Role::User, "/mode"),
            Message::text(
                Role::User,
                "Base directory for this skill: /skills/x\n\n# Skill",
            ),
            call("1", "Bash", json!({"command": "cargo build"})),
            result(
                "1",
                "Exit code 101\n   Compiling app v0.1.0\nerror[E0308]: mismatched types",
                true,
            ),
        ];
        let all: Vec<usize> = (0..msgs.len()).collect();
        let d = Digest::extract(&msgs, &all);
        assert_eq!(d.user_requests, vec!["Fix the build"]);
        assert_eq!(d.errors, vec!["Bash: error[E0308]: mismatched types"]);
    }

    #[test]
    fn the_first_commands_are_kept_with_the_latest() {
        let msgs: Vec<Message> = (0..MAX_COMMANDS + 50)
            .map(|i| {
                call(
                    &i.to_string(),
                    "bash",
                    json!({"command": format!("step {i}")}),
                )
            })
            .collect();
        let all: Vec<usize> = (0..msgs.len()).collect();
        let d = Digest::extract(&msgs, &all);
        assert_eq!(d.commands.len(), MAX_COMMANDS);
        assert_eq!(d.commands[0], "step 0");
        assert_eq!(
            d.commands[FIRST_COMMANDS - 1],
            format!("step {}", FIRST_COMMANDS - 1)
        );
        assert_eq!(
            d.commands[FIRST_COMMANDS],
            format!("step {}", FIRST_COMMANDS + 50)
        );
        assert_eq!(
            d.commands.last().unwrap(),
            &format!("step {}", MAX_COMMANDS + 49)
        );
    }

    #[test]
    fn bounded_lists() {
        let mut msgs = Vec::new();
        for i in 0..(MAX_REQUESTS + 5) {
            msgs.push(Message::text(Role::User, format!("request {i}")));
        }
        let all: Vec<usize> = (0..msgs.len()).collect();
        let d = Digest::extract(&msgs, &all);
        assert_eq!(d.user_requests.len(), MAX_REQUESTS);
        assert_eq!(d.user_requests[0], "request 0");
        assert_eq!(d.user_requests[1], "request 6");
        assert_eq!(
            d.user_requests.last().unwrap(),
            &format!("request {}", MAX_REQUESTS + 4)
        );
    }
}
