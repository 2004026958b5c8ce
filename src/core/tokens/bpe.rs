//! Byte-pair merging for long pieces in O(n log n).
//!
//! tiktoken merges the adjacent pair of lowest rank (the leftmost on a tie) until no pair has a
//! rank; its loop rescans every pair after each merge, which is quadratic: a run of 100,000 CJK
//! characters without a space (one piece of 300,000 bytes) took two minutes. Here the pairs sit in
//! a min-heap keyed by `(rank, position)`, which pops exactly the pair tiktoken would merge next,
//! so the result is identical (checked against tiktoken's own function in the tests).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rustc_hash::FxHashMap;
use tiktoken_rs::Rank;

/// Pieces at least this long are merged here; shorter ones by tiktoken's own loop, which is faster
/// on small inputs.
pub const LARGE_PIECE: usize = 512;

/// The number of tokens of `piece` (its byte-pair merge with `ranks`).
pub fn count_tokens(piece: &[u8], ranks: &FxHashMap<Vec<u8>, Rank>) -> usize {
    let n = piece.len();
    if n < 2 {
        return n;
    }
    // Tokens are identified by their start byte; `next[i]` is the start of the following token
    // (`n` after the last), `prev[i]` the start of the preceding one (`usize::MAX` for the first).
    let mut next: Vec<usize> = (1..=n).collect();
    let mut prev: Vec<usize> = (0..n).map(|i| i.wrapping_sub(1)).collect();
    let mut alive = vec![true; n];
    let rank_of = |start: usize, next: &[usize]| -> Option<Rank> {
        let mid = *next.get(start)?;
        let end = *next.get(mid)?;
        ranks.get(piece.get(start..end)?).copied()
    };
    let mut pair_rank: Vec<Option<Rank>> = (0..n).map(|i| rank_of(i, &next)).collect();
    let mut heap: BinaryHeap<Reverse<(Rank, usize)>> = pair_rank
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.map(|r| Reverse((r, i))))
        .collect();
    let mut tokens = n;
    while let Some(Reverse((rank, i))) = heap.pop() {
        if !alive.get(i).copied().unwrap_or(false) || pair_rank.get(i) != Some(&Some(rank)) {
            continue; // a pair that no longer exists, or whose rank changed
        }
        let Some(&j) = next.get(i) else { continue };
        let Some(&after) = next.get(j) else { continue };
        // Merge the token at `i` with the one at `j`.
        if let Some(a) = alive.get_mut(j) {
            *a = false;
        }
        if let Some(slot) = next.get_mut(i) {
            *slot = after;
        }
        if let Some(slot) = prev.get_mut(after) {
            *slot = i;
        }
        tokens -= 1;
        let here = rank_of(i, &next);
        if let Some(slot) = pair_rank.get_mut(i) {
            *slot = here;
        }
        if let Some(r) = here {
            heap.push(Reverse((r, i)));
        }
        if let Some(&p) = prev.get(i) {
            let before = rank_of(p, &next);
            if let Some(slot) = pair_rank.get_mut(p) {
                *slot = before;
            }
            if let Some(r) = before {
                heap.push(Reverse((r, p)));
            }
        }
    }
    tokens
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn table() -> FxHashMap<Vec<u8>, Rank> {
        let mut ranks = FxHashMap::default();
        for (i, t) in ["ab", "bc", "abc", "cd", "abcd", "aa", "aaa", "aaaa"]
            .iter()
            .enumerate()
        {
            ranks.insert(t.as_bytes().to_vec(), i as Rank);
        }
        ranks
    }

    #[test]
    fn merges_as_tiktoken_does() {
        let ranks = table();
        for piece in [
            "ab",
            "abcd",
            "abcabcd",
            "aaaaaaa",
            "xabcdx",
            "bcbcab",
            "aaaaaaaaaaaaab",
            "x",
        ] {
            let expected = if piece.len() < 2 {
                piece.len()
            } else {
                tiktoken_rs::byte_pair_split(piece.as_bytes(), &ranks).len()
            };
            assert_eq!(count_tokens(piece.as_bytes(), &ranks), expected, "{piece}");
        }
    }
}
