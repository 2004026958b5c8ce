//! A rank table: every token's bytes in one buffer, in rank order (ranks are `0..n`, so a token's
//! rank is its position), and an open-addressing hash index from bytes to rank. About 5 bytes per
//! token beside the bytes themselves, and one multiply per 8 bytes of key to look one up.

/// The rank of a token.
pub type Rank = u32;

/// Tokens by rank, and the index from bytes to rank.
pub struct Ranks {
    bytes: Vec<u8>,
    /// `ends[r]` is where token `r` ends in `bytes`; it starts where token `r - 1` ends.
    ends: Vec<u32>,
    /// Open addressing with linear probing: 0 is empty, otherwise the high half holds the key's
    /// hash (to skip most mismatches without reading the bytes), the low half `rank + 1`.
    slots: Vec<u64>,
    shift: u32,
}

impl std::fmt::Debug for Ranks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ranks").field("len", &self.len()).finish()
    }
}

const MULTIPLIER: u64 = 0x9E37_79B9_7F4A_7C15;

#[inline(always)]
fn hash(key: &[u8]) -> u64 {
    let mut h = key.len() as u64;
    let mut chunks = key.chunks_exact(8);
    for chunk in &mut chunks {
        let word = chunk.try_into().map_or(0, u64::from_le_bytes);
        h = (h.rotate_left(23) ^ word).wrapping_mul(MULTIPLIER);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        // Byte by byte: no call to `memcpy` for a few bytes (the `.wasm` is built for size).
        let word = rest
            .iter()
            .rev()
            .fold(0u64, |w, &b| (w << 8) | u64::from(b));
        h = (h.rotate_left(23) ^ word).wrapping_mul(MULTIPLIER);
    }
    h ^ (h >> 29)
}

/// `a == b`, inlined: the slices are short, and a call to `memcmp` costs more than the loop.
#[inline(always)]
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// Why tokens could not become a table.
#[derive(Debug, PartialEq, Eq)]
pub enum BuildError {
    /// The same bytes twice.
    Duplicate(Rank),
    /// An empty token, or more bytes than a `u32` addresses.
    Invalid(Rank),
}

impl Ranks {
    /// An empty table with room for `tokens` tokens of `bytes` bytes in all.
    pub fn with_capacity(tokens: usize, bytes: usize) -> Ranks {
        let slots = (tokens.max(4) * 2).next_power_of_two();
        Ranks {
            bytes: Vec::with_capacity(bytes),
            ends: Vec::with_capacity(tokens),
            slots: vec![0; slots],
            shift: 64 - slots.trailing_zeros(),
        }
    }

    /// The number of tokens.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether the table has no token.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Appends `token` with the next rank.
    pub fn push(&mut self, token: &[u8]) -> Result<(), BuildError> {
        let rank = Rank::try_from(self.len()).map_err(|_| BuildError::Invalid(Rank::MAX))?;
        if token.is_empty() {
            return Err(BuildError::Invalid(rank));
        }
        if self.len() * 2 >= self.slots.len() {
            self.grow();
        }
        let h = hash(token);
        let mut slot = self.home(h);
        loop {
            match self.slots.get(slot).copied() {
                Some(0) => break,
                Some(entry) => {
                    if entry >> 32 == h >> 32 && self.token(entry_rank(entry)) == Some(token) {
                        return Err(BuildError::Duplicate(rank));
                    }
                }
                None => return Err(BuildError::Invalid(rank)),
            }
            slot = (slot + 1) & (self.slots.len() - 1);
        }
        self.bytes.extend_from_slice(token);
        let end = u32::try_from(self.bytes.len()).map_err(|_| BuildError::Invalid(rank))?;
        self.ends.push(end);
        if let Some(s) = self.slots.get_mut(slot) {
            *s = (h & 0xFFFF_FFFF_0000_0000) | u64::from(rank + 1);
        }
        Ok(())
    }

    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(8);
        self.slots = vec![0; size];
        self.shift = 64 - size.trailing_zeros();
        for rank in 0..self.len() {
            let Some(token) = self.token(rank as Rank) else {
                continue;
            };
            let h = hash(token);
            let mut slot = self.home(h);
            while self.slots.get(slot).is_some_and(|&e| e != 0) {
                slot = (slot + 1) & (size - 1);
            }
            if let Some(s) = self.slots.get_mut(slot) {
                *s = (h & 0xFFFF_FFFF_0000_0000) | (rank as u64 + 1);
            }
        }
    }

    #[inline(always)]
    fn home(&self, h: u64) -> usize {
        (h.wrapping_mul(MULTIPLIER) >> self.shift) as usize
    }

    /// The bytes of the token of rank `rank`.
    #[inline(always)]
    pub fn token(&self, rank: Rank) -> Option<&[u8]> {
        let r = rank as usize;
        let start = match r.checked_sub(1) {
            Some(p) => *self.ends.get(p)? as usize,
            None => 0,
        };
        let end = *self.ends.get(r)? as usize;
        self.bytes.get(start..end)
    }

    /// The rank of the token `key`, if it is one.
    #[inline(always)]
    pub fn get(&self, key: &[u8]) -> Option<Rank> {
        let h = hash(key);
        let tag = h >> 32;
        let mask = self.slots.len().wrapping_sub(1);
        let mut slot = self.home(h);
        loop {
            let entry = *self.slots.get(slot)?;
            if entry == 0 {
                return None;
            }
            if entry >> 32 == tag {
                let rank = entry_rank(entry);
                if self.token(rank).is_some_and(|t| same(t, key)) {
                    return Some(rank);
                }
            }
            slot = (slot + 1) & mask;
        }
    }

    /// Whether `key` is a token.
    #[inline(always)]
    pub fn contains(&self, key: &[u8]) -> bool {
        self.get(key).is_some()
    }

    /// Bytes held, for memory reports.
    pub fn heap_bytes(&self) -> usize {
        self.bytes.capacity() + self.ends.capacity() * 4 + self.slots.capacity() * 8
    }
}

#[inline(always)]
fn entry_rank(entry: u64) -> Rank {
    ((entry & 0xFFFF_FFFF) as Rank).wrapping_sub(1)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_token_and_nothing_else() {
        let mut ranks = Ranks::with_capacity(2, 4);
        let tokens: Vec<Vec<u8>> = (0..3000u32)
            .map(|i| format!("t{i}-{}", "x".repeat((i % 20) as usize)).into_bytes())
            .collect();
        for t in &tokens {
            ranks.push(t).unwrap();
        }
        for (i, t) in tokens.iter().enumerate() {
            assert_eq!(ranks.get(t), Some(i as Rank));
            assert_eq!(ranks.token(i as Rank), Some(t.as_slice()));
        }
        assert_eq!(ranks.get(b"t1-"), None);
        assert_eq!(ranks.get(b""), None);
        assert_eq!(ranks.push(b"t5-xxxxx"), Err(BuildError::Duplicate(3000)));
        assert_eq!(ranks.push(b""), Err(BuildError::Invalid(3000)));
        assert_eq!(ranks.len(), 3000);
    }
}
