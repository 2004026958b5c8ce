//! The incremental readers fed pieces cut anywhere (down to one byte, inside UTF-8 sequences) read
//! exactly what the whole text gives: the session log (`LogReader`) of every real session of
//! `tests/fixtures`, and those session files themselves (`LineReader`), torn last lines and strict
//! mode included. A log read back holds no copy of the lines it can write again, and still writes
//! them byte for byte, also a line another writer wrote with its own key order.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod common;

#[path = "common/session_config.rs"]
mod session_config;

use context_compaction::core::error::Result;
use context_compaction::core::message::Message;
use context_compaction::core::session::loader::{LoadOptions, Loaded, LogReader};
use context_compaction::core::session::{Header, Session};
use context_compaction::formats::session_file::{parse_lines, LineReader, Lines, ReadOptions};
use context_compaction::formats::session_log::session_from_imported;
use context_compaction::formats::{claude_code, message_importer, pi_session, Format};
use serde_json::{json, Value};
use session_config::session_config;

/// Piece sizes, in bytes: 1 cuts inside every multi-byte character, 3 and 7 inside many.
const SIZES: [usize; 5] = [1, 3, 7, 1000, 65_536];

fn config() -> context_compaction::core::session::Config {
    session_config(&json!({"contextWindow": 200_000}))
}

fn choose(header: &Header) -> Result<fn(&Value, &str) -> Result<Message>> {
    Ok(message_importer(Format::parse(&header.format)?.unwrap()))
}

fn read_log(pieces: &[&[u8]], options: LoadOptions) -> Result<Option<Loaded>> {
    let mut reader = LogReader::new(options, choose);
    for piece in pieces {
        reader.push(piece)?;
    }
    reader.finish()
}

fn read_file(pieces: &[&[u8]], options: ReadOptions) -> Result<Lines> {
    let mut reader = LineReader::new(options);
    for piece in pieces {
        reader.push(piece)?;
    }
    reader.finish()
}

/// The session logs of every real session file: the agent's file imported, written as a log.
fn logs() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for file in common::fixtures::files("pi") {
        let text = std::fs::read_to_string(&file).unwrap();
        let imported = pi_session::import_pi_session(&text).unwrap();
        let log = session_from_imported(&imported, config(), None)
            .unwrap()
            .to_jsonl();
        out.push((file.display().to_string(), log));
    }
    for file in common::fixtures::files("claude-code") {
        let text = std::fs::read_to_string(&file).unwrap();
        let imported = claude_code::import_claude_code(&text).unwrap();
        let log = session_from_imported(&imported, config(), None)
            .unwrap()
            .to_jsonl();
        out.push((file.display().to_string(), log));
    }
    out
}

#[test]
fn a_log_fed_in_pieces_is_the_log_read_whole() {
    for (name, log) in logs() {
        let whole = read_log(&[log.as_bytes()], LoadOptions::default())
            .unwrap()
            .unwrap();
        let session = Session::from_loaded(
            config(),
            read_log(&[log.as_bytes()], LoadOptions::default())
                .unwrap()
                .unwrap(),
        );
        assert_eq!(
            session.to_jsonl(),
            log,
            "{name}: the round trip is byte-identical"
        );
        for size in SIZES {
            let pieces: Vec<&[u8]> = log.as_bytes().chunks(size).collect();
            let read = read_log(&pieces, LoadOptions::default()).unwrap().unwrap();
            assert_eq!(read.header, whole.header, "{name}, pieces of {size}");
            assert_eq!(read.log, whole.log, "{name}, pieces of {size}");
            assert_eq!(read.report, whole.report, "{name}, pieces of {size}");
            let again = Session::from_loaded(config(), read);
            assert_eq!(again.to_jsonl(), log, "{name}, pieces of {size}");
            // Written in parts of about `size` bytes, the log is the same text.
            let mut parts = String::new();
            let mut from = Some(0);
            while let Some(at) = from {
                let (text, next) = again.jsonl_part(at, size);
                assert!(next.is_none_or(|n| n > at), "each part holds a line");
                parts.push_str(&text);
                from = next;
            }
            assert_eq!(parts, log, "{name}, parts of {size}");
            assert_eq!(again.tokens(), session.tokens(), "{name}, pieces of {size}");
        }
    }
}

#[test]
fn a_session_file_fed_in_pieces_imports_as_the_file_read_whole() {
    let files = [
        common::fixtures::files("pi"),
        common::fixtures::files("claude-code"),
    ]
    .concat();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let pi = file.parent().unwrap().ends_with("pi");
        let import = |lines: Lines| match pi {
            true => pi_session::import_pi_session_lines(lines).unwrap(),
            false => claude_code::import_claude_code_lines(lines).unwrap(),
        };
        let whole = import(parse_lines(&text, ReadOptions::default()).unwrap());
        // A file cut mid-line, as an agent still writing it leaves it.
        let cut = &text.as_bytes()[..text.len() - 40];
        let torn = import(read_file(&[cut], ReadOptions::default()).unwrap());
        assert_eq!(torn.warnings.len(), 1, "{}", file.display());
        for size in SIZES {
            let pieces: Vec<&[u8]> = text.as_bytes().chunks(size).collect();
            let read = import(read_file(&pieces, ReadOptions::default()).unwrap());
            assert_eq!(read, whole, "{}, pieces of {size}", file.display());
            let pieces: Vec<&[u8]> = cut.chunks(size).collect();
            assert_eq!(
                import(read_file(&pieces, ReadOptions::default()).unwrap()),
                torn
            );
            let strict = read_file(&pieces, ReadOptions { strict: true }).unwrap_err();
            assert!(
                strict.path.as_deref().unwrap().starts_with("line "),
                "{strict:?}"
            );
        }
    }
}

const HEADER: &str = r#"{"type":"session","version":1,"id":"s","format":"ai-sdk"}"#;

#[test]
fn a_torn_last_line_is_left_out_or_refused_whatever_the_pieces() {
    let log = format!(
        "{HEADER}\n{}\n{}",
        r#"{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"héllo 😀"}}"#,
        r#"{"type":"message","id":"b","parentId":"a","message":{"role":"assistant","content":"😀 cut"#
    );
    // Cut inside the last emoji too: the torn line is not even UTF-8 text.
    let inside = &log.as_bytes()[..log.len() - 6];
    for text in [log.as_bytes(), inside] {
        for size in SIZES {
            let pieces: Vec<&[u8]> = text.chunks(size).collect();
            let read = read_log(&pieces, LoadOptions::default()).unwrap().unwrap();
            assert_eq!(read.log.len(), 1);
            assert_eq!(read.report.torn_line.as_ref().map(|t| t.0), Some(3));
            let strict = LoadOptions {
                strict: true,
                map: None,
            };
            let err = read_log(&pieces, strict).unwrap_err();
            assert!(
                err.path.as_deref().unwrap().starts_with("lines[2]"),
                "{err:?}"
            );
        }
    }
    // The same bad line followed by a newline is refused in both modes.
    let ended = format!("{log}\n");
    let err = read_log(&[ended.as_bytes()], LoadOptions::default()).unwrap_err();
    assert!(
        err.path.as_deref().unwrap().starts_with("lines[2]"),
        "{err:?}"
    );
}

#[test]
fn lines_another_writer_wrote_come_back_byte_for_byte() {
    // Keys in another order, spaces, a number written as 1.0, a lone surrogate escape.
    let log = format!(
        "\u{feff}{HEADER}\n{}\n{}\n{}\n",
        r#"{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"hi"}}"#,
        r#"{"parentId":"a", "id":"b","type":"message","message":{"content":"ok","role":"assistant"}}"#,
        r#"{"type":"message","id":"c","parentId":"b","message":{"role":"user","content":"x\ud800","n":1.0}}"#
    );
    let expected = log.trim_start_matches('\u{feff}');
    for size in SIZES {
        let pieces: Vec<&[u8]> = log.as_bytes().chunks(size).collect();
        let session = Session::from_loaded(
            config(),
            read_log(&pieces, LoadOptions::default()).unwrap().unwrap(),
        );
        assert_eq!(session.to_jsonl(), expected, "pieces of {size}");
    }
}
