//! Byte-pair merging, counting only: how many tokens a piece becomes.
//!
//! tiktoken merges the adjacent pair of lowest rank (the leftmost on a tie) until no pair is a
//! token. Short pieces (nearly all) do exactly that on arrays on the stack, rescanning the pair
//! ranks after each merge: quadratic, but in a few dozen bytes that beats any bookkeeping. Longer
//! ones keep the pairs in a min-heap keyed by `(rank, position)`, which pops exactly the pair the
//! rescan would find, in O(n log n).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::ranks::{Rank, Ranks};

/// Pieces up to this many bytes are merged on the stack.
const SHORT: usize = 64;
const NONE: Rank = Rank::MAX;

/// The number of tokens of `piece` (its byte-pair merge with `ranks`).
pub fn count(piece: &[u8], ranks: &Ranks) -> usize {
    match piece.len() {
        0 | 1 => piece.len(),
        n if n <= SHORT => count_short(piece, ranks),
        _ => count_long(piece, ranks),
    }
}

#[inline(always)]
fn rank_of(piece: &[u8], start: usize, end: usize, ranks: &Ranks) -> Rank {
    piece
        .get(start..end)
        .and_then(|pair| ranks.get(pair))
        .unwrap_or(NONE)
}

fn count_short(piece: &[u8], ranks: &Ranks) -> usize {
    // Part `k` spans `starts[k]..starts[k + 1]`; `pair[k]` is the rank of parts `k` and `k + 1`
    // merged. `parts` parts remain.
    let mut starts = [0u8; SHORT + 1];
    let mut pair = [NONE; SHORT];
    let mut parts = piece.len();
    for (k, s) in starts.iter_mut().enumerate().take(parts + 1) {
        *s = k as u8;
    }
    for (k, p) in pair.iter_mut().enumerate().take(parts - 1) {
        *p = rank_of(piece, k, k + 2, ranks);
    }
    let at = |starts: &[u8; SHORT + 1], k: usize| starts.get(k).map_or(0, |&s| usize::from(s));
    loop {
        let Some((k, _)) = pair
            .iter()
            .take(parts - 1)
            .enumerate()
            .filter(|&(_, &r)| r != NONE)
            .min_by_key(|&(k, &r)| (r, k))
        else {
            return parts;
        };
        // Merge parts k and k + 1: drop boundary k + 1 and pair k + 1.
        starts.copy_within(k + 2..=parts, k + 1);
        pair.copy_within(k + 1..parts - 1, k);
        parts -= 1;
        if let Some(p) = pair.get_mut(k) {
            *p = if k + 2 <= parts {
                rank_of(piece, at(&starts, k), at(&starts, k + 2), ranks)
            } else {
                NONE
            };
        }
        if let Some(before) = k.checked_sub(1) {
            let r = rank_of(piece, at(&starts, before), at(&starts, k + 1), ranks);
            if let Some(p) = pair.get_mut(before) {
                *p = r;
            }
        }
        if parts == 1 {
            return 1;
        }
    }
}

fn count_long(piece: &[u8], ranks: &Ranks) -> usize {
    merge_long(piece, ranks).map_or(piece.len(), |(_, tokens)| tokens)
}

/// The start of every token of `piece` after its byte-pair merge, in order (the first is 0).
/// Used on the windows of a huge piece (`huge.rs`); an empty piece has none.
pub fn token_starts(piece: &[u8], ranks: &Ranks) -> Vec<u32> {
    let Some((next, tokens)) = merge_long(piece, ranks) else {
        return (0..u32::try_from(piece.len()).unwrap_or(0)).collect();
    };
    let mut starts = Vec::with_capacity(tokens);
    let mut at = 0u32;
    while (at as usize) < piece.len() {
        starts.push(at);
        match next.get(at as usize) {
            Some(&after) if after > at => at = after,
            _ => break,
        }
    }
    starts
}

/// The heap merge: `next[i]` is the start of the part after the one at `i` once no pair merges
/// (meaningful where `i` starts a part), and the number of parts. `None` for a piece of 4 GiB or
/// more, which no caller sends.
fn merge_long(piece: &[u8], ranks: &Ranks) -> Option<(Vec<u32>, usize)> {
    let n = piece.len();
    // Parts are named by their start byte. `next[i]` is the start of the part after the one at
    // `i` (`n` after the last), `prev[i]` the one before (`NIL` for the first); `pair[i]` is the
    // rank of the part at `i` merged with the next (NONE if not a token, or if `i` is no longer
    // the start of a part).
    const NIL: u32 = u32::MAX;
    let len = u32::try_from(n).ok()?;
    let mut next: Vec<u32> = (1..=len).collect();
    let mut prev: Vec<u32> = (0..len).map(|i| i.checked_sub(1).unwrap_or(NIL)).collect();
    let pair_at = |i: u32, next: &[u32]| -> Rank {
        let Some(&mid) = next.get(i as usize) else {
            return NONE;
        };
        let Some(&end) = next.get(mid as usize) else {
            return NONE;
        };
        rank_of(piece, i as usize, end as usize, ranks)
    };
    let mut pair: Vec<Rank> = (0..len).map(|i| pair_at(i, &next)).collect();
    let mut heap: BinaryHeap<Reverse<u64>> = pair
        .iter()
        .enumerate()
        .filter(|&(_, &r)| r != NONE)
        .map(|(i, &r)| Reverse((u64::from(r) << 32) | i as u64))
        .collect();
    let mut tokens = n;
    while let Some(Reverse(entry)) = heap.pop() {
        let (rank, i) = ((entry >> 32) as Rank, (entry & 0xFFFF_FFFF) as u32);
        if pair.get(i as usize) != Some(&rank) {
            continue; // stale: the pair changed since it was pushed
        }
        let Some(&j) = next.get(i as usize) else {
            continue;
        };
        let after = next.get(j as usize).copied().unwrap_or(len);
        // Merge the part at `i` with the one at `j`.
        if let Some(slot) = pair.get_mut(j as usize) {
            *slot = NONE;
        }
        if let Some(slot) = next.get_mut(i as usize) {
            *slot = after;
        }
        if let Some(slot) = prev.get_mut(after as usize) {
            *slot = i;
        }
        tokens -= 1;
        for at in [Some(i), prev.get(i as usize).copied().filter(|&p| p != NIL)]
            .into_iter()
            .flatten()
        {
            let r = pair_at(at, &next);
            if let Some(slot) = pair.get_mut(at as usize) {
                *slot = r;
            }
            if r != NONE {
                heap.push(Reverse((u64::from(r) << 32) | u64::from(at)));
            }
        }
    }
    Some((next, tokens))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    /// tiktoken's loop as written: rescan all pairs after each merge.
    fn reference(piece: &[u8], ranks: &Ranks) -> usize {
        let mut bounds: Vec<usize> = (0..=piece.len()).collect();
        loop {
            let best = (0..bounds.len().saturating_sub(2))
                .filter_map(|k| ranks.get(&piece[bounds[k]..bounds[k + 2]]).map(|r| (r, k)))
                .min();
            match best {
                Some((_, k)) => {
                    bounds.remove(k + 1);
                }
                None => return bounds.len() - 1,
            }
        }
    }

    #[test]
    fn both_paths_merge_as_tiktoken_does() {
        let mut ranks = Ranks::with_capacity(8, 32);
        for t in ["ab", "bc", "abc", "cd", "abcd", "aa", "aaa", "aaaa", "ca"] {
            ranks.push(t.as_bytes()).unwrap();
        }
        let mut pieces: Vec<String> = [
            "ab",
            "abcd",
            "abcabcd",
            "aaaaaaa",
            "xabcdx",
            "bcbcab",
            "aaaaaaaaaaaaab",
            "x",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        pieces.push("abcda".repeat(40));
        pieces.push("a".repeat(SHORT));
        pieces.push("a".repeat(SHORT + 1));
        pieces.push("cabcaab".repeat(30));
        for piece in &pieces {
            let p = piece.as_bytes();
            let expected = if p.len() < 2 {
                p.len()
            } else {
                reference(p, &ranks)
            };
            assert_eq!(count(p, &ranks), expected, "{piece}");
            if p.len() >= 2 {
                assert_eq!(count_long(p, &ranks), expected, "long path on {piece}");
            }
        }
    }
}
