//! Pruners combined: superseded reads first (they lose nothing the model still needs), then one
//! style on what is left, never touching the same part twice.

use super::{
    anthropic, apply, opencode, supersede, ttl, Claimed, ClearToolUsesOptions, Cost,
    OpenCodeOptions, PruneAction, TtlOptions,
};
use crate::core::message::Message;

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
    let mut actions = if supersede {
        supersede::plan(messages, cost, &Claimed::new())
    } else {
        Vec::new()
    };
    let claimed: Claimed = actions.iter().map(|a| (a.message, a.part)).collect();
    let current = apply(messages, &actions);
    let more = match style {
        Style::None => Vec::new(),
        Style::OpenCode(o) => opencode::plan(&current, o, cost, &claimed),
        Style::Anthropic(o) => anthropic::plan(&current, o, cost, &claimed),
        Style::Ttl(o) => ttl::plan(&current, o, cost, &claimed),
    };
    actions.extend(
        more.into_iter()
            .filter(|a| !claimed.contains(&(a.message, a.part))),
    );
    actions
}
