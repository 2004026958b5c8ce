//! Model-aware estimates: per-kind factors that turn the base count (the content-aware heuristic,
//! which approximates `o200k_base`, or an exact encoding) into an estimate of a provider's own
//! count.
//!
//! - OpenAI: the exact encoding of the model when it is loaded, else the heuristic; factors of 1.
//! - Anthropic: the heuristic times factors fitted on recorded usage (Claude Code and pi sessions
//!   of `tests/fixtures`, see `docs/tokens.md` and `tests/calibration_replay.rs`).
//! - Google: the heuristic times factors fitted on the Gemma 3 tokenizer's count of the same
//!   sessions (Gemma 3 uses the tokenizer of Gemini 2.0; see `docs/tokens.md`,
//!   `scripts/fit-google.mjs` and `tests/google_profile.rs`).

use super::{Kind, KindTokens};

/// A multiplier per kind of content. Images are never scaled: the image rule is already the
/// provider's own. Every factor is finite and positive.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Factors {
    /// Text of user and assistant messages.
    pub text: f64,
    /// Tool calls.
    pub tool_calls: f64,
    /// Tool results.
    pub tool_results: f64,
    /// Reasoning.
    pub reasoning: f64,
    /// System text.
    pub system: f64,
}

impl Factors {
    /// Every factor 1: the base count unchanged.
    pub const ONE: Factors = Factors::uniform(1.0);

    /// The same factor for every kind.
    pub const fn uniform(f: f64) -> Factors {
        Factors {
            text: f,
            tool_calls: f,
            tool_results: f,
            reasoning: f,
            system: f,
        }
    }

    /// The factor of `kind` (1 for images).
    pub fn get(&self, kind: Kind) -> f64 {
        match kind {
            Kind::Text => self.text,
            Kind::ToolCalls => self.tool_calls,
            Kind::ToolResults => self.tool_results,
            Kind::Reasoning => self.reasoning,
            Kind::System => self.system,
            Kind::Images => 1.0,
        }
    }

    /// Sets the factor of `kind` (images stay at 1).
    pub fn set(&mut self, kind: Kind, value: f64) {
        match kind {
            Kind::Text => self.text = value,
            Kind::ToolCalls => self.tool_calls = value,
            Kind::ToolResults => self.tool_results = value,
            Kind::Reasoning => self.reasoning = value,
            Kind::System => self.system = value,
            Kind::Images => {}
        }
    }

    /// `tokens` with each kind multiplied by its factor, rounded to the nearest token.
    pub fn apply(&self, tokens: &KindTokens) -> KindTokens {
        let mut out = KindTokens::default();
        for kind in Kind::ALL {
            out.add_kind(kind, scale(tokens.get(kind), self.get(kind)));
        }
        out
    }

    /// The sum over kinds of `tokens` times the factor, unrounded.
    pub fn weighted(&self, tokens: &KindTokens) -> f64 {
        Kind::ALL
            .iter()
            .map(|&k| tokens.get(k) as f64 * self.get(k))
            .sum()
    }

    /// The bits of every factor, for cache keys.
    pub fn bits(&self) -> [u64; 5] {
        [
            self.text.to_bits(),
            self.tool_calls.to_bits(),
            self.tool_results.to_bits(),
            self.reasoning.to_bits(),
            self.system.to_bits(),
        ]
    }
}

/// `n × f` rounded, saturating (a non-finite or negative product counts 0).
pub fn scale(n: usize, f: f64) -> usize {
    if f == 1.0 {
        return n;
    }
    let x = (n as f64 * f).round();
    if x.is_finite() && x > 0.0 {
        // Float-to-int casts saturate.
        x as usize
    } else {
        0
    }
}

/// Whose count an estimate aims at.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Profile {
    /// The provider's name as reported (`"o200k"`, `"openai"`, `"anthropic"`, `"google"`).
    pub name: &'static str,
    /// What the base count is multiplied by.
    pub factors: Factors,
    /// The expected relative error of one turn's estimate before any self-calibration: the
    /// typical |estimate / provider − 1| measured per turn (see `docs/tokens.md`).
    pub error: f64,
}

impl Profile {
    /// No model given: the base count (the heuristic approximates `o200k_base`).
    pub const BASE: Profile = Profile {
        name: "o200k",
        factors: Factors::ONE,
        error: 0.30,
    };

    /// OpenAI: the exact encoding of the model (the heuristic until it is loaded).
    pub const OPENAI: Profile = Profile {
        name: "openai",
        factors: Factors::ONE,
        error: 0.10,
    };

    /// Anthropic: the heuristic scaled by factors fitted on the recorded usage of Claude Code and
    /// pi sessions (`tests/calibration_replay.rs` checks them against the fit on held-out data).
    pub const ANTHROPIC: Profile = Profile {
        name: "anthropic",
        factors: Factors {
            text: ANTHROPIC_TEXT,
            tool_calls: ANTHROPIC_TOOL_CALLS,
            tool_results: ANTHROPIC_TOOL_RESULTS,
            reasoning: ANTHROPIC_REASONING,
            system: ANTHROPIC_TEXT,
        },
        error: 0.18,
    };

    /// Google: the heuristic scaled by factors fitted on the Gemma 3 tokenizer's count of the
    /// content of the Claude Code and pi sessions of `tests/fixtures` (Gemma 3 uses the
    /// SentencePiece tokenizer of Gemini 2.0, which Google's SDK also counts Gemini 2.5 with).
    /// The expected error is measured on the held-out sessions, turn by turn (an assistant message
    /// and what follows it up to the next one): the mean of |ln(Gemma 3 ÷ estimate)| of each
    /// turn's content, 0.070. That does not cover Gemini's own message framing, which the
    /// tokenizer cannot show, so the profile claims 0.10 like OpenAI's (exact on content, framing
    /// unmeasured); self-calibration corrects the framing from usage. `tests/google_profile.rs` checks the
    /// factors and the error against `tests/data/gemma3-kind-counts.json`.
    pub const GOOGLE: Profile = Profile {
        name: "google",
        factors: Factors {
            text: GOOGLE_TEXT,
            tool_calls: GOOGLE_TOOL_CALLS,
            tool_results: GOOGLE_TOOL_RESULTS,
            reasoning: GOOGLE_REASONING,
            system: GOOGLE_TEXT,
        },
        error: 0.10,
    };
}

/// Fitted factor for Anthropic text (user and assistant prose, system text).
pub const ANTHROPIC_TEXT: f64 = 1.12;
/// Fitted factor for Anthropic tool calls (JSON input).
pub const ANTHROPIC_TOOL_CALLS: f64 = 1.33;
/// Fitted factor for Anthropic tool results.
pub const ANTHROPIC_TOOL_RESULTS: f64 = 1.29;
/// Fitted factor for Anthropic reasoning.
pub const ANTHROPIC_REASONING: f64 = 1.33;

/// Fitted factor for Google text (user and assistant prose, system text).
pub const GOOGLE_TEXT: f64 = 1.02;
/// Fitted factor for Google tool calls (name and JSON input).
pub const GOOGLE_TOOL_CALLS: f64 = 1.14;
/// Fitted factor for Google tool results.
pub const GOOGLE_TOOL_RESULTS: f64 = 1.14;
/// Fitted factor for Google reasoning.
pub const GOOGLE_REASONING: f64 = 0.99;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apply_scales_every_kind_but_images() {
        let f = Factors {
            text: 2.0,
            tool_calls: 0.5,
            tool_results: 1.5,
            reasoning: 1.0,
            system: 3.0,
        };
        let k = KindTokens {
            text: 10,
            tool_calls: 3,
            tool_results: 4,
            images: 7,
            reasoning: 5,
            system: 1,
        };
        let s = f.apply(&k);
        assert_eq!(
            (
                s.text,
                s.tool_calls,
                s.tool_results,
                s.images,
                s.reasoning,
                s.system
            ),
            (20, 2, 6, 7, 5, 3)
        );
        assert!((f.weighted(&k) - 42.5).abs() < 1e-9);
        assert_eq!(scale(usize::MAX, 2.0), usize::MAX);
        assert_eq!(scale(5, f64::NAN), 0);
        assert_eq!(Factors::ONE.apply(&k), k);
    }
}
