//! Importing an agent's session file (pi or Claude Code) by the agent's name: [`agent`] reads
//! the name, [`import_text`] imports a whole text and [`AgentReader`] one fed in pieces; the
//! lines are read by [`super::session_lines`] and interpreted by the agent's importer
//! ([`super::pi_session`], [`super::claude_code`]).

use crate::core::error::{Error, Result};
use crate::core::pieces::PieceReader;

use super::session::SessionSource;
pub use super::session_lines::{parse_lines, Field, LineReader, Lines, ReadOptions};

/// The agent named `name` as the API takes it (`"pi"` | `"claude-code"`); `INVALID_INPUT` at
/// `path` for another name.
pub fn agent(name: &str, path: &str) -> Result<SessionSource> {
    match name {
        "pi" => Ok(SessionSource::Pi),
        "claude-code" => Ok(SessionSource::ClaudeCode),
        other => Err(Error::invalid_input(
            path,
            format!("unknown session {path} \"{other}\": expected \"pi\" or \"claude-code\""),
        )),
    }
}

/// Imports `text`, a whole session file of the agent named `name` (`path` names the argument
/// in errors: [`agent`]).
pub fn import_text(
    text: &str,
    name: &str,
    path: &str,
    options: ReadOptions,
) -> Result<super::ImportedSession> {
    let source = agent(name, path)?;
    parse_lines(text, options).and_then(|lines| import_lines(lines, source))
}

/// A session file of the agent named at [`AgentReader::new`] read a piece at a time (no whole
/// text is held): [`LineReader`], reading the escapes of lone surrogates as the core's marks,
/// then [`import_lines`].
pub struct AgentReader {
    source: SessionSource,
    lines: LineReader,
}

impl AgentReader {
    /// A reader of the agent named `name` ([`agent`]; `path` names the argument in errors).
    pub fn new(name: &str, path: &str, options: ReadOptions) -> Result<AgentReader> {
        let lines = LineReader::new(options).with_map(crate::core::surrogates::escapes_to_marks);
        Ok(AgentReader {
            source: agent(name, path)?,
            lines,
        })
    }

    /// Reads the next piece of the text (cut anywhere).
    pub fn push(&mut self, piece: &[u8]) -> Result<()> {
        self.lines.push(piece)
    }

    /// The session the whole text holds.
    pub fn finish(self) -> Result<super::ImportedSession> {
        import_lines(self.lines.finish()?, self.source)
    }
}

/// The binding feeds a file's pieces to it ([`AgentReader::push`], [`AgentReader::finish`]).
impl PieceReader for AgentReader {
    type Output = super::ImportedSession;

    fn push(&mut self, piece: &[u8]) -> Result<()> {
        AgentReader::push(self, piece)
    }

    fn finish(self) -> Result<super::ImportedSession> {
        AgentReader::finish(self)
    }
}

/// Imports the lines of a session file written by `source`.
pub fn import_lines(lines: Lines, source: SessionSource) -> Result<super::ImportedSession> {
    match source {
        SessionSource::Pi => super::pi_session::import_pi_session_lines(lines),
        SessionSource::ClaudeCode => super::claude_code::import_claude_code_lines(lines),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const LENIENT: ReadOptions = ReadOptions { strict: false };

    #[test]
    fn a_file_read_in_pieces_imports_as_the_whole_text() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/pi/before-compaction.jsonl"
        );
        let text = std::fs::read_to_string(path).unwrap();
        let whole = import_text(&text, "pi", "kind", LENIENT).unwrap();
        let mut reader = AgentReader::new("pi", "kind", LENIENT).unwrap();
        for piece in text.as_bytes().chunks(4093) {
            reader.push(piece).unwrap();
        }
        let pieces = reader.finish().unwrap();
        assert!(!whole.messages.is_empty());
        assert_eq!(pieces.messages.len(), whole.messages.len());
        assert_eq!(pieces.session_id, whole.session_id);
        assert_eq!(pieces.source, SessionSource::Pi);
        let e = AgentReader::new("codex", "source", LENIENT).err().unwrap();
        assert_eq!(e.path.as_deref(), Some("source"));
    }

    #[test]
    fn agents_by_name() {
        assert_eq!(agent("pi", "kind").unwrap(), SessionSource::Pi);
        assert_eq!(
            agent("claude-code", "kind").unwrap(),
            SessionSource::ClaudeCode
        );
        let e = agent("codex", "source").unwrap_err();
        assert_eq!(e.path.as_deref(), Some("source"));
    }
}
