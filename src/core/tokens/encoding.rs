//! Exact token counting for `o200k_base` and `cl100k_base` from rank tables loaded at run time.
//!
//! The rank tables are data shipped beside the package (`table_file.rs` reads them), never
//! compiled into the `.wasm`. Counting follows tiktoken's ordinary-text path exactly: the text is
//! cut into pieces by the encoding's pre-tokenizer (`split/`, no regex engine), and each piece is
//! one token or its byte-pair merge (`bpe.rs`). Special-token strings such as `<|endoftext|>` are
//! plain text. Counting is linear in the text, or n log n in its longest piece, and never panics.

use crate::core::error::{Error, Result};

use super::ranks::Ranks;
use super::split::{pieces, Pattern};
use super::table_file;
use super::{bpe, huge};

/// The exact encodings the package knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EncodingName {
    O200kBase,
    Cl100kBase,
}

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

    /// [`EncodingName::parse`] of a JS argument: `None` when it is not a string.
    pub fn parse_arg(name: Option<&str>, path: &str) -> Result<EncodingName> {
        let name = name.ok_or_else(|| {
            let expected = "expected an encoding name: \"o200k_base\" or \"cl100k_base\"";
            Error::invalid_input(path, expected)
        })?;
        EncodingName::parse(name, path)
    }

    /// How many ranks the published table of this encoding holds (special tokens excluded).
    pub fn rank_count(self) -> usize {
        match self {
            EncodingName::O200kBase => 199_998,
            EncodingName::Cl100kBase => 100_256,
        }
    }

    fn pattern(self) -> Pattern {
        match self {
            EncodingName::O200kBase => Pattern::O200k,
            EncodingName::Cl100kBase => Pattern::Cl100k,
        }
    }
}

/// A loaded encoding: the rank table and the pre-tokenizer. Counting never panics.
pub struct Encoding {
    name: EncodingName,
    ranks: Ranks,
    /// Token counts of pieces that are not one token (their merge is the costly part), bounded by
    /// [`PIECE_CACHE_ENTRIES`]: agent histories repeat identifiers, paths and phrases.
    pieces: std::sync::Mutex<rustc_hash::FxHashMap<Box<[u8]>, u32>>,
}

/// The most pieces [`Encoding`] remembers; past that the cache starts over.
const PIECE_CACHE_ENTRIES: usize = 1 << 15;
/// Pieces longer than this are not remembered (rare, and each would hold much memory).
const PIECE_CACHE_MAX_LEN: usize = 64;
/// The longest piece merged whole; a longer one (megabytes without a space) is merged in
/// overlapping windows of this size joined exactly (`huge.rs`), so memory stays bounded.
const HUGE_PIECE: usize = 1 << 22;

impl std::fmt::Debug for Encoding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Encoding")
            .field("name", &self.name)
            .field("ranks", &self.ranks.len())
            .finish()
    }
}

impl Encoding {
    /// Reads a rank table for `name`: the package's own format or a `.tiktoken` file. A
    /// malformed table, or one of another encoding (wrong number of ranks), is `INVALID_INPUT`.
    pub fn parse(name: EncodingName, table: &[u8]) -> Result<Encoding> {
        let ranks = table_file::read(name.as_str(), name.rank_count(), table)?;
        Ok(Encoding {
            name,
            ranks,
            pieces: std::sync::Mutex::new(rustc_hash::FxHashMap::default()),
        })
    }

    /// The encoding's name.
    pub fn name(&self) -> EncodingName {
        self.name
    }

    /// The rank table, in the package's own format.
    pub fn packed_table(&self) -> Vec<u8> {
        table_file::write_packed(&self.ranks)
    }

    /// The exact number of tokens of `text` on tiktoken's ordinary path.
    pub fn count(&self, text: &str) -> usize {
        pieces(self.name.pattern(), text)
            .map(|piece| self.count_piece(piece.as_bytes()))
            .sum()
    }

    fn count_piece(&self, piece: &[u8]) -> usize {
        if piece.len() <= 1 || self.ranks.contains(piece) {
            return usize::from(!piece.is_empty());
        }
        if piece.len() > HUGE_PIECE {
            return huge::count(piece, &self.ranks, HUGE_PIECE);
        }
        if piece.len() > PIECE_CACHE_MAX_LEN {
            return bpe::count(piece, &self.ranks);
        }
        let Ok(mut cache) = self.pieces.lock() else {
            return bpe::count(piece, &self.ranks);
        };
        if let Some(&n) = cache.get(piece) {
            return n as usize;
        }
        let n = bpe::count(piece, &self.ranks);
        if cache.len() >= PIECE_CACHE_ENTRIES {
            cache.clear();
        }
        cache.insert(piece.into(), u32::try_from(n).unwrap_or(u32::MAX));
        n
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::core::error::ErrorCode;

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
