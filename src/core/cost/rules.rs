//! Each provider's prompt-cache rules, applied to a previous request and the next one.
//!
//! - **Anthropic** (explicit breakpoints): a request carries at most 4 `cache_control` markers.
//!   The prefix up to a marked block (tools, system, messages in that order) is written to the
//!   cache when it holds at least the model's minimum (1,024 tokens for Sonnet; more for some
//!   models); a later request reads the longest prefix that an earlier request marked, when one of
//!   its own markers sits at or after that point, at most 20 blocks later. Written tokens cost
//!   1.25× (5-minute TTL) or 2× (1-hour TTL) the input price, read tokens 0.1×; tokens after the
//!   last marker are fresh input.
//! - **OpenAI** (automatic): a prompt of 1,024 tokens or more reads the longest prefix it shares
//!   with a recent request, in steps of 128 tokens past the first 1,024; nothing is charged for
//!   writing.
//! - **Gemini** (implicit, Gemini 2.5 and later): a shared prefix of at least the model's minimum
//!   (2,048 tokens for Gemini 2.5 Pro and Flash) is read from the cache; best effort, nothing
//!   charged for writing.
//!
//! The model is deterministic and optimistic: a cache entry is assumed alive (the next request
//! follows within its TTL) and a provider's best-effort cache is assumed to hit.

use crate::core::error::{Error, Result};

use super::price::Provider;
use super::request::{Request, Ttl};
use super::usage::CacheUsage;

/// The most `cache_control` markers Anthropic accepts in one request.
pub const ANTHROPIC_MAX_BREAKPOINTS: usize = 4;

/// How far back (in blocks) Anthropic looks from a marker for an earlier cache entry.
pub const ANTHROPIC_LOOKBACK_BLOCKS: usize = 20;

/// OpenAI's shortest cacheable prompt and the step of its cache hits.
pub const OPENAI_MIN_TOKENS: usize = 1_024;
/// The step of OpenAI's cache hits past the first [`OPENAI_MIN_TOKENS`].
pub const OPENAI_INCREMENT: usize = 128;

/// The shortest prefix the providers cache by default: Anthropic's for Sonnet models (other
/// models need 2,048 or 4,096), Gemini 2.5's implicit cache.
pub const ANTHROPIC_MIN_TOKENS: usize = 1_024;
/// Gemini 2.5 Pro's and Flash's minimum for implicit caching (Gemini 3 models need 4,096).
pub const GEMINI_MIN_TOKENS: usize = 2_048;

/// How `next` is billed by `provider` when `previous` (if any) was the last request sent with the
/// same model and account. `min_tokens` overrides the provider's shortest cacheable prefix.
/// Errors: `INVALID_INPUT` when an Anthropic request carries more than 4 markers (the provider
/// would reject it).
pub fn bill(
    provider: Provider,
    min_tokens: Option<usize>,
    previous: Option<&Request>,
    next: &Request,
) -> Result<CacheUsage> {
    let total = next.tokens();
    let common = previous.map_or(0, |p| next.common_prefix(p));
    let usage = match provider {
        Provider::None => CacheUsage {
            fresh: total,
            ..CacheUsage::default()
        },
        Provider::OpenAi => {
            let min = min_tokens.unwrap_or(OPENAI_MIN_TOKENS).max(1);
            let read = if common >= min {
                min + (common - min) / OPENAI_INCREMENT * OPENAI_INCREMENT
            } else {
                0
            };
            CacheUsage {
                fresh: total - read,
                read,
                ..CacheUsage::default()
            }
        }
        Provider::Gemini => {
            let min = min_tokens.unwrap_or(GEMINI_MIN_TOKENS).max(1);
            let read = if common >= min { common } else { 0 };
            CacheUsage {
                fresh: total - read,
                read,
                ..CacheUsage::default()
            }
        }
        Provider::Anthropic => {
            anthropic(min_tokens.unwrap_or(ANTHROPIC_MIN_TOKENS), previous, next)?
        }
    };
    Ok(usage)
}

fn anthropic(min: usize, previous: Option<&Request>, next: &Request) -> Result<CacheUsage> {
    let marks = next.breakpoints();
    if marks.len() > ANTHROPIC_MAX_BREAKPOINTS {
        return Err(Error::invalid_input(
            "cache",
            format!(
                "an Anthropic request carries at most {ANTHROPIC_MAX_BREAKPOINTS} cache markers, got {}",
                marks.len()
            ),
        ));
    }
    let shared = previous.and_then(|p| next.common_blocks(p)).unwrap_or(0);
    // The longest prefix an earlier request wrote that a marker of `next` reaches back to.
    let read = previous
        .map(|p| p.breakpoints())
        .unwrap_or_default()
        .into_iter()
        .filter(|&i| i < shared)
        .filter(|&i| {
            marks
                .iter()
                .any(|&m| m >= i && m - i <= ANTHROPIC_LOOKBACK_BLOCKS)
        })
        .map(|i| next.tokens_through(i))
        .filter(|&t| t >= min)
        .max()
        .unwrap_or(0);
    let mut cursor = read;
    let (mut write_5m, mut write_1h) = (0, 0);
    for m in marks {
        let through = next.tokens_through(m);
        if through < min || through <= cursor {
            continue;
        }
        match next.blocks.get(m).and_then(|b| b.cache) {
            Some(Ttl::OneHour) => write_1h += through - cursor,
            _ => write_5m += through - cursor,
        }
        cursor = through;
    }
    Ok(CacheUsage {
        fresh: next.tokens() - cursor,
        read,
        write_5m,
        write_1h,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::core::cost::request::Block;

    fn conversation(sizes: &[usize]) -> Vec<Block> {
        sizes
            .iter()
            .enumerate()
            .map(|(i, &t)| Block::new(t, i as u64 + 1))
            .collect()
    }

    #[test]
    fn anthropic_reads_the_marked_prefix_and_writes_up_to_the_last_marker() {
        let mut prev = conversation(&[3_000, 50_000, 100_000]);
        prev[2] = prev[2].cached(Ttl::OneHour);
        let prev = Request::new(prev);
        // The next request: the same three blocks, the answer and tool results since, the
        // instruction; markers on the old tail and on the new tail.
        let mut next = prev.blocks.clone();
        next.push(Block::new(2_000, 10).cached(Ttl::OneHour));
        next.push(Block::new(500, 11));
        let next = Request::new(next);
        let u = bill(Provider::Anthropic, None, Some(&prev), &next).unwrap();
        assert_eq!(
            u,
            CacheUsage {
                fresh: 500,
                read: 153_000,
                write_5m: 0,
                write_1h: 2_000
            }
        );
        assert_eq!(u.total(), next.tokens());
        // Without the previous request nothing is read and all up to the last marker is written.
        let cold = bill(Provider::Anthropic, None, None, &next).unwrap();
        assert_eq!(
            cold,
            CacheUsage {
                fresh: 500,
                read: 0,
                write_5m: 0,
                write_1h: 155_000
            }
        );
    }

    #[test]
    fn anthropic_needs_a_marker_within_the_lookback_and_the_minimum() {
        let mut blocks = conversation(&[2_000; 30]);
        if let Some(b) = blocks.get_mut(0) {
            *b = b.cached(Ttl::FiveMinutes);
        }
        let prev = Request::new(blocks.clone());
        let mut far = conversation(&[2_000; 30]);
        if let Some(b) = far.get_mut(25) {
            *b = b.cached(Ttl::FiveMinutes);
        }
        let far = Request::new(far);
        // The only earlier entry is 25 blocks back from the marker: not found, all written anew.
        let u = bill(Provider::Anthropic, None, Some(&prev), &far).unwrap();
        assert_eq!((u.read, u.write_5m, u.fresh), (0, 52_000, 8_000));
        // A 2,000-token prefix is below a 4,096-token minimum: neither read nor written.
        let u = bill(Provider::Anthropic, Some(4_096), Some(&prev), &prev).unwrap();
        assert_eq!(
            u,
            CacheUsage {
                fresh: 60_000,
                ..CacheUsage::default()
            }
        );
        // A different first block shares nothing.
        let mut other = blocks;
        if let Some(b) = other.get_mut(0) {
            b.key = 99;
        }
        let u = bill(
            Provider::Anthropic,
            None,
            Some(&prev),
            &Request::new(other.clone()),
        )
        .unwrap();
        assert_eq!(u.read, 0);
        // Five markers: the provider would refuse the request.
        for b in other.iter_mut().take(5) {
            *b = b.cached(Ttl::FiveMinutes);
        }
        let err = bill(Provider::Anthropic, None, None, &Request::new(other)).unwrap_err();
        assert_eq!(err.code.as_str(), "INVALID_INPUT");
    }

    #[test]
    fn openai_reads_the_shared_prefix_in_steps_of_128_from_1024() {
        let prev = Request::new(conversation(&[1_000, 1_000, 500]));
        let mut next = prev.blocks.clone();
        next.truncate(2);
        next.push(Block::new(300, 77));
        let next = Request::new(next);
        // Shared: 2,000 tokens → 1,024 + 7 × 128 = 1,920 read.
        let u = bill(Provider::OpenAi, None, Some(&prev), &next).unwrap();
        assert_eq!(
            u,
            CacheUsage {
                fresh: 380,
                read: 1_920,
                ..CacheUsage::default()
            }
        );
        // Under 1,024 shared tokens nothing is read.
        let short = Request::new(conversation(&[1_000, 9]));
        let u = bill(
            Provider::OpenAi,
            None,
            Some(&prev),
            &Request::new(vec![Block::new(1_000, 1), Block::new(5, 50)]),
        )
        .unwrap();
        assert_eq!(u.read, 0);
        assert_eq!(bill(Provider::OpenAi, None, None, &short).unwrap().read, 0);
    }

    #[test]
    fn gemini_reads_the_whole_shared_prefix_past_its_minimum() {
        let prev = Request::new(conversation(&[1_500, 1_000]));
        let next = Request::new(vec![
            Block::new(1_500, 1),
            Block::new(1_000, 2),
            Block::new(40, 3),
        ]);
        let u = bill(Provider::Gemini, None, Some(&prev), &next).unwrap();
        assert_eq!(
            u,
            CacheUsage {
                fresh: 40,
                read: 2_500,
                ..CacheUsage::default()
            }
        );
        let u = bill(Provider::Gemini, Some(4_096), Some(&prev), &next).unwrap();
        assert_eq!(u.read, 0);
        let u = bill(Provider::None, None, Some(&prev), &next).unwrap();
        assert_eq!(u.fresh, 2_540);
    }
}
