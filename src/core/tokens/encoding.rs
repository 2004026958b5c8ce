//! Exact token counting for `o200k_base` and `cl100k_base` from rank tables loaded at run time.
//!
//! The rank tables are tiktoken's `.tiktoken` files (one `base64-token rank` pair a line). They are
//! data shipped beside the package, never compiled into the `.wasm`. Counting follows tiktoken's
//! ordinary-text path exactly: special-token strings such as `<|endoftext|>` are plain text.

use crate::core::error::{Error, ErrorCode, Result};
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use fancy_regex::Regex;
use rustc_hash::FxHashMap;
use tiktoken_rs::{byte_pair_split, Rank};

use super::bpe;

/// The exact encodings the package knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EncodingName {
    O200kBase,
    Cl100kBase,
}

/// The pre-tokenizer of `cl100k_base`, as published by tiktoken.
const CL100K_BASE_PAT_STR: &str = r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s";

impl EncodingName {
    /// Every known encoding, in a stable order.
    pub const ALL: [EncodingName; 2] = [EncodingName::O200kBase, EncodingName::Cl100kBase];

    /// The name as users write it: `"o200k_base"` or `"cl100k_base"`.
    pub fn as_str(self) -> &'static str {
        match self {
            EncodingName::O200kBase => "o200k_base",
            EncodingName::Cl100kBase => "cl100k_base",
        }
    }

    /// Parses a user-given name; an unknown one is `INVALID_INPUT` at `path`.
    pub fn parse(name: &str, path: &str) -> Result<EncodingName> {
        EncodingName::ALL
            .into_iter()
            .find(|e| e.as_str() == name)
            .ok_or_else(|| {
                Error::invalid_input(
                    path,
                    format!(
                        "unknown encoding \"{name}\": expected \"o200k_base\" or \"cl100k_base\""
                    ),
                )
            })
    }

    /// How many ranks the published table of this encoding holds (special tokens excluded).
    pub fn rank_count(self) -> usize {
        match self {
            EncodingName::O200kBase => 199_998,
            EncodingName::Cl100kBase => 100_256,
        }
    }

    fn pattern(self) -> &'static str {
        match self {
            EncodingName::O200kBase => tiktoken_rs::O200K_BASE_PAT_STR,
            EncodingName::Cl100kBase => CL100K_BASE_PAT_STR,
        }
    }
}

/// A loaded encoding: the rank table and the pre-tokenizer. Counting never panics.
pub struct Encoding {
    name: EncodingName,
    ranks: FxHashMap<Vec<u8>, Rank>,
    pattern: Regex,
    /// Token counts of pieces that are not one token (their merge is the costly part), bounded by
    /// [`PIECE_CACHE_ENTRIES`]: agent histories repeat identifiers, paths and phrases.
    pieces: std::sync::Mutex<FxHashMap<Vec<u8>, u32>>,
}

/// The most pieces [`Encoding`] remembers; past that the cache starts over.
const PIECE_CACHE_ENTRIES: usize = 1 << 16;
/// Pieces longer than this are not remembered (rare, and each would hold much memory).
const PIECE_CACHE_MAX_LEN: usize = 256;
/// The longest piece merged whole (see `count_piece`).
const HUGE_PIECE: usize = 1 << 22;

/// `bytes` in chunks of at most `max` bytes (at least one character each), cut at UTF-8
/// character boundaries.
fn chunks(bytes: &[u8], max: usize) -> impl Iterator<Item = &[u8]> {
    let mut rest = bytes;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut cut = rest.len().min(max.max(1));
        // Back up to the start of a character (continuation bytes are 0b10xxxxxx).
        while cut < rest.len() && cut > 0 && rest.get(cut).is_some_and(|b| b & 0xC0 == 0x80) {
            cut -= 1;
        }
        if cut == 0 {
            cut = rest.len().min(4);
        }
        let (head, tail) = rest.split_at(cut);
        rest = tail;
        Some(head)
    })
}

impl std::fmt::Debug for Encoding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Encoding")
            .field("name", &self.name)
            .field("ranks", &self.ranks.len())
            .finish()
    }
}

impl Encoding {
    /// Parses a `.tiktoken` rank table for `name`. A malformed table, or one of another encoding
    /// (wrong number of ranks), is `INVALID_INPUT` naming the line.
    pub fn parse(name: EncodingName, table: &[u8]) -> Result<Encoding> {
        let expected = name.rank_count();
        // Room for what the table can hold, never more: a short or hostile table costs its size.
        let lines = table.iter().filter(|&&b| b == b'\n').count() + 1;
        let mut ranks =
            FxHashMap::with_capacity_and_hasher(expected.min(lines), Default::default());
        for (index, line) in table.split(|&b| b == b'\n').enumerate() {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.is_empty() {
                continue;
            }
            let (token, rank) = parse_line(line).ok_or_else(|| {
                Error::invalid_input(
                    format!("source:{}", index + 1),
                    format!(
                        "line {} of the {} rank table is not `<base64> <rank>`",
                        index + 1,
                        name.as_str()
                    ),
                )
            })?;
            ranks.insert(token, rank);
        }
        if ranks.len() != expected {
            return Err(Error::invalid_input(
                "source",
                format!(
                    "the {} rank table must hold {expected} distinct tokens, this one holds {}: is it the file of another encoding?",
                    name.as_str(),
                    ranks.len()
                ),
            ));
        }
        let pattern = Regex::new(name.pattern()).map_err(|e| {
            Error::new(
                ErrorCode::EncodingUnavailable,
                format!("the {} pre-tokenizer did not compile: {e}", name.as_str()),
            )
        })?;
        Ok(Encoding {
            name,
            ranks,
            pattern,
            pieces: std::sync::Mutex::new(FxHashMap::default()),
        })
    }

    /// The encoding's name.
    pub fn name(&self) -> EncodingName {
        self.name
    }

    /// The exact number of tokens of `text` on tiktoken's ordinary path.
    pub fn count(&self, text: &str) -> usize {
        let mut total = 0;
        let mut start = 0;
        while start < text.len() {
            let rest = text.get(start..).unwrap_or_default();
            let mut consumed = 0;
            let mut failed = false;
            for found in self.pattern.find_iter(rest) {
                match found {
                    Ok(m) => {
                        total += self.count_piece(m.as_str().as_bytes());
                        consumed = m.end();
                    }
                    Err(_) => {
                        failed = true;
                        break;
                    }
                }
            }
            if !failed {
                break;
            }
            // The regex engine gave up (backtracking limit). Count one character as a piece and
            // go on after it: never a panic, and exact everywhere the engine does not give up.
            let ch_len = rest
                .get(consumed..)
                .and_then(|s| s.chars().next())
                .map_or(1, char::len_utf8);
            let piece = rest.get(consumed..consumed + ch_len).unwrap_or_default();
            total += self.count_piece(piece.as_bytes());
            start += consumed + ch_len;
        }
        total
    }

    fn count_piece(&self, piece: &[u8]) -> usize {
        if piece.len() <= 1 || self.ranks.contains_key(piece) {
            return usize::from(!piece.is_empty());
        }
        if piece.len() >= bpe::LARGE_PIECE {
            // A piece beyond HUGE_PIECE bytes (a run of megabytes without a space) is merged in
            // chunks cut at character boundaries: memory stays bounded, the count within a few
            // tokens of the exact one. Below it the count is exact.
            return chunks(piece, HUGE_PIECE)
                .map(|c| bpe::count_tokens(c, &self.ranks))
                .sum();
        }
        if piece.len() > PIECE_CACHE_MAX_LEN {
            return byte_pair_split(piece, &self.ranks).len();
        }
        let Ok(mut cache) = self.pieces.lock() else {
            return byte_pair_split(piece, &self.ranks).len();
        };
        if let Some(&n) = cache.get(piece) {
            return n as usize;
        }
        let n = byte_pair_split(piece, &self.ranks).len();
        if cache.len() >= PIECE_CACHE_ENTRIES {
            cache.clear();
        }
        cache.insert(piece.to_vec(), u32::try_from(n).unwrap_or(u32::MAX));
        n
    }
}

fn parse_line(line: &[u8]) -> Option<(Vec<u8>, Rank)> {
    let space = line.iter().position(|&b| b == b' ')?;
    let token = STANDARD.decode(line.get(..space)?).ok()?;
    let rank = std::str::from_utf8(line.get(space + 1..)?)
        .ok()?
        .parse()
        .ok()?;
    if token.is_empty() {
        return None;
    }
    Some((token, rank))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_is_invalid_input() {
        for name in EncodingName::ALL {
            assert_eq!(EncodingName::parse(name.as_str(), "encoding"), Ok(name));
        }
        let err = EncodingName::parse("p50k_base", "encoding").unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidInput);
        assert_eq!(err.path.as_deref(), Some("encoding"));
    }

    #[test]
    fn malformed_table_names_the_line() {
        let err = Encoding::parse(EncodingName::Cl100kBase, b"IQ== 0\nnot-a-line\n").unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidInput);
        assert_eq!(err.path.as_deref(), Some("source:2"));
    }

    #[test]
    fn table_of_wrong_size_is_rejected() {
        let err = Encoding::parse(EncodingName::O200kBase, b"IQ== 0\nIg== 1\n").unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidInput);
        assert!(err.message.contains("199998"), "{}", err.message);
    }
}
