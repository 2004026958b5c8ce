//! The state of a `Compactor`, as a core type the binding only drives: the identity-keyed store
//! of the caller's messages with their counts ([`store`]), the memo of the last automatic
//! compaction and its continuation ([`memo`]), what self-calibration has learned from the usage
//! given to `check`, the recognizer of earlier summaries, and the pipeline's breaker and count of
//! compactions. Every decision of a call is made here on stored counts: `check` (learning from
//! usage, the calibrated count, the trigger), the cheap decision of an automatic call
//! ([`CompactorState::quick`]), the plan ([`CompactorState::prepare`], floored past what the last
//! compaction returned as a Session's log floors it: [`boundary`]) and `prune`
//! ([`CompactorState::prune`]); a compaction's digest lists what a prune hid in the messages it
//! summarizes ([`hidden`]); a call's messages the store does not hold are imported by
//! [`unseen`]. [`call`] holds one call's messages and every step on them (the plan's
//! report, the pipeline's input, the commit and the memo, prune's output, trim). The calibrated
//! count and the auto margin are `core::count`'s, the rule the `Session` uses too.

pub mod boundary;
pub mod call;
pub mod hidden;
pub mod memo;
pub mod store;
pub mod unseen;

pub use boundary::Boundary;
pub use call::{Call, Continued, Pruned};
pub use memo::{Memo, MemoRecord};
pub use store::{MessageStore, Stored, StoredCosts, Totals};

use serde_json::Value;

use crate::core::count::{learn_growth, Count};
use crate::core::driver::replaced_upto;
use crate::core::error::Result;
use crate::core::estimate::{message_key, Estimator, KindTokens, Learned, MessageKey, Usage};
use crate::core::format::Format;
use crate::core::message::{Message, Part, Role};
use crate::core::options::Options;
use crate::core::pipeline::{Kind, Pipeline, Start};
use crate::core::prepare::{prepare_floored, History, Prepared};
use crate::core::prune::{self, PruneAction, PruneKind};
use crate::core::report::{check_json, estimate_json, unchanged_continued};
use crate::core::summary::Recognizer;
use crate::core::trigger::{Decision, TriggerInput};

/// How many messages before a usage's response `check` looks back for the previous response it
/// learned from.
const LEARN_WINDOW: usize = 256;

/// A `Compactor`'s state (see the module documentation). `V`: what the binding keeps of a
/// message it exported (a memo's head, a pruned message).
pub struct CompactorState<V> {
    /// The breaker and the count of compactions: the core's pipeline decides every call.
    pub pipeline: Pipeline,
    /// The last automatic compaction.
    pub memo: Option<Memo<V>>,
    /// Counts memos made here (a store records the latest when it changed).
    pub memo_epoch: u64,
    /// Every message seen, imported once.
    pub store: MessageStore<V>,
    /// The messages the last compaction returned: the next cut's floor.
    pub boundary: Boundary,
    /// What self-calibration has learned from the usage given to `check`.
    pub learned: Learned,
    /// Recognizes earlier summaries: the configured style's, every preset's, other agents'.
    pub recognizer: Recognizer,
    /// The latest usage learned from: the content key of its assistant message (found again in a
    /// later call whether the caller passes the same object or a copy) and its prompt.
    last_usage: Option<(MessageKey, usize)>,
}

/// A message of a prune: its replacements (none: unchanged), and the values of its last pruned
/// form when it was pruned the same way before.
pub type PrunedMessage<V> = (Vec<(usize, PruneKind)>, Option<Vec<V>>);

/// What `check` decided.
#[derive(Clone, Debug, PartialEq)]
pub struct Checked {
    /// The calibrated count.
    pub count: Count,
    /// The trigger's decision on it.
    pub decision: Decision,
}

/// The cheap decision of an automatic call, on stored counts (no message copied).
#[derive(Clone, Debug, PartialEq)]
pub struct Quick {
    /// How many of the caller's messages the memo's head stands for, when the call continues the
    /// last automatic compaction.
    pub continued: Option<usize>,
    /// The count of the history (continued when it applies).
    pub count: Count,
    /// The trigger's decision on it.
    pub decision: Decision,
}

impl<V> CompactorState<V> {
    /// The state of a new `Compactor` with `options`: nothing seen, learned or compacted.
    pub fn new(options: &Options) -> CompactorState<V> {
        CompactorState {
            pipeline: Pipeline::new(options),
            memo: None,
            memo_epoch: 0,
            store: MessageStore::default(),
            boundary: Boundary::default(),
            learned: Learned::new(options.profile.error),
            recognizer: Recognizer::with(&options.settings.summary),
            last_usage: None,
        }
    }

    /// The trigger's decision on a history of `totals` counting `count`.
    fn decide(options: &Options, count: &Count, totals: &Totals) -> Decision {
        let settings = &options.settings;
        settings.trigger.evaluate(&TriggerInput {
            tokens: count.tokens(),
            turns: totals.turns,
            messages: totals.non_system,
            budget: count.budget(settings.budget, settings.auto_margin),
            forced: false,
        })
    }

    /// The result of an automatic call (`maybeCompact`) that the pipeline skips on `quick`'s
    /// decision (below the trigger, or the breaker open with nothing to do): the unchanged
    /// result with its warning (`core::report::unchanged_continued`); `None` when it compacts.
    pub fn skipped(&self, quick: &Quick) -> Option<Value> {
        let (tokens, continued) = (quick.count.tokens(), quick.continued.is_some());
        match (self.pipeline).start(Kind::Automatic, quick.decision.should_compact, tokens) {
            Start::Skip(warning) => Some(unchanged_continued(tokens, warning, continued)),
            Start::Compact { .. } => None,
        }
    }

    /// `estimate()`'s result on the stored messages `ids` (`core::report::estimate_json`, with
    /// what self-calibration has learned and the options' provider).
    pub fn estimate_report(&self, options: &Options, ids: &[u32]) -> Value {
        estimate_json(&self.store.kinds(ids), &self.learned, options.profile.name)
    }

    /// `check` on the stored messages `ids`: learns from `usage` (with `selfCalibration`), counts
    /// (the usage anchored at the last assistant message) and evaluates the trigger. Only what
    /// follows the previous call's messages is added up.
    pub fn check(&mut self, options: &Options, ids: &[u32], usage: Option<&Usage>) -> Checked {
        let totals = self.store.totals_of_call(ids);
        let anchored = usage.zip(totals.last_assistant);
        if let (Some((u, anchor)), true) = (anchored, options.self_calibration) {
            self.learn(ids, anchor, u);
        }
        let count = match anchored {
            Some((u, anchor)) => {
                let after = self
                    .store
                    .kinds_of(ids.get(anchor + 1..).unwrap_or_default());
                Count::anchored(&self.learned, Some(u), &after)
            }
            None => Count::new(&self.learned, None, &totals.kinds),
        };
        let decision = Self::decide(options, &count, &totals);
        Checked { count, decision }
    }

    /// `check()`'s result ([`check_json`]) on the stored messages `ids` ([`CompactorState::check`]).
    pub fn check_report(&mut self, options: &Options, ids: &[u32], usage: Option<&Usage>) -> Value {
        check_json(&self.check(options, ids, usage))
    }

    /// Learns from `usage` given with the messages `ids`, whose latest assistant message is at
    /// `anchor`: the growth of the prompt since the usage learned from before, set against the
    /// estimate of the messages from that usage's assistant message up to this one. The same
    /// response given again teaches nothing; so does a response whose predecessor is not among the
    /// [`LEARN_WINDOW`] messages before it.
    pub fn learn(&mut self, ids: &[u32], anchor: usize, usage: &Usage) {
        let store = &self.store;
        let key_at = |i: usize| {
            let e = store.get(*ids.get(i)?)?;
            (e.message.role == Role::Assistant).then(|| message_key(&e.message))
        };
        let Some(anchor_key) = key_at(anchor) else {
            return;
        };
        let prompt = usage.prompt();
        if let Some((prev_key, prev_prompt)) = self.last_usage {
            if prev_key == anchor_key {
                return;
            }
            // Looked for among the last LEARN_WINDOW messages only, so a check stays cheap when
            // the previous response is gone (compacted away, another conversation).
            let from = (anchor.saturating_sub(LEARN_WINDOW)..anchor)
                .rev()
                .find(|&i| key_at(i) == Some(prev_key));
            if let Some(from) = from {
                let added = store.kinds_of(ids.get(from..anchor).unwrap_or_default());
                learn_growth(&mut self.learned, prev_prompt, prompt, &added);
            }
        }
        self.last_usage = Some((anchor_key, prompt));
    }

    /// Settles the stored messages of a call, `ids` ([`MessageStore::settle`]).
    pub fn settle(&mut self, ids: &[u32]) {
        self.store.settle(ids, &self.recognizer);
    }

    /// How many of a call's messages the last automatic compaction replaced, when the call
    /// starts with exactly them and holds something after them.
    pub fn continuation(&self, format: Format, ids: &[u32]) -> Option<usize> {
        self.memo.as_ref()?.continuation(&self.store, format, ids)
    }

    /// The trigger on an automatic call's history (continued from the last compaction when it
    /// applies), from stored counts alone.
    pub fn quick(&mut self, options: &Options, format: Format, ids: &[u32]) -> Quick {
        let continued = self.continuation(format, ids);
        let totals = match (continued, &self.memo) {
            (Some(n), Some(memo)) => {
                let tail = ids.get(n..).unwrap_or_default();
                memo.head_totals
                    .then(self.store.totals(tail), memo.head.len())
            }
            _ => self.store.totals_of_call(ids),
        };
        let count = Count::new(&self.learned, None, &totals.kinds);
        let decision = Self::decide(options, &count, &totals);
        Quick {
            continued,
            count,
            decision,
        }
    }

    /// The calibrated count of a history (`kinds`: each message's tokens by kind), `usage`
    /// anchored at its last assistant message.
    pub fn count(
        &self,
        messages: &[Message],
        kinds: &[KindTokens],
        usage: Option<&Usage>,
    ) -> Count {
        let anchor = usage.and(messages.iter().rposition(|m| m.role == Role::Assistant));
        match (usage, anchor) {
            (Some(u), Some(at)) => {
                let after: KindTokens = kinds.iter().skip(at + 1).copied().sum();
                Count::anchored(&self.learned, Some(u), &after)
            }
            _ => Count::new(&self.learned, None, &kinds.iter().copied().sum()),
        }
    }

    /// The floor of a call's next cut ([`boundary`]): the call's messages are `ids`; when it
    /// continues the last automatic compaction, `continued` is how many of them the memo's head
    /// stands for. The messages before the floor are those the last compaction returned.
    pub fn floor(&self, ids: &[u32], continued: Option<usize>) -> usize {
        match (continued, &self.memo) {
            (Some(_), Some(memo)) => memo.head.len() + memo.kept(),
            _ => self.boundary.floor(&self.store, ids),
        }
    }

    /// Remembers that a compaction returned the stored messages `ids`: the next cut is floored
    /// past them ([`boundary`]).
    pub fn returned(&mut self, ids: &[u32]) {
        self.boundary = Boundary::new(&self.store, ids);
    }

    /// Decides and plans a compaction of `messages` (`kinds`: each one's tokens by kind) with the
    /// counts the trigger sees: corrected by self-calibration, `usage` anchored. The kept tail
    /// starts at `floor` or later when the settings keep nothing again
    /// (`Settings::keep_after_compaction`; see [`CompactorState::floor`]).
    #[allow(clippy::too_many_arguments)]
    pub fn prepare(
        &self,
        options: &Options,
        messages: &[Message],
        kinds: &[KindTokens],
        usage: Option<&Usage>,
        estimator: &Estimator,
        floor: usize,
        forced: bool,
    ) -> Result<Prepared> {
        let count = self.count(messages, kinds, usage);
        let mut settings = options.settings.clone();
        settings.budget = count.budget(settings.budget, settings.auto_margin);
        let tokens: Vec<usize> = kinds.iter().map(|k| self.learned.corrected(k)).collect();
        let cost = |p: &Part| estimator.part_tokens(p);
        let history = History {
            messages,
            tokens: &tokens,
            total: count.tokens(),
            part_cost: &cost,
        };
        prepare_floored(&settings, &history, floor.min(messages.len()), forced)
    }

    /// `Compactor.prune` on a call's `messages` (stored as `ids`; used as scratch space and left
    /// as they were): superseded reads, then the configured style (OpenCode's when none is
    /// configured) at `now` (ms since the epoch), with part costs measured once per stored
    /// message. Returns the actions and, per
    /// message, its replacements with the values of its last pruned form when it was pruned the
    /// same way before (the same objects come back; see [`CompactorState::keep_pruned`]).
    pub fn prune(
        &mut self,
        options: &Options,
        messages: &mut [Message],
        ids: &[u32],
        estimator: &Estimator,
        now: i64,
    ) -> (Vec<PruneAction>, Vec<PrunedMessage<V>>)
    where
        V: Clone,
    {
        let (supersede, style) = match &options.settings.plan.prune {
            Some(p) => (p.supersede, p.style.at(now)),
            None => (
                true,
                prune::Style::OpenCode(prune::OpenCodeOptions::default()),
            ),
        };
        self.store.measure_parts(ids, estimator);
        let cost = StoredCosts {
            store: &self.store,
            ids,
            estimator,
        };
        let actions = prune::order_in_place(messages, supersede, &style, &cost);
        let mut by_message: Vec<Vec<(usize, PruneKind)>> = vec![Vec::new(); ids.len()];
        for action in &actions {
            if let Some(list) = by_message.get_mut(action.message) {
                list.push((action.part, action.kind.clone()));
            }
        }
        let pruned = by_message
            .into_iter()
            .zip(ids)
            .map(|(done, id)| {
                let reused = self
                    .store
                    .get(*id)
                    .and_then(|e| e.pruned.as_ref())
                    .filter(|(made, _)| !done.is_empty() && *made == done)
                    .map(|(_, values)| values.clone());
                (done, reused)
            })
            .collect();
        (actions, pruned)
    }

    /// Keeps `values`, the exported form of the stored message `id` pruned by `done`, for the
    /// next [`CompactorState::prune`].
    pub fn keep_pruned(&mut self, id: u32, done: Vec<(usize, PruneKind)>, values: Vec<V>) {
        if let Some(e) = self.store.get_mut(id) {
            e.pruned = Some((done, values));
        }
    }

    /// Remembers a successful automatic compaction of a call in `format` (the caller's
    /// `messages`, stored as `ids`) whose kept tail starts at `first_kept`, an index into the
    /// compacted history, which continued the memo when `continued` (`(prefix_len, head_len)`:
    /// its first `head_len` messages stood for the caller's first `prefix_len`). `head`: the
    /// rendered messages before the tail, with the binding's `head_values`. `timestamp` (the
    /// caller's clock, ms since the epoch) and `digest` (the summary's) go into its record.
    #[allow(clippy::too_many_arguments)]
    pub fn remember(
        &mut self,
        format: Format,
        messages: &[Message],
        ids: &[u32],
        continued: Option<(usize, usize)>,
        first_kept: usize,
        head: (Vec<Message>, Vec<V>),
        (timestamp, digest): (Option<i64>, serde_json::Value),
        estimator: &Estimator,
    ) {
        let replaced = replaced_upto(first_kept, continued)
            .and_then(|n| Some((messages.get(..n)?.to_vec(), ids.get(..n)?.to_vec())));
        self.memo = replaced.map(|r| {
            let about = MemoRecord {
                kept: messages.len().saturating_sub(r.0.len()),
                timestamp,
                digest,
            };
            Memo::new(format, r, head, None, about, estimator)
        });
        self.memo_epoch += 1;
    }
}
