//! How the input tokens of one request are billed ([`CacheUsage`]): fresh, read from the cache,
//! written to it. Its own file so that the prices and the providers' rules can both name it.

/// How the tokens of one request are billed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheUsage {
    /// Input tokens billed at the full price.
    pub fresh: usize,
    /// Tokens read from the cache.
    pub read: usize,
    /// Tokens written to a 5-minute cache entry (Anthropic).
    pub write_5m: usize,
    /// Tokens written to a 1-hour cache entry (Anthropic).
    pub write_1h: usize,
}

impl CacheUsage {
    /// All input tokens of the request.
    pub fn total(&self) -> usize {
        self.fresh + self.read + self.write_5m + self.write_1h
    }

    /// Tokens written, whatever their TTL.
    pub fn written(&self) -> usize {
        self.write_5m + self.write_1h
    }

    /// The sum of two requests' usage (a compaction of several summarizer calls).
    pub fn plus(self, other: CacheUsage) -> CacheUsage {
        CacheUsage {
            fresh: self.fresh + other.fresh,
            read: self.read + other.read,
            write_5m: self.write_5m + other.write_5m,
            write_1h: self.write_1h + other.write_1h,
        }
    }
}
