//! The transcript a summarizer reads: the summarized messages as plain, numbered text.
//!
//! Format (one entry per message that has something to show, entries separated by a blank line):
//!
//! ```text
//! [1] USER:
//! Fix the login bug in /app/auth.ts
//!
//! [2] ASSISTANT:
//! Reading the file.
//! [tool call] read({"path":"/app/auth.ts"})
//!
//! [3] TOOL:
//! [tool result] read:
//! export function login() {
//! [... 1234 more characters cut]
//! ```
//!
//! Rules:
//! - labels: `SYSTEM`, `USER`, `ASSISTANT`, `TOOL`; a summary message is `EARLIER SUMMARY`;
//! - text parts verbatim; reasoning only with `include_reasoning` (`[reasoning] ...`, redacted
//!   reasoning as `[reasoning redacted]`);
//! - tool calls as `[tool call] name(compact JSON input)`, tool results as `[tool result] name:`
//!   (`[tool error] name:` for error results) followed by their output; inputs and outputs longer
//!   than `tool_output_chars` characters are cut with `[... N more characters cut]`;
//! - with `trim` (the default), long tool outputs, long strings of tool inputs and repeated
//!   outputs are first trimmed by [`super::trim`]'s rules;
//! - images and files are placeholders (`[image image/png 1024×768]`, `[file a.pdf application/pdf]`);
//! - with an allow-list, tool calls and results of other tools are left out (entries ending in `*`
//!   are prefixes); a result whose tool name is not known (neither its own nor its call's) is left
//!   out too;
//! - a message left with nothing to show takes no number.
//!
//! Serialization never panics and cuts only on character boundaries.
//!
//! Seed 001's layout ([`TranscriptStyle::Seed001`], its `formatMessagesForSummary`) instead writes
//! every message, numbered from 0, as `[0] USER:` and its content: text parts verbatim, tool calls
//! as `[Tool: name(JSON input)]`, tool results as `[Result: …...]` with the first 500 characters of
//! the output as a JSON string, other parts as empty lines, the parts joined by newlines and the
//! whole cut at 2,000 characters with `\n[...truncated...]`; entries are separated by `---` lines
//! ([`SEED_001_SEPARATOR`]).

use std::collections::HashMap;

use serde_json::Value;

use crate::core::message::{ImageSource, Message, Part, Role};
use crate::core::settings::{TranscriptOptions, TranscriptStyle};

use super::trim::{self, Repeats};

/// The separator between entries.
pub const ENTRY_SEPARATOR: &str = "\n\n";

/// The separator between entries of seed 001's layout.
pub const SEED_001_SEPARATOR: &str = "\n\n---\n\n";

/// The separator between entries of `options`' layout.
pub fn separator(options: &TranscriptOptions) -> &'static str {
    match options.style {
        TranscriptStyle::Standard => ENTRY_SEPARATOR,
        TranscriptStyle::Seed001 => SEED_001_SEPARATOR,
    }
}

/// One serialized message: its index in the input and its text (number and label included).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Index of the message in the input slice.
    pub index: usize,
    /// The entry's text, `[n] LABEL:` line first.
    pub text: String,
}

/// Serializes `messages[i]` for every `i` of `indices` (in the order given; indices out of range
/// are skipped), numbered from 1, as described in the module documentation.
pub fn serialize(messages: &[Message], indices: &[usize], options: &TranscriptOptions) -> String {
    let texts: Vec<String> = entries(messages, indices, options, 1)
        .into_iter()
        .map(|e| e.text)
        .collect();
    texts.join(separator(options))
}

/// The entries of [`serialize`], numbered from `first_number`, so that chunks of one transcript
/// can continue the numbering.
pub fn entries(
    messages: &[Message],
    indices: &[usize],
    options: &TranscriptOptions,
    first_number: usize,
) -> Vec<Entry> {
    if options.style == TranscriptStyle::Seed001 {
        return seed_001_entries(messages, indices, first_number);
    }
    let names = call_names(messages);
    let mut repeats = options.trim.then(Repeats::default);
    let mut out = Vec::new();
    let mut number = first_number;
    for &index in indices {
        let Some(message) = messages.get(index) else {
            continue;
        };
        let mut context = Context {
            options,
            names: &names,
            repeats: repeats.as_mut(),
            number,
        };
        let body = body(message, &mut context);
        if body.is_empty() {
            continue;
        }
        out.push(Entry {
            index,
            text: format!("[{number}] {}:\n{body}", label(message)),
        });
        number = number.saturating_add(1);
    }
    out
}

/// Seed 001's entries: every message, numbered from `first_number − 1` (its `idx` is 0-based).
fn seed_001_entries(messages: &[Message], indices: &[usize], first_number: usize) -> Vec<Entry> {
    indices
        .iter()
        .filter_map(|&index| Some((index, messages.get(index)?)))
        .enumerate()
        .map(|(k, (index, message))| {
            let number = first_number.saturating_sub(1).saturating_add(k);
            let role = message.role.as_str().to_ascii_uppercase();
            Entry {
                index,
                text: format!("[{number}] {role}:\n{}", seed_001_content(message)),
            }
        })
        .collect()
}

/// Seed 001's content of one message (see the module documentation).
fn seed_001_content(message: &Message) -> String {
    let lines: Vec<String> = message
        .parts
        .iter()
        .map(|part| match part {
            Part::Text { text } => text.clone(),
            Part::ToolCall { name, input, .. } => format!("[Tool: {name}({input})]"),
            Part::ToolResult { output, .. } => {
                let json = Value::String(output_text(output)).to_string();
                let head: String = json.chars().take(500).collect();
                format!("[Result: {head}...]")
            }
            _ => String::new(),
        })
        .collect();
    let content = lines.join("\n");
    match content.char_indices().nth(2_000) {
        Some((at, _)) => format!(
            "{}\n[...truncated...]",
            content.get(..at).unwrap_or_default()
        ),
        None => content,
    }
}

/// Joins entries with [`ENTRY_SEPARATOR`].
pub fn join(entries: &[Entry]) -> String {
    let texts: Vec<&str> = entries.iter().map(|e| e.text.as_str()).collect();
    texts.join(ENTRY_SEPARATOR)
}

/// True when `name` passes `allow` (no list: every tool; an entry ending in `*` is a prefix).
pub fn tool_allowed(name: &str, allow: Option<&[String]>) -> bool {
    let Some(allow) = allow else {
        return true;
    };
    allow.iter().any(|entry| match entry.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => name == entry,
    })
}

/// The first `max` characters of `text`, followed by `[... N more characters cut]` when
/// characters were cut. Cuts on a character boundary.
pub fn truncate_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((at, _)) => {
            let kept = text.get(..at).unwrap_or_default();
            let cut = text.get(at..).unwrap_or_default().chars().count();
            let sep = if kept.is_empty() || kept.ends_with('\n') {
                ""
            } else {
                "\n"
            };
            format!("{kept}{sep}[... {cut} more characters cut]")
        }
    }
}

fn label(message: &Message) -> &'static str {
    if message.summary {
        return "EARLIER SUMMARY";
    }
    match message.role {
        Role::System => "SYSTEM",
        Role::User => "USER",
        Role::Assistant => "ASSISTANT",
        Role::Tool => "TOOL",
    }
}

/// Tool names by call id, so that results without a name of their own can be labelled.
fn call_names(messages: &[Message]) -> HashMap<&str, &str> {
    messages
        .iter()
        .flat_map(|m| m.parts.iter())
        .filter_map(|p| match p {
            Part::ToolCall { id, name, .. } => Some((id.as_str(), name.as_str())),
            _ => None,
        })
        .collect()
}

/// What writing one entry needs besides its message.
struct Context<'a> {
    options: &'a TranscriptOptions,
    /// Tool names by call id.
    names: &'a HashMap<&'a str, &'a str>,
    /// With `trim`: the successful results shown so far.
    repeats: Option<&'a mut Repeats>,
    /// The entry's number.
    number: usize,
}

fn body(message: &Message, context: &mut Context<'_>) -> String {
    let lines: Vec<String> = message
        .parts
        .iter()
        .filter_map(|p| part_text(p, context))
        .filter(|s| !s.trim().is_empty())
        .collect();
    lines.join("\n")
}

fn part_text(part: &Part, context: &mut Context<'_>) -> Option<String> {
    let options = context.options;
    let names = context.names;
    let allow = options.tool_allow.as_deref();
    match part {
        Part::Text { text } => Some(text.clone()),
        Part::Reasoning { text, redacted } => options.include_reasoning.then(|| {
            if *redacted {
                "[reasoning redacted]".to_string()
            } else {
                format!("[reasoning] {text}")
            }
        }),
        Part::ToolCall { name, input, .. } => tool_allowed(name, allow).then(|| {
            let json = if options.trim {
                compact_json(&trim::input(input))
            } else {
                compact_json(input)
            };
            format!(
                "[tool call] {name}({})",
                truncate_chars(&json, options.tool_output_chars)
            )
        }),
        Part::ToolResult {
            id,
            name,
            output,
            is_error,
        } => {
            let name = name.as_deref().or_else(|| names.get(id.as_str()).copied());
            if allow.is_some() && !name.is_some_and(|n| tool_allowed(n, allow)) {
                return None;
            }
            let tag = if *is_error {
                "[tool error]"
            } else {
                "[tool result]"
            };
            let name = name.unwrap_or("unknown tool");
            let text = output_text(output);
            let text = match context.repeats.as_deref_mut() {
                Some(repeats) if !*is_error => match repeats.earlier(&text, context.number) {
                    Some(first) => trim::repeat_reference(first),
                    None => trim::output(&text),
                },
                _ => text,
            };
            let text = truncate_chars(&text, options.tool_output_chars);
            Some(if text.is_empty() {
                format!("{tag} {name}: (no output)")
            } else {
                format!("{tag} {name}:\n{text}")
            })
        }
        Part::Image { .. } | Part::File { .. } => media_placeholder(part),
        Part::Other { kind, value } => Some(format!(
            "[{kind}] {}",
            truncate_chars(&compact_json(value), options.tool_output_chars)
        )),
    }
}

/// The placeholder of an image or file part (`None` for other parts).
fn media_placeholder(part: &Part) -> Option<String> {
    match part {
        Part::Image {
            media_type,
            width,
            height,
            ..
        } => Some(image_placeholder(media_type.as_deref(), *width, *height)),
        Part::File {
            media_type,
            name,
            source,
            text,
        } => Some(file_placeholder(
            media_type.as_deref(),
            name.as_deref(),
            source,
            text.as_deref(),
        )),
        _ => None,
    }
}

/// The text of a tool result's output: text parts verbatim, images and files as placeholders.
fn output_text(output: &[Part]) -> String {
    let pieces: Vec<String> = output
        .iter()
        .filter_map(|p| match p {
            Part::Text { text } => Some(text.clone()),
            Part::Image { .. } | Part::File { .. } => media_placeholder(p),
            Part::Other { kind, value } => Some(format!("[{kind}] {}", compact_json(value))),
            Part::Reasoning { .. } | Part::ToolCall { .. } | Part::ToolResult { .. } => None,
        })
        .collect();
    pieces.join("\n")
}

fn compact_json(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `[image image/png 1024×768]`; the type and size appear when known.
fn image_placeholder(media_type: Option<&str>, width: Option<u32>, height: Option<u32>) -> String {
    let mut s = String::from("[image");
    if let Some(t) = media_type {
        s.push(' ');
        s.push_str(t);
    }
    if let (Some(w), Some(h)) = (width, height) {
        s.push_str(&format!(" {w}×{h}"));
    }
    s.push(']');
    s
}

/// `[file report.pdf application/pdf]`, with the URL when the file is linked and the length of
/// an inline text document.
fn file_placeholder(
    media_type: Option<&str>,
    name: Option<&str>,
    source: &ImageSource,
    text: Option<&str>,
) -> String {
    let mut s = String::from("[file");
    for piece in [name, media_type].into_iter().flatten() {
        s.push(' ');
        s.push_str(piece);
    }
    if let ImageSource::Url(url) = source {
        s.push(' ');
        s.push_str(&truncate_plain(url, 200));
    }
    if let Some(t) = text {
        s.push_str(&format!(", {} characters of text", t.chars().count()));
    }
    s.push(']');
    s
}

/// The first `max` characters of `text`, with `…` when cut.
pub(crate) fn truncate_plain(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((at, _)) => format!("{}…", text.get(..at).unwrap_or_default()),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use serde_json::json;

    fn opts() -> TranscriptOptions {
        TranscriptOptions {
            tool_output_chars: 2_000,
            include_reasoning: false,
            tool_allow: None,
            style: Default::default(),
            trim: false,
        }
    }

    #[test]
    fn truncates_on_char_boundaries() {
        assert_eq!(truncate_chars("abc", 3), "abc");
        assert_eq!(
            truncate_chars("héllo", 2),
            "hé\n[... 3 more characters cut]"
        );
        assert_eq!(truncate_chars("日本語", 0), "[... 3 more characters cut]");
        assert_eq!(truncate_plain("日本語", 1), "日…");
    }

    #[test]
    fn allow_list_names_and_prefixes() {
        let allow = vec!["bash".to_string(), "linear*".to_string()];
        assert!(tool_allowed("bash", Some(&allow)));
        assert!(tool_allowed("linearCreateIssue", Some(&allow)));
        assert!(!tool_allowed("bash2", Some(&allow)));
        assert!(!tool_allowed("read", Some(&allow)));
        assert!(tool_allowed("read", None));
        assert!(tool_allowed("anything", Some(&["*".to_string()])));
    }

    #[test]
    fn placeholders_and_reasoning() {
        let m = Message::new(
            Role::Assistant,
            vec![
                Part::Reasoning {
                    text: "secret".into(),
                    redacted: false,
                },
                Part::Image {
                    media_type: Some("image/png".into()),
                    source: ImageSource::Base64 { len: 10 },
                    width: Some(1024),
                    height: Some(768),
                    detail: None,
                },
                Part::File {
                    media_type: Some("application/pdf".into()),
                    name: Some("a.pdf".into()),
                    source: ImageSource::Unknown,
                    text: None,
                },
            ],
        );
        let t = serialize(std::slice::from_ref(&m), &[0], &opts());
        assert_eq!(
            t,
            "[1] ASSISTANT:\n[image image/png 1024×768]\n[file a.pdf application/pdf]"
        );
        let mut o = opts();
        o.include_reasoning = true;
        assert!(serialize(&[m], &[0], &o).contains("[reasoning] secret"));
    }

    #[test]
    fn empty_messages_take_no_number_and_bad_indices_are_skipped() {
        let only_reasoning = Message::new(
            Role::Assistant,
            vec![Part::Reasoning {
                text: "x".into(),
                redacted: true,
            }],
        );
        let msgs = vec![
            Message::text(Role::User, "a"),
            only_reasoning,
            Message::text(Role::User, "b"),
        ];
        let t = serialize(&msgs, &[0, 1, 2, 99], &opts());
        assert_eq!(t, "[1] USER:\na\n\n[2] USER:\nb");
    }

    #[test]
    fn result_name_from_its_call() {
        let msgs = vec![
            Message::new(
                Role::Assistant,
                vec![Part::ToolCall {
                    id: "c1".into(),
                    name: "grep".into(),
                    input: json!({"q": "x"}),
                }],
            ),
            Message::new(
                Role::Tool,
                vec![Part::ToolResult {
                    id: "c1".into(),
                    name: None,
                    output: vec![],
                    is_error: true,
                }],
            ),
        ];
        let t = serialize(&msgs, &[0, 1], &opts());
        assert_eq!(
            t,
            "[1] ASSISTANT:\n[tool call] grep({\"q\":\"x\"})\n\n[2] TOOL:\n[tool error] grep: (no output)"
        );
    }
}
