//! The stateful session: an append-only log of entries (seed 000's JSONL design) and the live
//! context built from it.
//!
//! Messages cross into the session once: [`Session::append`] estimates only the new messages and
//! updates running totals, so [`Session::check`] costs O(1) whatever the length of the history.
//! A compaction is planned from a [`Snapshot`] and committed with [`Session::commit`] by the rule of
//! [`commit`]: messages appended meanwhile stay after the summary; any other change is a
//! `CONFLICT`. [`Session::branch`] makes a new session from any entry: before a compaction it undoes
//! it, after one it keeps it.
//!
//! The memory block (seed 004: "both the summary and raw entries are injected into the agent
//! context") is rendered as a system message after the leading system messages and the summary
//! ([`Session::memory`]); like a system prompt it counts toward the budget's system tokens.
//!
//! By concept: the log as JSONL text is [`jsonl`], branching [`branch`], the memory block
//! [`notes`], the caller's objects of the entries [`objects`], a compaction's plan and job
//! [`planning`], the handle's JSON results [`results`].

pub mod branch;
pub mod cache_points;
pub mod commit;
pub mod copy;
pub mod entry;
pub mod jsonl;
pub mod loader;
pub mod notes;
pub mod objects;
pub mod options;
pub mod planning;
pub mod pressure;
pub mod provisional;
pub mod results;
pub mod shared;
pub mod view;
pub mod workstream;

use std::collections::HashMap;

use serde_json::Value;

use crate::core::error::{Error, ErrorCode, Result};
use crate::core::estimate::{Counter, Estimator, Learned, Usage};
use crate::core::message::Message;
use crate::core::plan::Plan;
use crate::core::prune::{self, PruneAction, TtlOptions};
use crate::core::settings::Settings;
use crate::core::summary::Recognizer;
use crate::core::trigger::{Decision, TriggerInput};

pub use cache_points::{cache_points, CachePoint, CachePointKind, PRE_TAIL_OFFSET_ROUNDS};
pub use commit::{Outcome, Snapshot, Source};
pub use copy::{LogCopy, Marks};
pub use entry::{Compaction, Entry, EntryKind, Header, Hidden, Replacement};
pub use pressure::Pressure;
pub use shared::{LiveSet, Merged, Pending};
pub use view::{Item, View};

/// Imports one message of the session's format (`value`, at `path` for errors).
pub type Import<'a> = &'a dyn Fn(&Value, &str) -> Result<Message>;

/// What a session needs besides its log.
#[derive(Clone, Debug)]
pub struct Config {
    /// Triggers, planning and the summary's framing.
    pub settings: Settings,
    /// How tokens are estimated.
    pub estimator: Estimator,
    /// Start compacting in the background at this many tokens (below the trigger's threshold).
    pub background_tokens: Option<usize>,
    /// What self-calibration starts from when the log holds none (nothing learned, the model
    /// profile's expected error).
    pub calibration: Learned,
    /// Whether recorded usage also calibrates the estimate.
    pub self_calibration: bool,
}

impl Config {
    /// `settings` with the heuristic estimator, no background compaction, nothing learned and no
    /// self-calibration.
    pub fn heuristic(settings: Settings) -> Config {
        Config {
            settings,
            estimator: Estimator::new(Counter::Heuristic),
            background_tokens: None,
            calibration: Learned::default(),
            self_calibration: false,
        }
    }
}

/// A session (see the module documentation).
#[derive(Clone, Debug)]
pub struct Session {
    config: Config,
    header: Header,
    log: Vec<Entry>,
    ids: HashMap<String, usize>,
    view: View,
    version: u64,
    flushed: usize,
    header_flushed: bool,
    seq: u64,
    /// Appended to new entry ids (`e12.k3x9`) when the log is shared by several writers, so that
    /// two of them never make the same id.
    id_tag: Option<String>,
    /// Entries other than messages and usage pushed or merged so far (the commit rule's count).
    structural: u64,
    /// Merges that put other writers' entries before entries of this one not yet stored.
    reorders: u64,
    /// Counts changes of the live set (see [`shared::LiveSet`]).
    live_epoch: u64,
    /// The change of the live set that the store last recorded.
    live_stored: u64,
    /// Recognizes summaries among appended messages by the configured framing as well as by the
    /// known agents' (a history compacted earlier with a custom `summaryPrefix`).
    recognizer: Recognizer,
    /// The memory block as the system message rendered with the context, and its tokens.
    memory: Option<(Message, usize)>,
    /// What reading the log back noticed (empty for a session made here).
    load_report: loader::LoadReport,
    /// What a copy of the log held elsewhere already has ([`copy`]).
    copy: copy::CopyCursor,
    /// Set while the format is provisional (see [`provisional`]).
    provisional: Option<provisional::Provisional>,
}

impl Session {
    /// An empty session with id `id` whose messages are in `format`.
    pub fn new(config: Config, id: String, format: String) -> Session {
        Session::empty(config, Header::new(id, format, None))
    }

    /// A session with `header` and nothing logged yet.
    fn empty(config: Config, header: Header) -> Session {
        let view = View {
            learned: config.calibration,
            ..View::default()
        };
        Session {
            recognizer: Recognizer::with(&config.settings.summary),
            config,
            header,
            log: Vec::new(),
            ids: HashMap::new(),
            view,
            version: 0,
            flushed: 0,
            header_flushed: false,
            seq: 0,
            id_tag: None,
            structural: 0,
            reorders: 0,
            live_epoch: 0,
            live_stored: 0,
            memory: None,
            load_report: loader::LoadReport::default(),
            copy: copy::CopyCursor::default(),
            provisional: None,
        }
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Every entry, in order.
    pub fn log(&self) -> &[Entry] {
        &self.log
    }

    /// The live context.
    pub fn view(&self) -> &View {
        &self.view
    }

    /// Grows with every change of the log.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The index in the log of entry `id`.
    pub fn position(&self, id: &str) -> Option<usize> {
        self.ids.get(id).copied()
    }

    /// A fresh entry id (`e1`, `e2`, ..., or `e1.TAG` with an id tag; skipping ids already in the
    /// log).
    fn next_id(&mut self) -> String {
        loop {
            self.seq += 1;
            let id = entry_id(self.seq, self.id_tag.as_deref());
            if !self.ids.contains_key(&id) {
                return id;
            }
        }
    }

    /// Appends an entry with `id`.
    fn push(&mut self, id: String, kind: EntryKind) -> usize {
        if shared::is_structural(&kind) {
            self.structural += 1;
        }
        if shared::rewrites(&kind) {
            self.live_epoch += 1;
        }
        let parent = self.log.last().map(|e| e.id.clone());
        let entry = Entry::new(id.clone(), parent, kind);
        self.log.push(entry);
        let at = self.log.len() - 1;
        self.ids.insert(id, at);
        self.version += 1;
        at
    }

    /// Appends messages; returns their entry ids. Costs O(new messages).
    pub fn append(&mut self, messages: Vec<Message>) -> Vec<String> {
        let mut out = Vec::with_capacity(messages.len());
        for mut message in messages {
            self.recognize(&mut message);
            let kinds = self.config.estimator.estimate_message(&message);
            let id = self.next_id();
            let at = self.push(id.clone(), EntryKind::Message(Box::new(message)));
            if let Some(m) = self.log.get(at).and_then(Entry::message) {
                let m = m.clone();
                self.view.push(at, None, &m, kinds);
            }
            out.push(id);
        }
        out
    }

    /// Marks an appended message as a summary (or a summary question's answer) by the session's
    /// recognizer, only while the log holds nothing but system messages: a summary the package
    /// wrote is a compaction entry, and one that came in with an array a compaction returned is at
    /// its head ([`Recognizer::mark_leading`]). Costs O(leading entries).
    fn recognize(&self, message: &mut Message) {
        if self.leading() {
            self.recognizer.mark(message);
        }
        let asked = self
            .log
            .iter()
            .rev()
            .find_map(Entry::message)
            .is_some_and(|previous| self.recognizer.asks(previous));
        Recognizer::answer(asked, message);
    }

    /// True while no compaction is logged and every message logged is an unmarked system message.
    fn leading(&self) -> bool {
        !self.log.iter().any(|e| match &e.kind {
            EntryKind::Message(m) => m.role != crate::core::message::Role::System || m.summary,
            EntryKind::Compaction(_) => true,
            _ => false,
        })
    }

    /// [`Session::recognize`] over the messages of a log read back.
    fn recognize_logged(&mut self) {
        let mut asked = false;
        let mut leading = true;
        for entry in &mut self.log {
            match &mut entry.kind {
                EntryKind::Message(message) => {
                    if leading {
                        self.recognizer.mark(message);
                    }
                    Recognizer::answer(asked, message);
                    asked = self.recognizer.asks(message);
                    leading &=
                        message.role == crate::core::message::Role::System && !message.summary;
                }
                EntryKind::Compaction(_) => leading = false,
                _ => {}
            }
        }
    }

    /// Appends messages under the given ids (an import keeping the file's own ids). An id already
    /// in the log is `INVALID_INPUT`.
    pub fn append_with_ids(&mut self, messages: Vec<(String, Message)>) -> Result<Vec<String>> {
        let mut out = Vec::with_capacity(messages.len());
        for (id, mut message) in messages {
            self.recognize(&mut message);
            if self.ids.contains_key(&id) {
                return Err(Error::invalid_input(
                    "id",
                    format!("entry id \"{id}\" is already in the session"),
                ));
            }
            let kinds = self.config.estimator.estimate_message(&message);
            let at = self.push(id.clone(), EntryKind::Message(Box::new(message)));
            if let Some(m) = self.log.get(at).and_then(Entry::message) {
                let m = m.clone();
                self.view.push(at, None, &m, kinds);
            }
            out.push(id);
        }
        Ok(out)
    }

    /// Records the provider's usage of the latest response: the count of the context up to the
    /// latest assistant message is taken from it from now on, and self-calibration learns from
    /// the growth of the prompt since the previous usage. What it has learned is written with
    /// the usage entry.
    pub fn record_usage(&mut self, usage: Usage) -> String {
        self.view
            .record_usage(&self.log, &usage, self.config.self_calibration);
        let learned = (self.view.learned.samples > 0).then_some(self.view.learned);
        let id = self.next_id();
        self.push(id.clone(), EntryKind::Usage(usage, learned));
        id
    }

    /// Tokens of the live context (calibrated by the latest usage when there is one).
    pub fn tokens(&self) -> usize {
        self.view.total()
    }

    /// What self-calibration has learned so far.
    pub fn calibration(&self) -> &Learned {
        &self.view.learned
    }

    /// The expected error of [`Session::tokens`], in tokens: the calibration's expected relative
    /// error times the part of the count that is estimated (the provider's part counts exactly).
    pub fn tokens_error(&self) -> usize {
        self.view.count().error
    }

    /// The budget the trigger is evaluated against: with `safetyMargin: "auto"`, the margin is
    /// the expected error of the count ([`Budget::with_auto_margin`]).
    pub fn budget(&self) -> crate::core::trigger::Budget {
        let mut budget = self.config.settings.budget;
        // The memory block is sent besides the messages, as a system prompt is.
        budget.system_tokens = budget
            .system_tokens
            .saturating_add(self.memory.as_ref().map_or(0, |(_, t)| *t));
        self.view
            .count()
            .budget(budget, self.config.settings.auto_margin)
    }

    /// Evaluates the trigger on the live context in O(1). `forced` after a context-limit error.
    pub fn check(&self, forced: bool) -> Decision {
        let input = TriggerInput {
            tokens: self.view.total(),
            turns: self.view.turns,
            messages: self.view.non_system,
            budget: self.budget(),
            forced,
        };
        self.config.settings.trigger.evaluate(&input)
    }

    /// Below the background threshold, between it and the trigger, or at the trigger.
    pub fn pressure(&self) -> (Decision, Pressure) {
        let decision = self.check(false);
        let pressure = pressure::of(&decision, self.view.total(), self.config.background_tokens);
        (decision, pressure)
    }

    /// The messages of the live context, as sent.
    pub fn messages(&self) -> Vec<&Message> {
        (0..self.view.items.len())
            .filter_map(|i| self.view.message(&self.log, i))
            .collect()
    }

    /// The cache points of the rendered context (the memory block included, [`Session::memory`]).
    pub fn cache_points(&self) -> Vec<CachePoint> {
        let mut starts: Vec<bool> = self
            .messages()
            .iter()
            .map(|m| m.is_user_turn_start())
            .collect();
        if let Some((at, _)) = self.memory() {
            starts.insert(at.min(starts.len()), false);
        }
        cache_points(&starts, PRE_TAIL_OFFSET_ROUNDS)
    }

    /// The index in the live context of the summary message, when there is one: a compaction's,
    /// or a summary among the appended messages (a history compacted elsewhere).
    pub fn summary_index(&self) -> Option<usize> {
        let log = &self.log;
        (0..self.view.items.len()).find(|&i| {
            self.view.message(log, i).is_some_and(|m| {
                m.summary
                    && m.role == self.config.settings.summary.role
                    && self
                        .config
                        .settings
                        .summary
                        .question
                        .as_ref()
                        .is_none_or(|q| m.plain_text() != *q)
            })
        })
    }

    /// The live context for a compaction.
    pub fn snapshot(&self) -> Snapshot {
        let mut messages = Vec::with_capacity(self.view.items.len());
        let mut tokens = Vec::with_capacity(self.view.items.len());
        let mut sources = Vec::with_capacity(self.view.items.len());
        let mut floor = None;
        for (i, item) in self.view.items.iter().enumerate() {
            let Some(m) = self.view.message(&self.log, i) else {
                continue;
            };
            let id = self
                .log
                .get(item.entry)
                .map(|e| e.id.clone())
                .unwrap_or_default();
            sources.push(if item.altered.as_ref().is_some_and(|m| m.summary) {
                Source::Summary(id)
            } else {
                Source::Entry(id)
            });
            if floor.is_none() && self.view.compaction.is_none_or(|c| item.entry > c) {
                floor = Some(messages.len());
            }
            messages.push(m.clone());
            // Planned with the counts the trigger sees: corrected by self-calibration.
            tokens.push(self.view.learned.corrected(&item.kinds));
        }
        let floor = floor.unwrap_or(messages.len());
        let previous = self
            .view
            .compaction
            .and_then(|c| match &self.log.get(c)?.kind {
                EntryKind::Compaction(comp) => Some(comp.as_ref().clone()),
                _ => None,
            });
        Snapshot {
            version: self.version,
            log_len: self.log.len(),
            structural: self.structural,
            reorders: self.reorders,
            stored: self.flushed,
            messages,
            tokens,
            sources,
            total: self.view.total(),
            previous,
            floor,
        }
    }

    /// Commits a compaction planned from `snapshot` (see [`commit`]); returns the id of its entry.
    pub fn commit(
        &mut self,
        snapshot: &Snapshot,
        plan: &Plan,
        outcome: &Outcome,
    ) -> Result<String> {
        commit::check_commit(self.version, self.structural, self.reorders, snapshot)?;
        let mut fresh = Vec::new();
        let mut seq = self.seq;
        let ids = &self.ids;
        let tag = self.id_tag.as_deref();
        let mut new_id = || loop {
            seq += 1;
            let id = entry_id(seq, tag);
            if !ids.contains_key(&id) && !fresh.contains(&id) {
                fresh.push(id.clone());
                return id;
            }
        };
        let entries = commit::entries_for(snapshot, plan, outcome, &self.log, &mut new_id)?;
        self.seq = seq;
        let mut last = String::new();
        for (id, kind) in entries {
            last = id.clone();
            self.push(id, kind);
        }
        self.rebuild();
        Ok(last)
    }

    /// After an automatic compaction: the style's continue message (OpenCode's "Continue if you
    /// have next steps") as a user message to append, when the context does not end with one, as
    /// the Compactor's `maybeCompact` adds it.
    pub fn continue_message(&self) -> Option<Message> {
        let text = self.config.settings.summary.continue_message.clone()?;
        let last_is_user = self
            .view
            .message(&self.log, self.view.items.len().checked_sub(1)?)
            .is_some_and(|m| m.role == crate::core::message::Role::User);
        (!last_is_user).then(|| Message::text(crate::core::message::Role::User, text))
    }

    /// Hides parts of the live context's messages (`actions` index the live context). Returns
    /// the prune entry's id, or `None` when no action applies to a message entry.
    pub fn hide(&mut self, actions: &[PruneAction]) -> Option<String> {
        let hidden = commit::hidden_of(&self.snapshot(), actions);
        if hidden.is_empty() {
            return None;
        }
        let id = self.next_id();
        self.push(id.clone(), EntryKind::Prune(hidden));
        self.rebuild();
        Some(id)
    }

    /// Seed 003's first render step: hides tool results older than the cache lifetime.
    pub fn prune_ttl(&mut self, options: &TtlOptions) -> Option<String> {
        let snapshot = self.snapshot();
        let estimator = &self.config.estimator;
        let cost = |p: &crate::core::message::Part| estimator.part_tokens(p);
        let actions = prune::prune_ttl(&snapshot.messages, options, &cost);
        self.hide(&actions)
    }

    /// Rebuilds the live context from the log (after a compaction or a prune).
    fn rebuild(&mut self) {
        self.refresh_memory();
        self.view = View::build(
            &self.log,
            &self.ids,
            &self.config.settings.summary,
            &self.config.estimator,
            self.config.calibration,
        );
    }

    /// Fails with `INVALID_INPUT` unless `format` is the session's.
    pub fn expect_format(&self, format: &str) -> Result<()> {
        if self.header.format == format {
            Ok(())
        } else {
            Err(Error::new(
                ErrorCode::InvalidInput,
                format!(
                    "the session holds {} messages; these are {format}",
                    self.header.format
                ),
            ))
        }
    }
}

/// Entry id number `seq`, with the writer's tag when it has one.
fn entry_id(seq: u64, tag: Option<&str>) -> String {
    match tag {
        Some(tag) => format!("e{seq}.{tag}"),
        None => format!("e{seq}"),
    }
}

fn index(log: &[Entry]) -> HashMap<String, usize> {
    log.iter()
        .enumerate()
        .map(|(i, e)| (e.id.clone(), i))
        .collect()
}
