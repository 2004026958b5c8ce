//! The `maybeCompact` continuation: a framework such as the AI SDK hands `prepareStep` the whole
//! history on every step, the compacted part included. After an automatic compaction, a later call
//! whose messages start with exactly the messages it replaced (and hold something after them)
//! continues from the compaction's head (system messages, summary, pinned messages) instead of
//! summarizing again.

/// How many leading messages of a call the last compaction replaced, when the call starts with
/// exactly them: `replaced` messages, `len` in the call, `same(i)` whether message `i` is the
/// replaced one. `None` when it does not continue (or holds nothing after them).
pub fn continuation(replaced: usize, len: usize, same: impl Fn(usize) -> bool) -> Option<usize> {
    (len > replaced && (0..replaced).all(same)).then_some(replaced)
}

/// How many of the caller's messages a compaction replaced: those before its first kept message
/// `first_kept` (an index into the compacted history). When that history continued an earlier
/// compaction (`Some((prefix_len, head_len))`: its first `head_len` messages stood for the caller's
/// first `prefix_len`), the count is in the caller's messages. `None` when the kept tail starts
/// inside the head.
pub fn replaced_upto(first_kept: usize, continued: Option<(usize, usize)>) -> Option<usize> {
    match continued {
        None => Some(first_kept),
        Some((prefix_len, head_len)) => first_kept
            .checked_sub(head_len)
            .map(|extra| prefix_len + extra),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continues_only_past_exactly_the_replaced_prefix() {
        assert_eq!(continuation(3, 5, |_| true), Some(3));
        assert_eq!(
            continuation(3, 3, |_| true),
            None,
            "nothing after the prefix"
        );
        assert_eq!(continuation(3, 5, |i| i != 1), None);
        assert_eq!(continuation(0, 1, |_| false), Some(0));
        assert_eq!(replaced_upto(4, None), Some(4));
        assert_eq!(replaced_upto(4, Some((10, 2))), Some(12));
        assert_eq!(replaced_upto(1, Some((10, 2))), None);
    }
}
