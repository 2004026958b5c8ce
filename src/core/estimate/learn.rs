//! Self-calibration from usage: each usage number the provider reports, set against the estimate
//! of what was added since the previous one, moves a running correction factor per kind of
//! content, so that the estimate of the messages not yet counted by the provider converges on
//! the provider's count.
//!
//! The rule, per observation (`observed` tokens the provider counted, `estimated` tokens by kind):
//! - the prediction is `Σ factor(kind) × estimated(kind)`; turns predicted below
//!   [`MIN_TOKENS`] or counted 0 teach nothing (too small to tell a ratio from framing noise);
//! - the log of `observed / prediction` is clamped to ±[`MAX_STEP`] (one outlier, such as a count
//!   after a provider-side truncation, moves a factor by at most `MAX_STEP × RATE`);
//! - the prediction moves by `weight × that log` in log space, with `weight = RATE × p / (p +
//!   HALF_WEIGHT_TOKENS)` for a prediction of `p` tokens, shared among the kinds by their share
//!   of the prediction; each factor stays in [`MIN_FACTOR`, `MAX_FACTOR`], and older
//!   observations decay geometrically;
//! - the expected error ([`Learned::error`]) follows running means of the residual
//!   `log(observed / prediction)` and of its absolute value, starting at the profile's error.

use serde_json::{json, Value};

use super::{Factors, Kind, KindTokens};

/// The smallest correction factor.
pub const MIN_FACTOR: f64 = 0.5;
/// The largest correction factor.
pub const MAX_FACTOR: f64 = 2.0;
/// The weight of a new observation (a kind that is the whole turn moves `RATE` of the way).
pub const RATE: f64 = 0.3;
/// The largest |log ratio| one observation counts with (ln 2).
pub const MAX_STEP: f64 = std::f64::consts::LN_2;
/// A turn of this many tokens moves the factors half as far as a very large one: small turns
/// carry framing the estimate does not see, large ones decide the context's size.
pub const HALF_WEIGHT_TOKENS: f64 = 8000.0;
/// Turns predicted below this many tokens teach nothing.
pub const MIN_TOKENS: f64 = 64.0;
/// The weight of a new residual in the expected error.
pub const ERROR_RATE: f64 = 0.2;
/// Samples beyond this many no longer shrink the expected error.
pub const MAX_SAMPLES: u32 = 8;
/// The largest expected relative error.
pub const MAX_ERROR: f64 = 1.0;

/// What has been learned from usage so far. Every factor stays in [`MIN_FACTOR`, `MAX_FACTOR`],
/// `spread` in [0, [`MAX_ERROR`]] and `bias` in [−`MAX_ERROR`, `MAX_ERROR`], whatever is observed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Learned {
    /// The correction the model-aware estimate is multiplied by, per kind (1: none yet).
    pub factors: Factors,
    /// Usage numbers learned from.
    pub samples: u32,
    /// The spread of one turn's estimate: a running mean of |log(provider / estimate)|.
    pub spread: f64,
    /// The bias still seen: a running mean of log(provider / estimate).
    pub bias: f64,
}

impl Learned {
    /// Nothing learned yet: factors of 1 and the profile's expected error `prior_error`.
    pub fn new(prior_error: f64) -> Learned {
        Learned {
            factors: Factors::ONE,
            samples: 0,
            spread: clamp_error(prior_error),
            bias: 0.0,
        }
    }

    /// The expected relative error of an estimate of several turns: the bias still seen plus the
    /// per-turn spread, which shrinks as turns are learned from (their errors partly cancel) down
    /// to a third of it. Before any usage it is the profile's error for one turn.
    pub fn error(&self) -> f64 {
        let n = f64::from(self.samples.min(MAX_SAMPLES));
        clamp_error(self.bias.abs() + self.spread / (1.0 + n).sqrt())
    }

    /// The corrected estimate of `estimated` tokens, unrounded.
    pub fn predict(&self, estimated: &KindTokens) -> f64 {
        self.factors.weighted(estimated)
    }

    /// The corrected estimate of `estimated` tokens, rounded (saturating).
    pub fn corrected(&self, estimated: &KindTokens) -> usize {
        let x = self.predict(estimated).round();
        // Float-to-int casts saturate; the weighted sum is never negative or NaN.
        if x > 0.0 {
            x as usize
        } else {
            0
        }
    }

    /// Learns from one turn: the provider counted `observed` tokens for what was estimated as
    /// `estimated`. Returns false when the turn teaches nothing (see the module documentation).
    pub fn observe(&mut self, estimated: &KindTokens, observed: u64) -> bool {
        let predicted = self.predict(estimated);
        if predicted.is_nan() || predicted < MIN_TOKENS || observed == 0 {
            return false;
        }
        let log = (observed as f64 / predicted).ln();
        if !log.is_finite() {
            return false;
        }
        let weight = RATE * predicted / (predicted + HALF_WEIGHT_TOKENS);
        let step = log.clamp(-MAX_STEP, MAX_STEP);
        let shares: Vec<(Kind, f64)> = Kind::ALL
            .iter()
            .filter(|&&k| k != Kind::Images)
            .map(|&k| (k, self.factors.get(k) * estimated.get(k) as f64 / predicted))
            .filter(|(_, share)| *share > 0.0)
            .collect();
        let norm: f64 = shares.iter().map(|(_, s)| s * s).sum();
        // Only images (priced by their own rule): nothing to learn.
        if norm <= 0.0 {
            return false;
        }
        for (kind, share) in shares {
            // Each kind moves by its share, normalized so that the whole prediction moves
            // `weight × step` in log space; never more than twice that for one kind.
            let move_by = (weight * step * share / norm)
                .clamp(-2.0 * weight * MAX_STEP, 2.0 * weight * MAX_STEP);
            let f = self.factors.get(kind) * move_by.exp();
            self.factors.set(kind, f.clamp(MIN_FACTOR, MAX_FACTOR));
        }
        let residual = log.clamp(-MAX_ERROR, MAX_ERROR);
        self.spread = clamp_error(self.spread + ERROR_RATE * (residual.abs() - self.spread));
        self.bias = (self.bias + ERROR_RATE * (residual - self.bias)).clamp(-MAX_ERROR, MAX_ERROR);
        self.samples = self.samples.saturating_add(1);
        true
    }

    /// As written in a session log's usage entry.
    pub fn to_json(&self) -> Value {
        let f = &self.factors;
        json!({
            "factors": {
                "text": f.text, "toolCalls": f.tool_calls, "toolResults": f.tool_results,
                "reasoning": f.reasoning, "system": f.system,
            },
            "samples": self.samples,
            "spread": self.spread,
            "bias": self.bias,
        })
    }

    /// Reads [`Learned::to_json`]; `None` when the value is not of that shape. Numbers out of
    /// bounds are brought into them, so a hand-edited log cannot break the estimate.
    pub fn from_json(value: &Value) -> Option<Learned> {
        let factors = value.get("factors")?;
        let num = |v: &Value, k: &str| v.get(k).and_then(Value::as_f64).filter(|x| x.is_finite());
        let factor = |k: &str| num(factors, k).map(|x| x.clamp(MIN_FACTOR, MAX_FACTOR));
        Some(Learned {
            factors: Factors {
                text: factor("text")?,
                tool_calls: factor("toolCalls")?,
                tool_results: factor("toolResults")?,
                reasoning: factor("reasoning")?,
                system: factor("system")?,
            },
            samples: value
                .get("samples")
                .and_then(Value::as_u64)
                .map_or(0, |n| u32::try_from(n).unwrap_or(u32::MAX)),
            spread: clamp_error(num(value, "spread")?),
            bias: num(value, "bias")?.clamp(-MAX_ERROR, MAX_ERROR),
        })
    }
}

impl Default for Learned {
    /// Nothing learned, with the expected error of the base estimate ([`super::Profile::BASE`]).
    fn default() -> Self {
        Learned::new(super::Profile::BASE.error)
    }
}

fn clamp_error(e: f64) -> f64 {
    if e.is_finite() {
        e.clamp(0.0, MAX_ERROR)
    } else {
        MAX_ERROR
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn converges_on_a_constant_ratio_per_kind() {
        let mut l = Learned::new(0.25);
        let text = KindTokens::of(Kind::Text, 5000);
        let results = KindTokens::of(Kind::ToolResults, 5000);
        for _ in 0..40 {
            assert!(l.observe(&text, 6500));
            assert!(l.observe(&results, 4000));
        }
        assert!(Learned::new(0.25).error() > 0.2);
        assert!((l.factors.text - 1.3).abs() < 0.01, "{:?}", l.factors);
        assert!(
            (l.factors.tool_results - 0.8).abs() < 0.01,
            "{:?}",
            l.factors
        );
        assert_eq!(l.factors.tool_calls, 1.0);
        assert!(l.error() < 0.05, "{l:?}");
        assert_eq!(l.samples, 80);
    }

    #[test]
    fn small_or_empty_turns_teach_nothing() {
        let mut l = Learned::new(0.1);
        assert!(!l.observe(&KindTokens::of(Kind::Text, 10), 100));
        assert!(!l.observe(&KindTokens::of(Kind::Text, 1000), 0));
        assert!(!l.observe(&KindTokens::of(Kind::Images, 10_000), 100));
        assert_eq!(l, Learned::new(0.1));
    }

    #[test]
    fn json_round_trip_and_bounds() {
        let mut l = Learned::new(0.3);
        l.observe(&KindTokens::of(Kind::ToolCalls, 500), 900);
        assert_eq!(Learned::from_json(&l.to_json()), Some(l));
        let wild = json!({"factors": {"text": 1e9, "toolCalls": -3, "toolResults": 1,
            "reasoning": 1, "system": 1}, "samples": 3, "spread": 7, "bias": -9});
        let w = Learned::from_json(&wild).unwrap();
        assert_eq!(
            (w.factors.text, w.factors.tool_calls),
            (MAX_FACTOR, MIN_FACTOR)
        );
        assert_eq!((w.spread, w.bias), (MAX_ERROR, -MAX_ERROR));
        assert_eq!(Learned::from_json(&json!({"factors": {}})), None);
    }
}
