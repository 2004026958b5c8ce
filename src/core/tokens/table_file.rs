//! The two file formats of a rank table, both read into [`Ranks`]:
//!
//! - the package's own (`encodings/<name>.ranks`): the 8 bytes `\0ccranks`, the token count `n`
//!   as a little-endian `u32`, the `n` token lengths (one byte each, in rank order), then the
//!   tokens' bytes one after the other (lengths first: the file gzips about 6% smaller);
//! - tiktoken's `.tiktoken` text, one `<base64 token> <rank>` line per token, which users may
//!   still pass to `loadEncoding`.
//!
//! Either way the table must hold exactly the ranks `0..expected`, each once, with distinct
//! tokens; anything else is `INVALID_INPUT` (naming the line of a malformed `.tiktoken` line).

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;

use super::ranks::{BuildError, Rank, Ranks};
use crate::core::error::{Error, Result};

/// The first bytes of the package's own format (never the start of a `.tiktoken` file).
pub const MAGIC: &[u8; 8] = b"\0ccranks";

/// Reads a table of `encoding` (its name, for messages) that must hold `expected` tokens.
pub fn read(encoding: &str, expected: usize, file: &[u8]) -> Result<Ranks> {
    match file.strip_prefix(MAGIC.as_slice()) {
        Some(body) => read_packed(encoding, expected, body),
        None => read_tiktoken(encoding, expected, file),
    }
}

/// Writes `ranks` in the package's own format.
pub fn write_packed(ranks: &Ranks) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&u32::try_from(ranks.len()).unwrap_or(0).to_le_bytes());
    let tokens = (0..ranks.len()).map(|rank| ranks.token(rank as Rank).unwrap_or_default());
    out.extend(tokens.clone().map(|t| u8::try_from(t.len()).unwrap_or(0)));
    tokens.for_each(|t| out.extend_from_slice(t));
    out
}

fn wrong_count(encoding: &str, expected: usize, found: usize) -> Error {
    Error::invalid_input(
        "source",
        format!(
            "the {encoding} rank table must hold {expected} distinct tokens of ranks 0 to {}, this one holds {found}: is it the file of another encoding?",
            expected.saturating_sub(1)
        ),
    )
}

fn build_error(encoding: &str, expected: usize, error: &BuildError) -> Error {
    match error {
        BuildError::Duplicate(rank) => Error::invalid_input(
            "source",
            format!("the {encoding} rank table holds the token of rank {rank} twice"),
        ),
        BuildError::Invalid(_) => wrong_count(encoding, expected, 0),
    }
}

fn read_packed(encoding: &str, expected: usize, body: &[u8]) -> Result<Ranks> {
    let malformed = || {
        Error::invalid_input(
            "source",
            format!("the {encoding} rank table is cut short or malformed"),
        )
    };
    let (count, rest) = body.split_first_chunk::<4>().ok_or_else(malformed)?;
    let count = u32::from_le_bytes(*count) as usize;
    if count != expected {
        return Err(wrong_count(encoding, expected, count));
    }
    let (lengths, mut bytes) = rest.split_at_checked(count).ok_or_else(malformed)?;
    let mut ranks = Ranks::with_capacity(count, bytes.len());
    for &len in lengths {
        let (token, tail) = bytes
            .split_at_checked(usize::from(len))
            .ok_or_else(malformed)?;
        ranks
            .push(token)
            .map_err(|e| build_error(encoding, expected, &e))?;
        bytes = tail;
    }
    if !bytes.is_empty() {
        return Err(malformed());
    }
    Ok(ranks)
}

fn read_tiktoken(encoding: &str, expected: usize, file: &[u8]) -> Result<Ranks> {
    // (rank, start, end) of each decoded token in `decoded`.
    let lines = file.iter().filter(|&&b| b == b'\n').count() + 1;
    let mut entries: Vec<(Rank, u32, u32)> = Vec::with_capacity(lines.min(expected + 1));
    let mut decoded = Vec::with_capacity(file.len());
    for (index, line) in file.split(|&b| b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            continue;
        }
        let start = decoded.len();
        let rank = parse_line(line, &mut decoded).ok_or_else(|| {
            Error::invalid_input(
                format!("source:{}", index + 1),
                format!(
                    "line {} of the {encoding} rank table is not `<base64> <rank>`",
                    index + 1
                ),
            )
        })?;
        let (Ok(start), Ok(end)) = (u32::try_from(start), u32::try_from(decoded.len())) else {
            return Err(wrong_count(encoding, expected, entries.len()));
        };
        entries.push((rank, start, end));
    }
    if entries.len() != expected {
        return Err(wrong_count(encoding, expected, entries.len()));
    }
    if !entries.is_sorted_by_key(|e| e.0) {
        entries.sort_unstable_by_key(|e| e.0);
    }
    let mut ranks = Ranks::with_capacity(expected, decoded.len());
    for (i, &(rank, start, end)) in entries.iter().enumerate() {
        if rank as usize != i {
            return Err(wrong_count(encoding, expected, i));
        }
        let token = decoded
            .get(start as usize..end as usize)
            .unwrap_or_default();
        ranks
            .push(token)
            .map_err(|e| build_error(encoding, expected, &e))?;
    }
    Ok(ranks)
}

/// Decodes one `<base64> <rank>` line, appending the token to `decoded`.
fn parse_line(line: &[u8], decoded: &mut Vec<u8>) -> Option<Rank> {
    let space = line.iter().position(|&b| b == b' ')?;
    let before = decoded.len();
    STANDARD.decode_vec(line.get(..space)?, decoded).ok()?;
    if decoded.len() == before || decoded.len() - before > usize::from(u8::MAX) {
        return None;
    }
    std::str::from_utf8(line.get(space + 1..)?)
        .ok()?
        .parse()
        .ok()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::core::error::ErrorCode;

    #[test]
    fn both_formats_read_the_same_table() {
        let text = b"IQ== 1\nIg== 0\nIyQ= 2\n";
        let ranks = read("test", 3, text).unwrap();
        assert_eq!(ranks.get(b"\""), Some(0));
        assert_eq!(ranks.get(b"!"), Some(1));
        assert_eq!(ranks.get(b"#$"), Some(2));
        let packed = write_packed(&ranks);
        let again = read("test", 3, &packed).unwrap();
        assert_eq!(again.get(b"#$"), Some(2));
        assert_eq!(write_packed(&again), packed);
    }

    #[test]
    fn bad_tables_are_invalid_input() {
        let cases: [(&[u8], &str); 6] = [
            (b"IQ== 0\nIg== 0\n", "source"),
            (b"IQ== 0\nIQ== 1\n", "source"),
            (b"IQ== 0\nIg== 5\n", "source"),
            (b"IQ== 0\nnope\n", "source:2"),
            (b"\0ccranks\x02\0\0\0\x01\x02!\"", "source"),
            (b"\0ccranks\x02\0\0\0\x01\x01!\"extra", "source"),
        ];
        for (file, path) in cases {
            let err = read("test", 2, file).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidInput);
            assert_eq!(err.path.as_deref(), Some(path), "{}", err.message);
        }
    }
}
