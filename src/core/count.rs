//! The calibrated token count of a context, computed here once for both handles (the `Session`'s
//! live view, `core::session::view`, and the `Compactor`'s state, `core::compactor`):
//! - the count: the provider's reported usage for everything up to the latest assistant message
//!   (when there is one) plus the estimate of the messages after it, the estimate corrected by
//!   what self-calibration has learned ([`Count::new`]);
//! - its expected error, and the budget with `safetyMargin: "auto"` ([`Count::budget`]);
//! - learning from usage: the growth of the prompt between two usages set against the estimate of
//!   the messages added meanwhile ([`learn_growth`]).

use crate::core::estimate::{scale, KindTokens, Learned, Usage};
use crate::core::trigger::Budget;

/// A calibrated count: what the provider reported plus what is estimated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Count {
    /// Tokens the provider reported (`usage.total()` up to and including the anchor); 0 without a
    /// usage anchored in the context.
    pub measured: usize,
    /// Tokens estimated (the messages after the anchor, or every message), corrected by
    /// self-calibration.
    pub estimated: usize,
    /// The expected error of the count, in tokens: the calibration's expected relative error
    /// times the estimated part (the provider's part counts exactly).
    pub error: usize,
}

impl Count {
    /// The count of a context whose estimated part is `estimated` by kind (uncorrected), and
    /// whose part up to the anchor the provider counted as `measured` (`None`: no anchor).
    pub fn new(learned: &Learned, measured: Option<usize>, estimated: &KindTokens) -> Count {
        let estimated = learned.corrected(estimated);
        Count {
            measured: measured.unwrap_or(0),
            estimated,
            error: scale(estimated, learned.error()),
        }
    }

    /// [`Count::new`] with the provider's `usage` anchored (`None`: no usage or no assistant
    /// message to anchor it to).
    pub fn anchored(learned: &Learned, usage: Option<&Usage>, estimated: &KindTokens) -> Count {
        let measured = usage.map(|u| usize::try_from(u.total()).unwrap_or(usize::MAX));
        Count::new(learned, measured, estimated)
    }

    /// The whole count (saturating).
    pub fn tokens(&self) -> usize {
        self.measured.saturating_add(self.estimated)
    }

    /// The budget the trigger is evaluated against: `base` itself, or with `safetyMargin:
    /// "auto"` (`auto_margin`) the margin is the count's expected error
    /// ([`Budget::with_auto_margin`]).
    pub fn budget(&self, base: Budget, auto_margin: bool) -> Budget {
        if auto_margin {
            base.with_auto_margin(self.error)
        } else {
            base
        }
    }
}

/// Learns from the growth of the prompt between two usages: the provider reported a prompt of
/// `previous` tokens, then of `prompt` tokens, and the messages added between the two responses
/// (from the earlier response up to the later one) are estimated as `added`. A prompt that did
/// not grow teaches nothing. Returns true when `learned` learned.
pub fn learn_growth(
    learned: &mut Learned,
    previous: usize,
    prompt: usize,
    added: &KindTokens,
) -> bool {
    prompt > previous && learned.observe(added, (prompt - previous) as u64)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::core::estimate::Kind;

    #[test]
    fn measured_plus_corrected_estimate_with_its_error() {
        let mut learned = Learned::new(0.2);
        let after = KindTokens::of(Kind::Text, 1000);
        let c = Count::new(&learned, Some(5000), &after);
        assert_eq!((c.measured, c.estimated, c.tokens()), (5000, 1000, 6000));
        assert_eq!(c.error, 200);
        assert!(learn_growth(&mut learned, 0, 1500, &after));
        let c = Count::new(&learned, None, &after);
        assert!(c.estimated > 1000 && c.measured == 0);
        assert!(!learn_growth(&mut learned, 1500, 1500, &after), "no growth");
    }

    #[test]
    fn auto_margin_is_the_error() {
        let base = Budget {
            context_window: 10_000,
            reserve_tokens: 2000,
            safety_margin: 10,
            system_tokens: 0,
        };
        let c = Count::new(&Learned::new(0.1), None, &KindTokens::of(Kind::Text, 3000));
        assert_eq!(c.budget(base, false), base);
        assert_eq!(c.budget(base, true).safety_margin, 300);
    }
}
