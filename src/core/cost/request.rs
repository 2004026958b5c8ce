//! A request as a provider's prompt cache sees it: blocks in the order the provider hashes them
//! (tools, system, messages), each with its tokens, a content key and an optional cache marker.

/// How long an Anthropic cache entry lives; it decides the price of writing it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ttl {
    /// The default `{"type": "ephemeral"}` entry: five minutes, written at 1.25× the input price.
    FiveMinutes,
    /// `{"type": "ephemeral", "ttl": "1h"}`: one hour, written at 2× the input price.
    OneHour,
}

impl Ttl {
    /// `"5m"` or `"1h"`, as Anthropic spells them.
    pub fn as_str(self) -> &'static str {
        match self {
            Ttl::FiveMinutes => "5m",
            Ttl::OneHour => "1h",
        }
    }

    /// Parses `"5m"` or `"1h"`.
    pub fn parse(text: &str) -> Option<Ttl> {
        match text {
            "5m" => Some(Ttl::FiveMinutes),
            "1h" => Some(Ttl::OneHour),
            _ => None,
        }
    }
}

/// One block of a request: a message, the system prompt, the tools.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    /// Its tokens, as the provider counts them.
    pub tokens: usize,
    /// Equal for two blocks exactly when their bytes are equal (a hash of the rendered block).
    pub key: u64,
    /// An Anthropic `cache_control` marker on the block (ignored by the other providers).
    pub cache: Option<Ttl>,
}

impl Block {
    /// A block without a cache marker.
    pub fn new(tokens: usize, key: u64) -> Block {
        Block {
            tokens,
            key,
            cache: None,
        }
    }

    /// The same block carrying a cache marker of `ttl`.
    pub fn cached(self, ttl: Ttl) -> Block {
        Block {
            cache: Some(ttl),
            ..self
        }
    }
}

/// The blocks of one request, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Request {
    /// Tools, system prompt, then the messages, in the order the provider reads them.
    pub blocks: Vec<Block>,
}

impl Request {
    /// A request of `blocks`.
    pub fn new(blocks: Vec<Block>) -> Request {
        Request { blocks }
    }

    /// All its input tokens.
    pub fn tokens(&self) -> usize {
        self.blocks.iter().map(|b| b.tokens).sum()
    }

    /// Tokens of the common prefix of `self` and `other`: the leading blocks whose keys are equal.
    pub fn common_prefix(&self, other: &Request) -> usize {
        self.common_blocks(other)
            .map(|n| self.blocks.iter().take(n).map(|b| b.tokens).sum())
            .unwrap_or(0)
    }

    /// How many leading blocks `self` and `other` share; `None` when not even the first.
    pub(crate) fn common_blocks(&self, other: &Request) -> Option<usize> {
        let n = self
            .blocks
            .iter()
            .zip(&other.blocks)
            .take_while(|(a, b)| a.key == b.key && a.tokens == b.tokens)
            .count();
        (n > 0).then_some(n)
    }

    /// Indices of the blocks carrying a cache marker, ascending.
    pub fn breakpoints(&self) -> Vec<usize> {
        (0..self.blocks.len())
            .filter(|&i| self.blocks.get(i).is_some_and(|b| b.cache.is_some()))
            .collect()
    }

    /// Tokens of blocks `0..=index`.
    pub fn tokens_through(&self, index: usize) -> usize {
        self.blocks.iter().take(index + 1).map(|b| b.tokens).sum()
    }
}

/// A 64-bit FNV-1a hash of `bytes`: the key of a block whose bytes they are.
pub fn key_of(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_prefix_counts_equal_leading_blocks() {
        let a = Request::new(vec![Block::new(10, 1), Block::new(20, 2), Block::new(5, 3)]);
        let b = Request::new(vec![Block::new(10, 1), Block::new(20, 2), Block::new(7, 4)]);
        assert_eq!(a.common_prefix(&b), 30);
        let c = Request::new(vec![Block::new(10, 9)]);
        assert_eq!(a.common_prefix(&c), 0);
        assert_eq!(a.tokens(), 35);
        assert_eq!(a.tokens_through(1), 30);
        assert_ne!(key_of(b"a"), key_of(b"b"));
        assert_eq!(Ttl::parse("1h"), Some(Ttl::OneHour));
        assert_eq!(
            Ttl::parse(Ttl::FiveMinutes.as_str()),
            Some(Ttl::FiveMinutes)
        );
    }
}
