//! Text read a piece at a time (the pieces cut anywhere): the readers the binding feeds the
//! pieces of a string or an iterable of strings ([`PieceReader`]: a session log, an agent's
//! session file), and where a piece that JS gives as UTF-16 is cut so that no surrogate pair is
//! split between two pieces ([`is_high_surrogate`]).

use super::error::Result;

/// A reader fed a text's pieces in order (UTF-8, cut anywhere), then ended.
pub trait PieceReader {
    /// What the whole text reads as.
    type Output;

    /// Reads the next piece.
    fn push(&mut self, piece: &[u8]) -> Result<()>;

    /// Ends the text.
    fn finish(self) -> Result<Self::Output>;
}

/// The first (high) surrogates, U+D800 to U+DBFF, as `charCodeAt` gives them.
const HIGH: std::ops::RangeInclusive<f64> = 55296.0..=56319.0;

/// The UTF-16 unit `unit` (as `charCodeAt` gives it) is a high surrogate: at the end of a piece
/// it waits for the next piece, which may start with its pair.
pub fn is_high_surrogate(unit: f64) -> bool {
    HIGH.contains(&unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_first_half_of_a_pair_waits() {
        let units: Vec<f64> = "a\u{1F600}".encode_utf16().map(f64::from).collect();
        let waits: Vec<bool> = units.iter().map(|&u| is_high_surrogate(u)).collect();
        assert_eq!(
            waits,
            [false, true, false],
            "'a', then the emoji's high and low"
        );
        assert!(is_high_surrogate(f64::from(0xDBFF_u16)));
        assert!(!is_high_surrogate(f64::from(0xDC00_u16)));
        assert!(!is_high_surrogate(f64::NAN), "past the end of a piece");
    }
}
