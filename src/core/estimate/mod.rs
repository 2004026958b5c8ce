//! Token estimation of messages: what each message costs, split by kind of content.
//!
//! - [`Counter`] counts text (the content-aware heuristic or an exact tiktoken encoding).
//! - [`ImageRule`] prices images by the provider's own per-pixel or per-tile rule, never by the
//!   length of their base64 data.
//! - [`Estimator`] prices parts and messages ([`Estimator::part_tokens`],
//!   [`Estimator::estimate_message`], [`Estimator::estimate_all`]).
//! - [`EstimateCache`] remembers per-message results so that re-estimating a growing
//!   conversation does not re-tokenize what it already saw (worth it in exact mode).
//! - [`Profile`] aims the estimate at a provider's own count (per-kind [`Factors`]).
//! - [`Learned`] corrects the estimate from usage as it comes (self-calibration).
//! - [`calibrate`] replaces the estimate of everything up to the last assistant message by the
//!   provider's reported usage.

mod cache;
mod calibrate;
mod counter;
mod estimator;
mod image;
mod learn;
mod profile;

pub use cache::{message_key, EstimateCache, MessageKey, DEFAULT_CACHE_CAPACITY};
pub use calibrate::{calibrate, calibrated_total, Calibration, Usage};
pub use counter::Counter;
pub use estimator::Estimator;
pub use image::ImageRule;
pub use learn::{Learned, MAX_FACTOR, MIN_FACTOR};
pub use profile::{scale, Factors, Profile};

use std::ops::{Add, AddAssign};

/// The kinds of content tokens are reported by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Text of user and assistant messages (and summaries that are not system messages).
    Text,
    /// Tool calls: name, id and JSON input.
    ToolCalls,
    /// Tool results: id and output text (images inside results count as [`Kind::Images`]).
    ToolResults,
    /// Images and files.
    Images,
    /// Model reasoning (thinking), redacted or not.
    Reasoning,
    /// Text of system messages.
    System,
}

impl Kind {
    /// Every kind, in the order ties are broken when choosing a message's main kind.
    pub const ALL: [Kind; 6] = [
        Kind::System,
        Kind::Text,
        Kind::ToolResults,
        Kind::ToolCalls,
        Kind::Reasoning,
        Kind::Images,
    ];
}

/// Tokens split by kind of content. All arithmetic saturates (never overflows).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct KindTokens {
    pub text: usize,
    pub tool_calls: usize,
    pub tool_results: usize,
    pub images: usize,
    pub reasoning: usize,
    pub system: usize,
}

impl KindTokens {
    /// The sum over all kinds (saturating).
    pub fn total(&self) -> usize {
        Kind::ALL
            .iter()
            .fold(0usize, |acc, &k| acc.saturating_add(self.get(k)))
    }

    /// The tokens of one kind.
    pub fn get(&self, kind: Kind) -> usize {
        match kind {
            Kind::Text => self.text,
            Kind::ToolCalls => self.tool_calls,
            Kind::ToolResults => self.tool_results,
            Kind::Images => self.images,
            Kind::Reasoning => self.reasoning,
            Kind::System => self.system,
        }
    }

    /// Adds `tokens` to one kind (saturating).
    pub fn add_kind(&mut self, kind: Kind, tokens: usize) {
        let slot = match kind {
            Kind::Text => &mut self.text,
            Kind::ToolCalls => &mut self.tool_calls,
            Kind::ToolResults => &mut self.tool_results,
            Kind::Images => &mut self.images,
            Kind::Reasoning => &mut self.reasoning,
            Kind::System => &mut self.system,
        };
        *slot = slot.saturating_add(tokens);
    }

    /// Only `tokens` of `kind`.
    pub fn of(kind: Kind, tokens: usize) -> KindTokens {
        let mut k = KindTokens::default();
        k.add_kind(kind, tokens);
        k
    }

    /// The kind holding the most tokens; ties go to the earlier kind of [`Kind::ALL`]. `None`
    /// when every kind is zero.
    pub fn dominant(&self) -> Option<Kind> {
        let mut best: Option<(Kind, usize)> = None;
        for kind in Kind::ALL {
            let n = self.get(kind);
            if n > 0 && best.is_none_or(|(_, b)| n > b) {
                best = Some((kind, n));
            }
        }
        best.map(|(k, _)| k)
    }
}

impl AddAssign for KindTokens {
    fn add_assign(&mut self, rhs: KindTokens) {
        for kind in Kind::ALL {
            self.add_kind(kind, rhs.get(kind));
        }
    }
}

impl Add for KindTokens {
    type Output = KindTokens;
    fn add(mut self, rhs: KindTokens) -> KindTokens {
        self += rhs;
        self
    }
}

impl std::iter::Sum for KindTokens {
    fn sum<I: Iterator<Item = KindTokens>>(iter: I) -> KindTokens {
        iter.fold(KindTokens::default(), Add::add)
    }
}

/// The estimate of a message array. Guarantees: `per_message.len() == per_message_kinds.len()
/// == messages.len()`, `per_message[i] == per_message_kinds[i].total()`, `by_kind` is the sum
/// of `per_message_kinds` and `total == by_kind.total() == per_message.iter().sum()` (all sums
/// saturating).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Estimate {
    /// Tokens of each message, overhead included.
    pub per_message: Vec<usize>,
    /// Tokens of each message by kind.
    pub per_message_kinds: Vec<KindTokens>,
    /// Tokens of all messages by kind.
    pub by_kind: KindTokens,
    /// Tokens of all messages.
    pub total: usize,
}

impl Estimate {
    /// Builds an estimate from per-message kinds, keeping the guarantees above.
    pub fn from_kinds(per_message_kinds: Vec<KindTokens>) -> Estimate {
        let per_message: Vec<usize> = per_message_kinds.iter().map(KindTokens::total).collect();
        let by_kind: KindTokens = per_message_kinds.iter().copied().sum();
        let total = by_kind.total();
        Estimate {
            per_message,
            per_message_kinds,
            by_kind,
            total,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_tokens_add_and_total() {
        let a = KindTokens {
            text: 1,
            tool_calls: 2,
            tool_results: 3,
            images: 4,
            reasoning: 5,
            system: 6,
        };
        assert_eq!(a.total(), 21);
        let b = a + a;
        assert_eq!(b.total(), 42);
        assert_eq!(b.images, 8);
        let mut c = KindTokens::of(Kind::Text, usize::MAX);
        c += KindTokens::of(Kind::Text, 5);
        assert_eq!(c.text, usize::MAX);
        c += KindTokens::of(Kind::System, 5);
        assert_eq!(c.total(), usize::MAX);
    }

    #[test]
    fn dominant_kind_and_ties() {
        assert_eq!(KindTokens::default().dominant(), None);
        let mut k = KindTokens::of(Kind::Images, 10);
        k.add_kind(Kind::Text, 10);
        assert_eq!(k.dominant(), Some(Kind::Text));
        k.add_kind(Kind::ToolResults, 11);
        assert_eq!(k.dominant(), Some(Kind::ToolResults));
    }

    #[test]
    fn estimate_from_kinds_sums() {
        let e = Estimate::from_kinds(vec![
            KindTokens::of(Kind::Text, 3),
            KindTokens::of(Kind::ToolCalls, 4) + KindTokens::of(Kind::Images, 1),
        ]);
        assert_eq!(e.per_message, vec![3, 5]);
        assert_eq!(e.total, 8);
        assert_eq!(e.by_kind.tool_calls, 4);
    }
}
