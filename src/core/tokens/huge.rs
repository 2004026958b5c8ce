//! Exact counts of huge pieces (megabytes without a break) in bounded memory.
//!
//! Merging a piece whole costs about 20 bytes of bookkeeping per byte, so a piece longer than a
//! window is merged in overlapping windows instead. Each window starts on a token start of the
//! window before and is merged alone; the two merges are joined on a token they share (same start
//! and end). A byte-pair encoding is valid exactly when every two adjacent tokens are the merge of
//! their own bytes (the observation behind GitHub's `bpe` crate), and every adjacent pair of the
//! joined sequence is adjacent in one window's merge, so the joined sequence is the merge of the
//! whole piece: the count is tiktoken's. Cutting the piece into separate chunks, as this package
//! once did, was off by a token or so at each cut.
//!
//! Two windows that share no token (never seen on real tables: the merges of a shared stretch of
//! megabytes agree once they are a few tokens from its ends) are joined at the later window's
//! start, which may be off by a token there.

use super::bpe;
use super::ranks::Ranks;

/// The number of tokens of `piece` merged in windows of `window` bytes (at least 64).
pub fn count(piece: &[u8], ranks: &Ranks, window: usize) -> usize {
    let window = window.max(64);
    let n = piece.len();
    if n <= window {
        return bpe::count(piece, ranks);
    }
    // The current window starts at `start` and its merge's token starts are `starts` (relative
    // to `start`). Tokens before `committed` (absolute) are counted in `total`; `committed` is a
    // token start of the current window's merge.
    let mut total = 0usize;
    let mut start = 0usize;
    let mut committed = 0usize;
    let mut starts = window_starts(piece, ranks, start, window);
    loop {
        let end = (start + window).min(n);
        if end >= n {
            return total
                + starts
                    .iter()
                    .filter(|&&s| start + s as usize >= committed)
                    .count();
        }
        // The next window starts on the first token start past the middle of this one.
        let half = start + window / 2;
        let next_start = starts
            .iter()
            .map(|&s| start + s as usize)
            .find(|&s| s >= half.max(committed + 1))
            .unwrap_or(half.max(committed + 1));
        let next = window_starts(piece, ranks, next_start, window);
        let next_end = (next_start + window).min(n);
        let join =
            shared_token(&starts, start, end, &next, next_start, next_end).unwrap_or(next_start);
        total += starts
            .iter()
            .map(|&s| start + s as usize)
            .filter(|&s| s >= committed && s < join)
            .count();
        committed = join;
        start = next_start;
        starts = next;
    }
}

/// The token starts of the merge of `piece[start..start + window]`, relative to `start`.
fn window_starts(piece: &[u8], ranks: &Ranks, start: usize, window: usize) -> Vec<u32> {
    let end = (start + window).min(piece.len());
    piece
        .get(start..end)
        .map_or_else(Vec::new, |w| bpe::token_starts(w, ranks))
}

/// The absolute start of the first token that both merges hold with the same start and end, at
/// or after `b_start` (where the second window begins). A window's last token is not taken unless
/// the window reaches the end of the piece (its end may still grow).
fn shared_token(
    a: &[u32],
    a_start: usize,
    a_end: usize,
    b: &[u32],
    b_start: usize,
    b_end: usize,
) -> Option<usize> {
    // Each token as (start, end) in absolute offsets; the last one's end is its window's end.
    let spans = |starts: &[u32], base: usize, end: usize| -> Vec<(usize, usize)> {
        let abs: Vec<usize> = starts.iter().map(|&s| base + s as usize).collect();
        abs.iter()
            .enumerate()
            .take(abs.len().saturating_sub(1))
            .map(|(k, &s)| (s, abs.get(k + 1).copied().unwrap_or(end)))
            .collect()
    };
    let a_spans = spans(a, a_start, a_end);
    let b_spans = spans(b, b_start, b_end);
    let mut j = 0usize;
    for &(s, e) in a_spans.iter().filter(|&&(s, _)| s >= b_start) {
        while b_spans.get(j).is_some_and(|&(bs, _)| bs < s) {
            j += 1;
        }
        if b_spans.get(j) == Some(&(s, e)) {
            return Some(s);
        }
    }
    None
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn toy_ranks() -> Ranks {
        let mut ranks = Ranks::with_capacity(16, 64);
        for t in [
            "ab", "bc", "abc", "cd", "abcd", "aa", "aaa", "aaaa", "ca", "ba", "aab", "aaab", "bb",
        ] {
            ranks.push(t.as_bytes()).unwrap();
        }
        ranks
    }

    #[test]
    fn windows_joined_on_a_shared_token_count_as_the_whole_merge() {
        let ranks = toy_ranks();
        let mut seed = 7u64;
        for len in [65usize, 100, 257, 1000, 4099] {
            for round in 0..20 {
                let piece: Vec<u8> = (0..len)
                    .map(|_| {
                        seed = seed
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        b"aabcd"[(seed >> 60) as usize % 5]
                    })
                    .collect();
                let whole = bpe::count(&piece, &ranks);
                for window in [64usize, 96, 200] {
                    assert_eq!(
                        count(&piece, &ranks, window),
                        whole,
                        "len {len} round {round} window {window}"
                    );
                }
            }
        }
        let piece = "aaab".repeat(300);
        assert_eq!(
            count(piece.as_bytes(), &ranks, 64),
            bpe::count(piece.as_bytes(), &ranks)
        );
    }

    #[test]
    fn windows_count_as_the_whole_merge_with_the_real_table() {
        let path = format!("{}/encodings/o200k_base.ranks", env!("CARGO_MANIFEST_DIR"));
        let table = std::fs::read(path).unwrap();
        let ranks = super::super::table_file::read("o200k_base", 199_998, &table).unwrap();
        let texts = [
            "aaab".repeat(700),
            "abcdefghij".repeat(300),
            "漢字かな交じり文".repeat(120),
            "thequickbrownfoxjumpsoverthelazydog".repeat(90),
            "=-".repeat(1500),
        ];
        for text in &texts {
            let whole = bpe::count(text.as_bytes(), &ranks);
            for window in [64usize, 300, 1024] {
                assert_eq!(
                    count(text.as_bytes(), &ranks, window),
                    whole,
                    "{}… window {window}",
                    &text[..8]
                );
            }
        }
    }
}
