//! The live context of a log: what the model is sent now.
//!
//! The loader rule (seed 000): find the latest compaction; the context is its system messages, its
//! summary, its pinned messages, the messages it kept from before its tail (Codex's recent user
//! messages), then every message entry from its first kept entry on (those appended while it was
//! being written included), skipping the entries it lists as system, pinned or kept. Without a compaction it is every message. Hidden parts (prune entries) are replaced by
//! their replacement everywhere.
//!
//! The view keeps running totals (tokens, turns, non-system messages), so that appending a message
//! and checking the trigger cost O(1), not O(history). Its calibrated count and learning from usage
//! are the core's one rule (`core::count`), shared with the `Compactor`.

use std::collections::HashMap;

use crate::core::count::{learn_growth, Count};
use crate::core::estimate::{Estimator, KindTokens, Learned, Usage};
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
    /// Its estimated tokens by kind (`tokens` is their total).
    pub kinds: KindTokens,
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
    /// The same by kind.
    pub after_kinds: KindTokens,
    /// The prompt the usage reports (`input + cacheRead + cacheWrite`): what the provider counted
    /// before the anchor.
    pub prompt: usize,
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
    /// Estimated tokens of all items by kind.
    pub by_kind: KindTokens,
    /// What self-calibration has learned (kept across compactions).
    pub learned: Learned,
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

    /// The calibrated count ([`Count`], the one rule both handles use): the usage up to the
    /// anchor plus the estimates after it, or the estimates alone; estimates are corrected by what
    /// self-calibration learned.
    pub fn count(&self) -> Count {
        match &self.anchor {
            Some(a) => Count::new(&self.learned, Some(a.measured), &a.after_kinds),
            None => Count::new(&self.learned, None, &self.by_kind),
        }
    }

    /// The calibrated total ([`View::count`]).
    pub fn total(&self) -> usize {
        self.count().tokens()
    }

    /// The part of [`View::total`] that is estimated rather than reported by the provider.
    pub fn estimated(&self) -> usize {
        self.count().estimated
    }

    /// Adds a message at the end.
    pub fn push(
        &mut self,
        entry: usize,
        altered: Option<Message>,
        message: &Message,
        kinds: KindTokens,
    ) {
        let tokens = kinds.total();
        self.tokens = self.tokens.saturating_add(tokens);
        self.by_kind += kinds;
        if message.is_user_turn_start() {
            self.turns += 1;
        }
        if message.role != Role::System {
            self.non_system += 1;
        }
        if let Some(a) = &mut self.anchor {
            a.after = a.after.saturating_add(tokens);
            a.after_kinds += kinds;
        }
        self.items.push(Item {
            entry,
            altered,
            tokens,
            kinds,
        });
    }

    /// Attributes `usage` to the context up to its latest assistant message. With `learn`, the
    /// growth of the prompt since the previous usage (same compaction, an earlier anchor) is set
    /// against the estimate of the items added meanwhile, and self-calibration learns from it.
    /// Returns true when it learned.
    pub fn record_usage(&mut self, log: &[Entry], usage: &Usage, learn: bool) -> bool {
        let measured = usize::try_from(usage.total()).unwrap_or(usize::MAX);
        let prompt = usage.prompt();
        let anchor = (0..self.items.len()).rev().find(|&i| {
            self.message(log, i)
                .is_some_and(|m| m.role == Role::Assistant)
        });
        let mut learned = false;
        if let (true, Some(prev), Some(at)) = (learn, self.anchor, anchor) {
            if at > prev.item {
                let added: KindTokens = self
                    .items
                    .iter()
                    .take(at)
                    .skip(prev.item)
                    .map(|it| it.kinds)
                    .sum();
                learned = learn_growth(&mut self.learned, prev.prompt, prompt, &added);
            }
        }
        self.anchor = anchor.map(|item| {
            let after_kinds: KindTokens = self.items.iter().skip(item + 1).map(|it| it.kinds).sum();
            Anchor {
                item,
                measured,
                after: after_kinds.total(),
                after_kinds,
                prompt,
            }
        });
        learned
    }

    /// Builds the view of `log` (the loader rule of the module documentation).
    pub fn build(
        log: &[Entry],
        ids: &HashMap<String, usize>,
        style: &SummaryStyle,
        estimator: &Estimator,
        prior: Learned,
    ) -> View {
        let hidden = hidden_parts(log);
        let mut view = View {
            learned: latest_calibration(log).unwrap_or(prior),
            ..View::default()
        };
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
                let kept = listed(&comp.kept_entry_ids);
                for &i in &systems {
                    view.push_entry(log, i, &hidden, estimator);
                }
                for message in summary_messages(comp, style) {
                    let kinds = estimator.estimate_message(&message);
                    view.push(c, Some(message.clone()), &message, kinds);
                }
                for &i in pinned.iter().chain(&kept) {
                    view.push_entry(log, i, &hidden, estimator);
                }
                skip.extend(systems);
                skip.extend(pinned);
                skip.extend(kept);
                comp.first_kept_entry_id
                    .as_ref()
                    .and_then(|id| ids.get(id).copied())
                    .unwrap_or(c + 1)
            }
        };
        let mut usage_at: Option<(usize, Usage)> = None;
        for (i, entry) in log.iter().enumerate().skip(start) {
            match &entry.kind {
                EntryKind::Message(_) if !skip.contains(&i) => {
                    view.push_entry(log, i, &hidden, estimator);
                }
                EntryKind::Usage(u, _) if Some(i) > view.compaction => {
                    usage_at = Some((view.items.len(), *u));
                }
                _ => {}
            }
        }
        if let Some((len, usage)) = usage_at {
            // The usage belongs to the latest assistant message before it was recorded.
            let items_after: Vec<Item> = view.items.split_off(len);
            view.record_usage(log, &usage, false);
            for item in items_after {
                if let Some(a) = &mut view.anchor {
                    a.after = a.after.saturating_add(item.tokens);
                    a.after_kinds += item.kinds;
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
        let kinds = estimator.estimate_message(shown);
        let shown = shown.clone();
        self.push(i, altered, &shown, kinds);
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

/// The calibration stored with the latest usage entry that has one (self-calibration persists
/// in the log; logs written before it have none).
fn latest_calibration(log: &[Entry]) -> Option<Learned> {
    log.iter().rev().find_map(|e| match &e.kind {
        EntryKind::Usage(_, learned) => *learned,
        _ => None,
    })
}

/// Every hidden part of the log, by message entry id.
/// The hidden parts of the log's prune entries, by message entry id.
pub fn hidden_parts(log: &[Entry]) -> HashMap<&str, Vec<&Hidden>> {
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
