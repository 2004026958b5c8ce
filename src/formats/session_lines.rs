//! Reading an agent's session file before its entries are interpreted: the JSONL lines (a file
//! that is still being written may end in an incomplete line) and the check that the file was
//! written by the agent it is imported as (pi or Claude Code). [`LineReader`] reads the lines a
//! piece at a time; [`parse_lines`] is the same reader fed the whole text. The importers
//! (`pi_session`, `claude_code`) read what this gives; `session_file` picks the importer.
//!
//! - **Incomplete last line.** Agents append one JSON object and a newline per entry, so a file
//!   read while the agent runs can end in part of an entry. A last line that has no newline after
//!   it and is not valid JSON is left out, with a warning naming it; with
//!   [`ReadOptions::strict`] it is an error, as is every bad line that a newline ends.
//! - **Which agent.** pi writes a `session` header and `message`, `compaction`, `branch_summary`,
//!   `custom_message`, `model_change`, `thinking_level_change` entries; Claude Code writes
//!   `user`, `assistant`, `system`, `summary`, `progress`, `file-history-snapshot` and
//!   `queue-operation` lines. A file with lines but none of the named agent's is refused, naming
//!   the first line of the other agent when there is one.

use std::borrow::Cow;

use serde_json::Value;

use crate::core::error::{Error, Result};
use crate::core::jsonl::{Line, LineMap, LineSplitter};

use super::session::SessionSource;

/// How a session file is read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// Refuse an incomplete last line instead of leaving it out with a warning.
    pub strict: bool,
}

/// A field of the read options as JS gives it: what the core needs to know of its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// `undefined`: as if not given.
    Absent,
    Bool(bool),
    Function,
    /// Any other value.
    Other,
}

impl Field {
    /// What a value is, from what JS says of it: `undefined`, its boolean value if it is one, a
    /// function.
    pub fn of(undefined: bool, boolean: Option<bool>, function: bool) -> Field {
        match boolean {
            _ if undefined => Field::Absent,
            Some(b) => Field::Bool(b),
            None if function => Field::Function,
            None => Field::Other,
        }
    }
}

impl ReadOptions {
    /// Reads the read options `{ strict?, onWarning? }` at `path`, taking only the keys in
    /// `allowed`: `fields` are the object's `(key, value)`, `None` when the argument is not an
    /// object (the binding reads `undefined` and `null` as an object without keys). Returns the
    /// options and whether `onWarning` is a function to call with each warning.
    pub fn read(
        path: &str,
        allowed: &[&str],
        fields: Option<&[(String, Field)]>,
    ) -> Result<(Self, bool)> {
        let fields = fields
            .ok_or_else(|| Error::invalid_option(path, format!("{path} must be an object")))?;
        let (mut options, mut on_warning) = (ReadOptions::default(), false);
        for (key, field) in fields {
            let key_path = format!("{path}.{key}");
            match (key.as_str(), field) {
                (k, _) if !allowed.contains(&k) => {
                    let expected = allowed.join(", ");
                    let message = format!("unknown option \"{key}\" (expected {expected})");
                    return Err(Error::invalid_option(key_path, message));
                }
                (_, Field::Absent) => {}
                ("strict", Field::Bool(b)) => options.strict = *b,
                ("strict", _) => {
                    return Err(Error::invalid_option(key_path, "strict must be a boolean"))
                }
                ("onWarning", Field::Function) => on_warning = true,
                ("onWarning", _) => {
                    let message = "onWarning must be a function";
                    return Err(Error::invalid_option(key_path, message));
                }
                _ => {}
            }
        }
        Ok((options, on_warning))
    }
}

/// The parsed lines of a JSONL file.
#[derive(Debug)]
pub struct Lines {
    /// `(1-based line number, object)`, empty lines skipped.
    pub lines: Vec<(usize, Value)>,
    /// What was left out (an incomplete last line), each naming its line.
    pub warnings: Vec<String>,
}

/// Splits JSONL text into parsed lines (empty lines skipped). A bad line is `INVALID_INPUT`
/// naming it, except an incomplete last line when not `strict` (see the module documentation).
/// It is [`LineReader`] fed the whole text at once.
pub fn parse_lines(text: &str, options: ReadOptions) -> Result<Lines> {
    let mut reader = LineReader::new(options);
    reader.push(text.as_bytes())?;
    reader.finish()
}

/// Reads a session file fed a piece at a time (pieces cut anywhere, [`crate::core::jsonl`]):
/// each line is parsed as soon as it is complete, so only the parsed lines and one line of text
/// are held.
#[derive(Debug)]
pub struct LineReader {
    splitter: LineSplitter,
    state: Reading,
}

/// What reading a line needs of a [`LineReader`] while its splitter is busy.
#[derive(Debug)]
struct Reading {
    options: ReadOptions,
    map: Option<LineMap>,
    out: Lines,
}

impl LineReader {
    /// A reader at the start of a file.
    pub fn new(options: ReadOptions) -> LineReader {
        LineReader {
            splitter: LineSplitter::new(),
            state: Reading {
                options,
                map: None,
                out: Lines {
                    lines: Vec::new(),
                    warnings: Vec::new(),
                },
            },
        }
    }

    /// The reader with `map` applied to each line before it is parsed (the binding's
    /// lone-surrogate marks).
    pub fn with_map(mut self, map: LineMap) -> LineReader {
        self.state.map = Some(map);
        self
    }

    /// Feeds the next piece; a bad line that a newline ends is refused here.
    pub fn push(&mut self, piece: &[u8]) -> Result<()> {
        let state = &mut self.state;
        self.splitter.push(piece, &mut |line| state.line(line))
    }

    /// Ends the file: its last line is read, and the lines are returned.
    pub fn finish(mut self) -> Result<Lines> {
        let state = &mut self.state;
        self.splitter.finish(&mut |line| state.line(line))?;
        Ok(self.state.out)
    }
}

impl Reading {
    fn line(&mut self, line: Line<'_>) -> Result<()> {
        let number = line.number;
        let refuse = |why: String| -> Result<()> {
            Err(Error::invalid_input(
                format!("line {number}"),
                format!("line {number}: {why}"),
            ))
        };
        // Only the text after the last newline can be an incomplete line.
        let torn = !line.ended && !self.options.strict;
        let raw = match line.text {
            Ok(raw) => raw.trim(),
            Err(_) if torn => {
                self.leave_out(number);
                return Ok(());
            }
            Err(e) => return refuse(format!("not UTF-8 text ({e})")),
        };
        if raw.is_empty() {
            return Ok(());
        }
        let raw = match self.map {
            Some(map) => map(raw),
            None => Cow::Borrowed(raw),
        };
        let value: Value = match serde_json::from_str(&raw) {
            Ok(v) => v,
            Err(_) if torn => {
                self.leave_out(number);
                return Ok(());
            }
            Err(e) => return refuse(format!("not valid JSON ({e})")),
        };
        if !value.is_object() {
            return refuse("expected a JSON object".to_string());
        }
        self.out.lines.push((number, value));
        Ok(())
    }

    fn leave_out(&mut self, number: usize) {
        self.out.warnings.push(format!(
            "line {number}: incomplete last line left out (the file is still being written, or was cut off)"
        ));
    }
}

/// The agent whose entry type a line has, if it is one of the types the module names.
fn writer(value: &Value) -> Option<SessionSource> {
    match value.get("type").and_then(Value::as_str)? {
        "session"
        | "message"
        | "compaction"
        | "branch_summary"
        | "custom_message"
        | "model_change"
        | "thinking_level_change" => Some(SessionSource::Pi),
        "user"
        | "assistant"
        | "system"
        | "summary"
        | "progress"
        | "file-history-snapshot"
        | "queue-operation" => Some(SessionSource::ClaudeCode),
        _ => None,
    }
}

fn name(source: SessionSource) -> (&'static str, &'static str) {
    match source {
        SessionSource::Pi => ("pi", "pi"),
        SessionSource::ClaudeCode => ("Claude Code", "claude-code"),
    }
}

/// Checks that a file with lines has at least one line of `expected`'s entry types; otherwise
/// `INVALID_INPUT` saying which agent wrote it (naming its first line) or that neither did.
pub fn check_writer(lines: &[(usize, Value)], expected: SessionSource) -> Result<()> {
    let Some((first, _)) = lines.first() else {
        return Ok(());
    };
    if lines.iter().any(|(_, v)| writer(v) == Some(expected)) {
        return Ok(());
    }
    let (want, _) = name(expected);
    let other = lines
        .iter()
        .find_map(|(n, v)| writer(v).map(|w| (*n, w, v)));
    let (line, message) = match other {
        Some((n, source, v)) => {
            let (other_name, kind) = name(source);
            let entry = v.get("type").and_then(Value::as_str).unwrap_or("");
            (
                n,
                format!(
                    "line {n}: this is a {other_name} session file (a \"{entry}\" entry), not a {want} one: import it as \"{kind}\""
                ),
            )
        }
        None => (
            *first,
            format!("line {first}: not a {want} session file: no line is a {want} entry"),
        ),
    };
    Err(Error::invalid_input(format!("line {line}"), message))
}

/// Prefixes an error with its line: the message starts with `line N: ` and the path with
/// `line N`.
pub fn at_line(line: usize, err: Error) -> Error {
    let path = match &err.path {
        Some(p) => format!("line {line}.{p}"),
        None => format!("line {line}"),
    };
    Error {
        code: err.code,
        message: format!("line {line}: {}", err.message),
        path: Some(path),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const LENIENT: ReadOptions = ReadOptions { strict: false };
    const STRICT: ReadOptions = ReadOptions { strict: true };

    #[test]
    fn a_field_is_absent_a_boolean_a_function_or_other() {
        assert_eq!(Field::of(true, None, false), Field::Absent);
        assert_eq!(Field::of(false, Some(true), false), Field::Bool(true));
        assert_eq!(Field::of(false, None, true), Field::Function);
        assert_eq!(Field::of(false, None, false), Field::Other);
    }

    #[test]
    fn read_options_take_only_the_allowed_keys_of_their_types() {
        let both = ["strict", "onWarning"];
        let field = |k: &str, f| (k.to_string(), f);
        let given = [
            field("strict", Field::Bool(true)),
            field("onWarning", Field::Function),
        ];
        let (options, on_warning) = ReadOptions::read("read", &both, Some(&given)).unwrap();
        assert!(options.strict && on_warning);
        let absent = [
            field("strict", Field::Absent),
            field("onWarning", Field::Absent),
        ];
        let read = ReadOptions::read("read", &both, Some(&absent)).unwrap();
        assert_eq!(read, (LENIENT, false));
        let err = ReadOptions::read("read", &both, None).unwrap_err();
        assert_eq!(
            (err.path.as_deref(), err.message.as_str()),
            (Some("read"), "read must be an object")
        );
        let bad = [field("strict", Field::Other)];
        let err = ReadOptions::read("read", &both, Some(&bad)).unwrap_err();
        assert_eq!(err.path.as_deref(), Some("read.strict"));
        let bad = [field("onWarning", Field::Bool(true))];
        let err = ReadOptions::read("read", &both, Some(&bad)).unwrap_err();
        assert_eq!(err.message, "onWarning must be a function");
        // A key not allowed is unknown, whatever its value.
        let given = [field("onWarning", Field::Function)];
        let err = ReadOptions::read("options", &["strict"], Some(&given)).unwrap_err();
        assert_eq!(err.path.as_deref(), Some("options.onWarning"));
        assert!(err.message.contains("(expected strict)"), "{}", err.message);
    }

    #[test]
    fn an_incomplete_last_line_is_left_out_with_a_warning() {
        let text = "{\"type\":\"session\"}\n{\"type\":\"mess";
        let read = parse_lines(text, LENIENT).unwrap();
        assert_eq!(read.lines.len(), 1);
        assert_eq!(read.warnings.len(), 1);
        assert!(
            read.warnings.iter().all(|w| w.starts_with("line 2: ")),
            "{:?}",
            read.warnings
        );
        let err = parse_lines(text, STRICT).unwrap_err();
        assert_eq!(err.path.as_deref(), Some("line 2"));
    }

    #[test]
    fn a_bad_line_that_a_newline_ends_is_an_error() {
        let err = parse_lines("{\"type\":\"session\"}\n{\"type\":\"mess\n", LENIENT).unwrap_err();
        assert_eq!(err.path.as_deref(), Some("line 2"));
        let err = parse_lines("{\"a\"\n{\"type\":\"session\"}", LENIENT).unwrap_err();
        assert_eq!(err.path.as_deref(), Some("line 1"));
    }

    #[test]
    fn a_complete_last_line_without_a_newline_is_read() {
        let read = parse_lines("{\"type\":\"session\"}", STRICT).unwrap();
        assert_eq!(read.lines.len(), 1);
        assert!(read.warnings.is_empty());
    }

    #[test]
    fn the_writer_is_checked() {
        let cc = parse_lines(
            "{\"type\":\"summary\"}\n{\"type\":\"user\",\"message\":{}}\n",
            STRICT,
        )
        .unwrap()
        .lines;
        let err = check_writer(&cc, SessionSource::Pi).unwrap_err();
        assert_eq!(err.path.as_deref(), Some("line 1"));
        assert!(err.message.contains("Claude Code"), "{}", err.message);
        assert!(check_writer(&cc, SessionSource::ClaudeCode).is_ok());
        let unknown = parse_lines("{\"type\":\"x\"}\n", STRICT).unwrap().lines;
        assert!(check_writer(&unknown, SessionSource::Pi).is_err());
        assert!(check_writer(&[], SessionSource::Pi).is_ok());
    }
}
