//! Pruners combined: superseded reads first (they lose nothing the model still needs), then one
//! style on what is left, never touching the same part twice.

use super::{
    anthropic, is_protected, opencode, replaced, supersede, ttl, Claimed, ClearToolUsesOptions,
    Cost, OpenCodeOptions, PartCost, PruneAction, TtlOptions,
};
use crate::core::message::{Message, Part};

/// The pruning style run after supersession.
#[derive(Clone, Debug, PartialEq)]
pub enum Style {
    /// Supersession alone.
    None,
    /// OpenCode's prune.
    OpenCode(OpenCodeOptions),
    /// The Anthropic API's "clear tool uses".
    Anthropic(ClearToolUsesOptions),
    /// Seed 003's cache-lifetime pruning.
    Ttl(TtlOptions),
}

impl Style {
    /// The style at time `now` (milliseconds since the Unix epoch): the TTL style's present.
    pub fn at(&self, now: i64) -> Style {
        match self {
            Style::Ttl(t) => Style::Ttl(TtlOptions { now, ..t.clone() }),
            other => other.clone(),
        }
    }
}

/// Supersession (when `supersede`), then `style` on the history with those reads already
/// replaced. The style sees superseded results at their reduced cost (they still count toward
/// OpenCode's protected total and Anthropic's kept tool uses) but never acts on them, so no part
/// appears twice. Supersession actions come first, then the style's; all indexes refer to
/// `messages` (pruning never adds or removes parts), and [`apply`] takes them all at once.
pub fn order(
    messages: &[Message],
    supersede: bool,
    style: &Style,
    cost: Cost<'_>,
) -> Vec<PruneAction> {
    order_in_place(&mut messages.to_vec(), supersede, style, cost)
}

/// [`order`] without copying the history: the superseded reads are replaced in `messages` while
/// the style runs and put back before it returns, so `messages` ends exactly as it was.
pub fn order_in_place(
    messages: &mut [Message],
    supersede: bool,
    style: &Style,
    cost: Cost<'_>,
) -> Vec<PruneAction> {
    let mut actions = if supersede {
        supersede::plan(messages, cost, &Claimed::default())
    } else {
        Vec::new()
    };
    let claimed: Claimed = actions.iter().map(|a| (a.message, a.part)).collect();
    // Swap the replacements in, keeping what they replaced.
    let mut swapped: Vec<((usize, usize), Part)> = Vec::new();
    for a in &actions {
        let Some(message) = messages.get_mut(a.message) else {
            continue;
        };
        if is_protected(message) {
            continue;
        }
        if let Some(part) = message.parts.get_mut(a.part) {
            if let Some(new) = replaced(part, &a.kind) {
                swapped.push(((a.message, a.part), std::mem::replace(part, new)));
            }
        }
    }
    let overlaid = Overlaid {
        base: cost,
        claimed: &claimed,
    };
    let current: &[Message] = messages;
    let more = match style {
        Style::None => Vec::new(),
        Style::OpenCode(o) => opencode::plan(current, o, &overlaid, &claimed),
        Style::Anthropic(o) => anthropic::plan(current, o, &overlaid, &claimed),
        Style::Ttl(o) => ttl::plan(current, o, &overlaid, &claimed),
    };
    for ((m, p), old) in swapped {
        if let Some(part) = messages.get_mut(m).and_then(|x| x.parts.get_mut(p)) {
            *part = old;
        }
    }
    actions.extend(
        more.into_iter()
            .filter(|a| !claimed.contains(&(a.message, a.part))),
    );
    actions
}

/// The caller's costs, but for the parts supersession replaced: those are measured as they are
/// now (a cache of the history's costs knows them as they were).
struct Overlaid<'a> {
    base: Cost<'a>,
    claimed: &'a Claimed,
}

impl PartCost for Overlaid<'_> {
    fn at(&self, at: (usize, usize), part: &Part) -> usize {
        if self.claimed.contains(&at) {
            self.base.of(part)
        } else {
            self.base.at(at, part)
        }
    }
    fn of(&self, part: &Part) -> usize {
        self.base.of(part)
    }
}
