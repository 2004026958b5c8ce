//! The `Compactor`'s identity-keyed message store: every message object the caller passed,
//! imported once and kept under an id with its token counts. The binding maps each JS object to
//! its id (a `WeakMap`, JS-side) and imports only the objects whose id the store does not hold;
//! every rule over the stored messages is here:
//! - which positions of a call must be imported ([`MessageStore::unknown`]);
//! - a summary at the head of a call is marked, so that its turn is not counted
//!   ([`MessageStore::settle`]);
//! - the totals of a call, adding only what follows the previous call's ids when it extends them
//!   ([`MessageStore::totals_of_call`]);
//! - the copies handed out for planning, reused by the next call over the same start
//!   ([`MessageStore::take_messages`], [`MessageStore::restore`]);
//! - the bound: when the store holds more than twice the messages of the largest of the last 8
//!   calls, only the messages of the latest calls are kept (newest first, up to that bound).
//! - the format of the messages: given, or decided by the first call whose messages show it;
//!   plain text alone is read as `ai-sdk` provisionally, and what was read under another format
//!   is forgotten when the format is decided ([`MessageStore::adopt_format`]).
//!
//! - how many messages one call may hold ([`check_count`]), and how the unseen ones cross into
//!   wasm ([`BATCH`], [`BATCH_MAX`]) to be imported one by one ([`MessageStore::import`]).
//!
//! `V` is what the binding keeps with a message's last pruned form (its exported values).

use std::collections::VecDeque;

use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::Value;

use crate::core::error::{Error, Result};
use crate::core::estimate::{EstimateCache, Estimator, KindTokens};
use crate::core::format::Format;
use crate::core::message::{Message, Part, Role};
use crate::core::plain_data::MAX_NODES;
use crate::core::prune::{PartCost, PruneKind};
use crate::core::summary::Recognizer;

/// From how many unseen messages of one call they cross into wasm together (fewer: one by one).
pub const BATCH: usize = 32;
/// The most unseen messages converted in one crossing: the converted form of a whole long
/// history is never held at once.
pub const BATCH_MAX: usize = 4096;

/// Refuses a call of more than [`MAX_NODES`] messages (the most one plain-data value holds):
/// `INVALID_INPUT` at `messages`, naming the count.
pub fn check_count(n: u32) -> Result<()> {
    if n > MAX_NODES {
        let e = format!("{n} messages: at most {MAX_NODES} are accepted in one call");
        return Err(Error::invalid_input("messages", e));
    }
    Ok(())
}

/// `INVALID_INPUT` at `messages` when reading the caller's array threw (a getter or a Proxy of
/// theirs): `detail` is the thrown `Error`'s message (`None`: another value was thrown).
pub fn array_threw(detail: Option<String>) -> Error {
    let detail = detail.unwrap_or_else(|| "a non-Error value".to_string());
    Error::invalid_input("messages", format!("reading the messages threw: {detail}"))
}

/// One message, imported once.
pub struct Stored<V> {
    /// The imported message.
    pub message: Message,
    /// Its tokens by kind.
    pub kinds: KindTokens,
    /// Its total tokens.
    pub tokens: usize,
    /// The tokens of each of its parts, measured the first time a prune needs them.
    pub part_tokens: Option<Vec<usize>>,
    /// Its last pruned form (see [`Pruned`]).
    pub pruned: Option<Pruned<V>>,
    /// When this message is the pruned form `Compactor.prune` returned of another: the indices
    /// of its parts that stand for hidden ones (their replacement text), for a compaction's
    /// digest (`hidden`, [`crate::core::compactor::hidden`]).
    pub hidden: Vec<usize>,
}

/// A message's last pruned form: the replacements made (part index and kind), and the values
/// they were exported as.
pub type Pruned<V> = (Vec<(usize, PruneKind)>, Vec<V>);

/// Tokens (in all and by kind), user turns and non-system messages of a history, and the index
/// of its last assistant message (where a usage is anchored).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub tokens: usize,
    pub kinds: KindTokens,
    pub turns: usize,
    pub non_system: usize,
    pub last_assistant: Option<usize>,
}

impl Totals {
    /// Adds one message at index `i`.
    fn add(&mut self, i: usize, message: &Message, kinds: KindTokens) {
        self.tokens = self.tokens.saturating_add(kinds.total());
        self.kinds += kinds;
        if message.is_user_turn_start() {
            self.turns += 1;
        }
        if message.role != Role::System {
            self.non_system += 1;
        }
        if message.role == Role::Assistant {
            self.last_assistant = Some(i);
        }
    }

    /// `self` followed by `after` (whose indices start at `offset`).
    pub fn then(self, after: Totals, offset: usize) -> Totals {
        Totals {
            tokens: self.tokens.saturating_add(after.tokens),
            kinds: self.kinds + after.kinds,
            turns: self.turns + after.turns,
            non_system: self.non_system + after.non_system,
            last_assistant: after
                .last_assistant
                .map(|i| i + offset)
                .or(self.last_assistant),
        }
    }

    /// The totals of `messages` estimated by `estimator`.
    pub fn of(messages: &[Message], estimator: &Estimator) -> Totals {
        let mut t = Totals::default();
        for (i, m) in messages.iter().enumerate() {
            t.add(i, m, estimator.estimate_message(m));
        }
        t
    }
}

/// How many calls eviction looks back on.
const RECENT_CALLS: usize = 8;

/// The store (see the module documentation).
pub struct MessageStore<V> {
    entries: FxHashMap<u32, Stored<V>>,
    next: u32,
    format: Option<Format>,
    /// Whether the messages showed `format` (else it was taken provisionally: plain text only).
    decided: bool,
    counts: EstimateCache,
    /// The ids of the previous call and their totals: a call that extends them only adds up the
    /// new messages.
    last: Option<(Vec<u32>, Totals)>,
    /// The messages of the last planned call, in order, and their ids: the next call copies only
    /// the messages that do not continue them (see [`MessageStore::take_messages`]).
    view: Vec<Message>,
    view_ids: Vec<u32>,
    /// The ids of the last [`RECENT_CALLS`] calls, oldest first, for eviction.
    recent: VecDeque<Vec<u32>>,
}

impl<V> Default for MessageStore<V> {
    fn default() -> Self {
        MessageStore {
            entries: FxHashMap::default(),
            next: 1,
            format: None,
            decided: false,
            counts: EstimateCache::default(),
            last: None,
            view: Vec::new(),
            view_ids: Vec::new(),
            recent: VecDeque::new(),
        }
    }
}

impl<V> MessageStore<V> {
    /// Forgets every message (after the caller mutated messages in place). Ids are never given
    /// twice, so an id the binding still maps is simply unknown from now on.
    pub fn clear(&mut self) {
        let next = self.next;
        *self = MessageStore::default();
        self.next = next;
    }

    /// Messages held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when nothing is held.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The message of `id`.
    pub fn get(&self, id: u32) -> Option<&Stored<V>> {
        self.entries.get(&id)
    }

    /// The message of `id`, to update.
    pub fn get_mut(&mut self, id: u32) -> Option<&mut Stored<V>> {
        self.entries.get_mut(&id)
    }

    /// The format of the stored messages, once a message showed it (`None` before: every call
    /// detects it again, see [`MessageStore::adopt_format`]).
    pub fn format(&self) -> Option<Format> {
        self.format.filter(|_| self.decided)
    }

    /// Takes `format` as the stored messages' format, `decided` when the messages showed it
    /// (given by the caller, or marked), else provisionally (plain text only, read as `ai-sdk`).
    /// Messages read under another format are forgotten first, so the call imports them again
    /// under this one; a provisional format never replaces a decided one. Returns true when
    /// messages were forgotten.
    pub fn adopt_format(&mut self, format: Format, decided: bool) -> bool {
        if self.decided && !decided {
            return false;
        }
        let cleared = self.format.is_some_and(|f| f != format);
        if cleared {
            self.clear();
        }
        self.format = Some(format);
        self.decided = decided;
        cleared
    }

    /// The format of a call's messages, adopted ([`MessageStore::adopt_format`]): `given` (the
    /// options'), else the one earlier messages showed, else what `detect` finds (a format, and
    /// whether the messages showed it).
    pub fn decide_format<E>(
        &mut self,
        given: Option<Format>,
        detect: impl FnOnce() -> std::result::Result<(Format, bool), E>,
    ) -> std::result::Result<Format, E> {
        let (format, decided) = match given.or(self.format()) {
            Some(f) => (f, true),
            None => detect()?,
        };
        self.adopt_format(format, decided);
        Ok(format)
    }

    /// The positions of a call's `ids` (0: an object never seen) whose message the store does
    /// not hold, in order. The previous call's ids are all held (eviction keeps them), so only
    /// what follows them is looked up.
    pub fn unknown(&self, ids: &[u32]) -> Vec<usize> {
        let known = self.extends_last(ids);
        ids.iter()
            .enumerate()
            .filter(|&(i, id)| *id == 0 || (i >= known && !self.entries.contains_key(id)))
            .map(|(i, _)| i)
            .collect()
    }

    /// Imports the caller's message `i` from its JSON with `import` (the format's importer; an
    /// error names `messages[i]`) and stores it ([`MessageStore::insert`]): its new id.
    pub fn import(
        &mut self,
        i: usize,
        json: &Value,
        import: fn(&Value, &str) -> Result<Message>,
        estimator: &Estimator,
    ) -> Result<u32> {
        let message = import(json, &format!("messages[{i}]"))?;
        Ok(self.insert(message, estimator))
    }

    /// Stores an imported message with its counts and returns its new id (never 0).
    pub fn insert(&mut self, message: Message, estimator: &Estimator) -> u32 {
        let kinds = if estimator.counter.is_exact() {
            self.counts.estimate_message(estimator, &message)
        } else {
            estimator.estimate_message(&message)
        };
        let id = self.next;
        self.next = self.next.wrapping_add(1).max(1);
        self.entries.insert(
            id,
            Stored {
                message,
                tokens: kinds.total(),
                kinds,
                part_tokens: None,
                pruned: None,
                hidden: Vec::new(),
            },
        );
        id
    }

    /// Ends a call whose messages are all stored: marks a summary at its head
    /// (`Recognizer::mark_leading`: after the leading system messages, so that the totals do not
    /// count its turn; text elsewhere is never marked), then keeps the store bounded.
    pub fn settle(&mut self, ids: &[u32], recognizer: &Recognizer) {
        self.mark_head(ids, recognizer);
        self.evict(ids);
    }

    fn mark_head(&mut self, ids: &[u32], recognizer: &Recognizer) {
        let systems = ids
            .iter()
            .take_while(|id| {
                self.entries
                    .get(id)
                    .is_some_and(|e| e.message.role == Role::System && !e.message.summary)
            })
            .count();
        let head: Vec<u32> = ids.iter().take(systems + 2).copied().collect();
        let mut messages: Vec<Message> = head
            .iter()
            .filter_map(|id| self.entries.get(id).map(|e| e.message.clone()))
            .collect();
        if messages.len() != head.len() {
            return;
        }
        recognizer.mark_leading(&mut messages);
        for (id, m) in head.iter().zip(messages) {
            if let Some(e) = self.entries.get_mut(id) {
                e.message.summary |= m.summary;
            }
        }
    }

    /// Past twice the messages of the largest of the recent calls (and a little), only the
    /// messages of this call and of the calls just before it are kept, newest first, up to that
    /// bound. A small call in between (a sub-agent's history) therefore does not evict the main
    /// history.
    fn evict(&mut self, ids: &[u32]) {
        if self.recent.len() == RECENT_CALLS {
            self.recent.pop_front();
        }
        self.recent.push_back(ids.to_vec());
        let largest = self.recent.iter().map(Vec::len).max().unwrap_or(0);
        let bound = 2 * largest + 64;
        if self.entries.len() <= bound {
            return;
        }
        let mut live: FxHashSet<u32> = FxHashSet::default();
        for call in self.recent.iter().rev() {
            if live.len() + call.len() > bound && !live.is_empty() {
                break;
            }
            live.extend(call.iter().copied());
        }
        self.entries.retain(|id, _| live.contains(id));
        if self
            .last
            .as_ref()
            .is_some_and(|(prev, _)| prev.iter().any(|id| !live.contains(id)))
        {
            self.last = None;
        }
    }

    /// Measures the parts of the messages of `ids` that have not been measured yet.
    pub fn measure_parts(&mut self, ids: &[u32], estimator: &Estimator) {
        for id in ids {
            if let Some(e) = self.entries.get_mut(id) {
                if e.part_tokens.is_none() {
                    let parts = e.message.parts.iter();
                    e.part_tokens = Some(parts.map(|p| estimator.part_tokens(p)).collect());
                }
            }
        }
    }

    /// The messages of `ids` in order, for planning. The copies made for the previous call that
    /// was given back ([`MessageStore::restore`]) are reused for the ids it shares from the
    /// start, so a growing history copies only its new messages. The result is the caller's:
    /// the store holds no view until one is given back.
    pub fn take_messages(&mut self, ids: &[u32]) -> Vec<Message> {
        let mut view = std::mem::take(&mut self.view);
        let shared = if view.len() == self.view_ids.len() {
            self.view_ids
                .iter()
                .zip(ids)
                .take_while(|(a, b)| a == b)
                .count()
        } else {
            0
        };
        self.view_ids.clear();
        view.truncate(shared);
        for id in ids.iter().skip(shared) {
            if let Some(e) = self.entries.get(id) {
                view.push(e.message.clone());
            }
        }
        view
    }

    /// Gives back the messages [`MessageStore::take_messages`] returned for `ids`, unchanged
    /// but for the marks of `Recognizer::mark_leading` (which depend only on the head of the
    /// array, so a call sharing it marks the same), to be reused by the next call.
    pub fn restore(&mut self, ids: Vec<u32>, messages: Vec<Message>) {
        if ids.len() == messages.len() {
            self.view = messages;
            self.view_ids = ids;
        }
    }

    /// How many leading ids of `ids` are the previous call's ids.
    fn extends_last(&self, ids: &[u32]) -> usize {
        match &self.last {
            Some((prev, _)) if ids.get(..prev.len()) == Some(prev.as_slice()) => prev.len(),
            _ => 0,
        }
    }

    /// [`MessageStore::totals`], adding only what follows the previous call's ids when the call
    /// extends them, and remembering the result for the next call.
    pub fn totals_of_call(&mut self, ids: &[u32]) -> Totals {
        let known = self.extends_last(ids);
        let t = match &self.last {
            Some((_, before)) if known > 0 => {
                before.then(self.totals(ids.get(known..).unwrap_or_default()), known)
            }
            _ => self.totals(ids),
        };
        self.last = Some((ids.to_vec(), t));
        t
    }

    /// The totals of the stored messages `ids`.
    pub fn totals(&self, ids: &[u32]) -> Totals {
        let mut t = Totals::default();
        for (i, id) in ids.iter().enumerate() {
            if let Some(e) = self.entries.get(id) {
                t.add(i, &e.message, e.kinds);
            }
        }
        t
    }

    /// Tokens by kind of each stored message of `ids`.
    pub fn kinds(&self, ids: &[u32]) -> Vec<KindTokens> {
        ids.iter()
            .map(|id| self.entries.get(id).map(|e| e.kinds).unwrap_or_default())
            .collect()
    }

    /// Tokens by kind of the stored messages `ids`, summed.
    pub fn kinds_of(&self, ids: &[u32]) -> KindTokens {
        ids.iter()
            .filter_map(|id| self.entries.get(id).map(|e| e.kinds))
            .sum()
    }
}

/// The costs of a call's parts as the store measured them ([`MessageStore::measure_parts`]), for
/// the pruners; a part not measured is measured now.
pub struct StoredCosts<'a, V> {
    /// The store.
    pub store: &'a MessageStore<V>,
    /// The call's ids, in order.
    pub ids: &'a [u32],
    /// The estimator the messages were measured with.
    pub estimator: &'a Estimator,
}

impl<V> PartCost for StoredCosts<'_, V> {
    fn at(&self, (message, part): (usize, usize), p: &Part) -> usize {
        self.ids
            .get(message)
            .and_then(|id| self.store.get(*id))
            .and_then(|e| e.part_tokens.as_ref())
            .and_then(|t| t.get(part).copied())
            .unwrap_or_else(|| self.estimator.part_tokens(p))
    }
    fn of(&self, p: &Part) -> usize {
        self.estimator.part_tokens(p)
    }
}
