//! The live context of a log: what the model is sent now.
//!
//! The loader rule (seed 000): find the latest compaction; the context is its system messages, its
//! summary, its pinned messages, then every message entry from its first kept entry on (those
//! appended while it was being written included), skipping the entries it lists as system or
//! pinned. Without a compaction it is every message. Hidden parts (prune entries) are replaced by
//! their replacement everywhere.
//!
//! The view keeps running totals (tokens, turns, non-system messages), so that appending a message
//! and checking the trigger cost O(1), not O(history).

use std::collections::HashMap;

use crate::core::estimate::Estimator;
use crate::core::message::{Message, Part, Role};
use crate::core::prune::{self, PruneKind};
use crate::core::render::summary_block;
use crate::core::settings::SummaryStyle;

use super::entry::{Compaction, Entry, EntryKind, Hidden, Replacement};

/// One message of the context.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    /// Index into the log: the message entry, or the compaction entry for a summary message.
    pub entry: usize,
    /// The message as sent when it differs from its entry's message (a summary, hidden parts).
    pub altered: Option<Message>,
    /// Its estimated tokens.
    pub tokens: usize,
}

impl Item {
    /// True for a message made from a compaction entry (the summary or its question).
    pub fn is_summary(&self) -> bool {
        self.altered.as_ref().is_some_and(|m| m.summary)
    }
}

/// Calibration from the provider's usage: everything up to item `item` counts `measured`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Anchor {
    /// The assistant message the usage belongs to.
    pub item: usize,
    /// The provider's count up to and including it.
    pub measured: usize,
    /// Estimated tokens of the items after it.
    pub after: usize,
}

/// The live context with its running totals.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct View {
    /// The messages, in order.
    pub items: Vec<Item>,
    /// Estimated tokens of all items.
    pub tokens: usize,
    /// User turns.
    pub turns: usize,
    /// Non-system messages.
    pub non_system: usize,
    /// The log index of the latest compaction.
    pub compaction: Option<usize>,
    /// Calibration from the latest usage recorded since the latest compaction.
    pub anchor: Option<Anchor>,
}

/// The message of a log entry, if it is a message entry.
fn message_at(log: &[Entry], i: usize) -> Option<&Message> {
    log.get(i).and_then(Entry::message)
}

impl View {
    /// The message of item `i` as sent.
    pub fn message<'a>(&'a self, log: &'a [Entry], i: usize) -> Option<&'a Message> {
        let item = self.items.get(i)?;
        item.altered
            .as_ref()
            .or_else(|| message_at(log, item.entry))
    }

    /// The calibrated total: the usage up to the anchor plus the estimates after it, or the sum
    /// of the estimates.
    pub fn total(&self) -> usize {
        match &self.anchor {
            Some(a) => a.measured.saturating_add(a.after),
            None => self.tokens,
        }
    }

    /// Adds a message at the end.
    pub fn push(
        &mut self,
        entry: usize,
        altered: Option<Message>,
        message: &Message,
        tokens: usize,
    ) {
        self.tokens = self.tokens.saturating_add(tokens);
        if message.is_user_turn_start() {
            self.turns += 1;
        }
        if message.role != Role::System {
            self.non_system += 1;
        }
        if let Some(a) = &mut self.anchor {
            a.after = a.after.saturating_add(tokens);
        }
        self.items.push(Item {
            entry,
            altered,
            tokens,
        });
    }

    /// Attributes `measured` tokens to the context up to its latest assistant message.
    pub fn record_usage(&mut self, log: &[Entry], measured: usize) {
        let anchor = (0..self.items.len()).rev().find(|&i| {
            self.message(log, i)
                .is_some_and(|m| m.role == Role::Assistant)
        });
        self.anchor = anchor.map(|item| Anchor {
            item,
            measured,
            after: self
                .items
                .iter()
                .skip(item + 1)
                .fold(0usize, |acc, it| acc.saturating_add(it.tokens)),
        });
    }

    /// Builds the view of `log` (the loader rule of the module documentation).
    pub fn build(
        log: &[Entry],
        ids: &HashMap<String, usize>,
        style: &SummaryStyle,
        estimator: &Estimator,
    ) -> View {
        let hidden = hidden_parts(log);
        let mut view = View::default();
        let latest = log
            .iter()
            .rposition(|e| matches!(e.kind, EntryKind::Compaction(_)));
        let mut skip: Vec<usize> = Vec::new();
        let start = match latest.and_then(|c| match &log.get(c)?.kind {
            EntryKind::Compaction(comp) => Some((c, comp.as_ref())),
            _ => None,
        }) {
            None => 0,
            Some((c, comp)) => {
                view.compaction = Some(c);
                let listed = |list: &[String]| -> Vec<usize> {
                    list.iter().filter_map(|id| ids.get(id).copied()).collect()
                };
                let systems = listed(&comp.system_entry_ids);
                let pinned = listed(&comp.pinned_entry_ids);
                for &i in &systems {
                    view.push_entry(log, i, &hidden, estimator);
                }
                for message in summary_messages(comp, style) {
                    let tokens = estimator.estimate_message(&message).total();
                    view.push(c, Some(message.clone()), &message, tokens);
                }
                for &i in &pinned {
                    view.push_entry(log, i, &hidden, estimator);
                }
                skip.extend(systems);
                skip.extend(pinned);
                comp.first_kept_entry_id
                    .as_ref()
                    .and_then(|id| ids.get(id).copied())
                    .unwrap_or(c + 1)
            }
        };
        let mut usage_at: Option<(usize, usize)> = None;
        for (i, entry) in log.iter().enumerate().skip(start) {
            match &entry.kind {
                EntryKind::Message(_) if !skip.contains(&i) => {
                    view.push_entry(log, i, &hidden, estimator);
                }
                EntryKind::Usage(u) if Some(i) > view.compaction => {
                    let measured = usize::try_from(u.total()).unwrap_or(usize::MAX);
                    usage_at = Some((view.items.len(), measured));
                }
                _ => {}
            }
        }
        if let Some((len, measured)) = usage_at {
            // The usage belongs to the latest assistant message before it was recorded.
            let items_after: Vec<Item> = view.items.split_off(len);
            view.record_usage(log, measured);
            for item in items_after {
                if let Some(a) = &mut view.anchor {
                    a.after = a.after.saturating_add(item.tokens);
                }
                view.items.push(item);
            }
        }
        view
    }

    fn push_entry(
        &mut self,
        log: &[Entry],
        i: usize,
        hidden: &HashMap<&str, Vec<&Hidden>>,
        estimator: &Estimator,
    ) {
        let Some(entry) = log.get(i) else { return };
        let Some(message) = entry.message() else {
            return;
        };
        let altered = hidden
            .get(entry.id.as_str())
            .map(|parts| with_hidden(message, parts));
        let shown = altered.as_ref().unwrap_or(message);
        let tokens = estimator.estimate_message(shown).total();
        let shown = shown.clone();
        self.push(i, altered, &shown, tokens);
    }
}

/// The summary block of a compaction (none when it has no summary).
/// The workstream state, when the compaction keeps one, follows the summary text.
pub fn summary_messages(comp: &Compaction, style: &SummaryStyle) -> Vec<Message> {
    let state = comp.state.as_ref().and_then(super::workstream::render);
    match (&comp.summary, state) {
        (Some(text), Some(state)) => {
            summary_block(&format!("{text}\n\n{state}"), style, comp.round)
        }
        (Some(text), None) => summary_block(text, style, comp.round),
        (None, Some(state)) => summary_block(&state, style, comp.round),
        (None, None) => Vec::new(),
    }
}

/// Every hidden part of the log, by message entry id.
fn hidden_parts(log: &[Entry]) -> HashMap<&str, Vec<&Hidden>> {
    let mut map: HashMap<&str, Vec<&Hidden>> = HashMap::new();
    for entry in log {
        if let EntryKind::Prune(list) = &entry.kind {
            for h in list {
                map.entry(h.entry_id.as_str()).or_default().push(h);
            }
        }
    }
    map
}

/// `message` with `parts` replaced.
pub fn with_hidden(message: &Message, parts: &[&Hidden]) -> Message {
    let mut out = message.clone();
    for h in parts {
        if let Some(part) = out.parts.get_mut(h.part) {
            let kind = match &h.replacement {
                Replacement::Output(text) => PruneKind::ReplaceOutput {
                    placeholder: text.clone(),
                },
                Replacement::Input(value) => PruneKind::ClearInput {
                    placeholder: value.clone(),
                },
            };
            if let Some(new) = prune::replaced(part, &kind) {
                *part = new;
            }
        }
    }
    out
}

/// The replacement a part gets when it becomes `new` (a pruned or truncated part).
pub fn replacement_of(new: &Part) -> Option<Replacement> {
    match new {
        Part::ToolResult { output, .. } => {
            let texts: Vec<&str> = output
                .iter()
                .filter_map(|p| match p {
                    Part::Text { text } => Some(text.as_str()),
                    _ => None,
                })
                .collect();
            Some(Replacement::Output(texts.join("\n")))
        }
        Part::ToolCall { input, .. } => Some(Replacement::Input(input.clone())),
        _ => None,
    }
}
