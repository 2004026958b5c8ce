//! Prompt-cache points of a rendered context (seed 003), recomputed after every compaction:
//! 1. the previous turn: the last message before the current turn starts;
//! 2. the pre-tail: the last message of round `N − offset` (N rounds, offset 4 by default), when
//!    there are enough rounds;
//! 3. the tail: the last message.
//!
//! A round is a user turn; summary messages before the first turn belong to no round.
//!
//! [`RenderOptions`] says which points get a provider cache marker when the format has them.

/// Why a message carries a cache point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CachePointKind {
    /// The last message before the current turn.
    PreviousTurn,
    /// The last message of round `N − offset`.
    PreTail,
    /// The last message.
    Tail,
}

impl CachePointKind {
    /// `"previous-turn"`, `"pre-tail"`, `"tail"`.
    pub fn as_str(self) -> &'static str {
        match self {
            CachePointKind::PreviousTurn => "previous-turn",
            CachePointKind::PreTail => "pre-tail",
            CachePointKind::Tail => "tail",
        }
    }
}

/// A cache point on message `index`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CachePoint {
    /// Index of the message in the rendered context.
    pub index: usize,
    /// Which rule placed it.
    pub kind: CachePointKind,
}

/// The default distance of the pre-tail point, in rounds.
pub const PRE_TAIL_OFFSET_ROUNDS: usize = 4;

/// The cache points of a context whose messages start turns where `turn_starts` is true, in the
/// order tail, previous turn, pre-tail (the order in which they matter most); no two on the same
/// message.
pub fn cache_points(turn_starts: &[bool], offset: usize) -> Vec<CachePoint> {
    let n = turn_starts.len();
    let mut out: Vec<CachePoint> = Vec::new();
    let mut add = |index: usize, kind: CachePointKind| {
        if !out.iter().any(|p| p.index == index) {
            out.push(CachePoint { index, kind });
        }
    };
    if n == 0 {
        return out;
    }
    add(n - 1, CachePointKind::Tail);
    let starts: Vec<usize> = (0..n)
        .filter(|&i| turn_starts.get(i).copied().unwrap_or(false))
        .collect();
    if let Some(&current) = starts.last() {
        if current > 0 {
            add(current - 1, CachePointKind::PreviousTurn);
        }
    }
    let rounds = starts.len();
    if offset > 0 && rounds > offset {
        // Round k (1-based) ends right before round k + 1 starts.
        if let Some(&next) = starts.get(rounds - offset) {
            if next > 0 {
                add(next - 1, CachePointKind::PreTail);
            }
        }
    }
    out
}

/// The options of `render()` (and of `prepare()`, which has more keys: unknown keys are left
/// to the caller's own check).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RenderOptions {
    /// Put cache markers on the cache points (`cacheControl`, default true).
    pub cache_control: bool,
    /// Breakpoints the caller uses elsewhere in the request (`reservedCachePoints`, 0 to 4).
    pub reserved: usize,
}

/// The keys of [`RenderOptions`].
pub const RENDER_KEYS: [&str; 2] = ["cacheControl", "reservedCachePoints"];

impl RenderOptions {
    /// Reads `cacheControl` and `reservedCachePoints` (`INVALID_OPTIONS` naming the key).
    pub fn read(value: &serde_json::Value) -> crate::core::error::Result<RenderOptions> {
        let r = crate::core::options::reader::Reader::new(value, "")?;
        let cache_control = r.boolean("cacheControl")?.unwrap_or(true);
        let reserved = match r.count("reservedCachePoints", 0)? {
            None => 0,
            Some(n) if n <= 4 => n,
            Some(_) => {
                return Err(crate::core::error::Error::invalid_option(
                    "reservedCachePoints",
                    "reservedCachePoints must be a whole number from 0 to 4",
                ))
            }
        };
        Ok(RenderOptions {
            cache_control,
            reserved,
        })
    }

    /// The messages that get a marker: the first `points` while the request holds at most
    /// `limit` markers, counting the `existing` ones in the messages and the reserved ones.
    pub fn marked(&self, points: &[CachePoint], existing: usize, limit: usize) -> Vec<usize> {
        if !self.cache_control {
            return Vec::new();
        }
        let room = limit.saturating_sub(existing.saturating_add(self.reserved));
        points.iter().take(room).map(|p| p.index).collect()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn starts(spec: &str) -> Vec<bool> {
        spec.chars().map(|c| c == 'u').collect()
    }

    #[test]
    fn five_turns_have_all_three_points() {
        // Turns A..E of two messages each: A = 0,1 ... E = 8,9.
        let p = cache_points(&starts("uauauauaua"), 4);
        assert_eq!(
            p,
            vec![
                CachePoint {
                    index: 9,
                    kind: CachePointKind::Tail
                },
                CachePoint {
                    index: 7,
                    kind: CachePointKind::PreviousTurn
                },
                CachePoint {
                    index: 1,
                    kind: CachePointKind::PreTail
                },
            ]
        );
    }

    #[test]
    fn after_compaction_the_pre_tail_is_omitted() {
        // [SUMMARY] [TURN D] [TURN E]
        let p = cache_points(&starts("suaua"), 4);
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].index, 4);
        assert_eq!(
            p[1],
            CachePoint {
                index: 2,
                kind: CachePointKind::PreviousTurn
            }
        );
    }

    #[test]
    fn one_turn_has_only_the_tail_and_empty_has_none() {
        assert_eq!(cache_points(&starts("uaaa"), 4).len(), 1);
        assert!(cache_points(&[], 4).is_empty());
        // A single message that starts the turn: the tail only.
        assert_eq!(
            cache_points(&starts("u"), 4),
            vec![CachePoint {
                index: 0,
                kind: CachePointKind::Tail
            }]
        );
    }

    #[test]
    fn render_options_bound_the_markers() {
        use serde_json::json;
        let points = cache_points(&[true, false, true, false, true, false], 4);
        let o = RenderOptions::read(&json!({})).unwrap();
        assert_eq!(o.marked(&points, 0, 4).len(), points.len());
        let o = RenderOptions::read(&json!({"reservedCachePoints": 2})).unwrap();
        assert_eq!(o.marked(&points, 1, 4), vec![points[0].index]);
        let o = RenderOptions::read(&json!({"cacheControl": false})).unwrap();
        assert!(o.marked(&points, 0, 4).is_empty());
        for bad in [
            json!({"reservedCachePoints": 5}),
            json!({"reservedCachePoints": 1.5}),
            json!({"cacheControl": "yes"}),
        ] {
            assert!(RenderOptions::read(&bad).is_err(), "{bad}");
        }
    }
}
