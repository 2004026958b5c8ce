//! The identity cache of a `Compactor`: a JS `WeakMap` from each message object the caller passed
//! to the id of its imported form, kept in Rust with its token counts. A call converts only the
//! objects it has not seen; the walk over the array runs in JS (one boundary crossing for the whole
//! array), so `check` on a long history costs a few microseconds per thousand messages.
//!
//! The rule for mutation: a message object is read once, the first time it is seen. Changing an
//! object in place afterwards is not noticed; pass a new object instead (as the AI SDK, LangChain
//! and React-style code do), or call `compactor.forget()` after mutating.
//!
//! When the cache holds more than twice the messages of the largest of the last 8 calls, only the
//! messages of the latest calls are kept (newest first, up to that bound).

use rustc_hash::FxHashMap;

use js_sys::{Array, Uint32Array, WeakMap};
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::error::to_js as error_to_js;
use crate::core::error::Error;
use crate::core::estimate::{EstimateCache, Estimator, KindTokens};
use crate::core::message::{Message, Part, Role};
use crate::core::prune::{PartCost, PruneKind};
use crate::core::summary::Recognizer;
use crate::formats::{detect, Format};

#[wasm_bindgen(module = "/js/snippets/identity.js")]
extern "C" {
    /// The known id of each message (0 when unknown), in a buffer reused across calls (no garbage
    /// per call); only its first `messages.length` entries are meaningful. Throws (caught) when
    /// reading the array throws (a getter or a Proxy of the caller's).
    #[wasm_bindgen(catch)]
    fn identify(map: &WeakMap, messages: &Array) -> Result<Uint32Array, JsValue>;
}

/// One message, imported once.
pub struct Cached {
    /// The imported message.
    pub message: Message,
    /// Its tokens by kind.
    pub kinds: KindTokens,
    /// Its total tokens.
    pub tokens: usize,
    /// The tokens of each of its parts, measured the first time a prune needs them.
    pub part_tokens: Option<Vec<usize>>,
    /// Its last pruned form (see [`Pruned`]).
    pub pruned: Option<Pruned>,
}

/// A message's last pruned form: the replacements made (part index and kind), and the values
/// they were exported as.
pub type Pruned = (Vec<(usize, PruneKind)>, Vec<JsValue>);

/// A call's messages, resolved to cache entries.
pub struct Resolved {
    /// The entry id of each message, in order.
    pub ids: Vec<u32>,
    /// The format of the messages.
    pub format: Format,
}

/// The cache (see the module documentation).
pub struct IdentityCache {
    map: WeakMap,
    entries: FxHashMap<u32, Cached>,
    next: u32,
    format: Option<Format>,
    counts: EstimateCache,
    /// The ids of the previous call and their totals: a call that extends them only adds up the
    /// new messages.
    last: Option<(Vec<u32>, Totals)>,
    /// The messages of the last planned call, in order, and their ids: the next call copies only
    /// the messages that do not continue them (see [`IdentityCache::take_messages`]).
    view: Vec<Message>,
    view_ids: Vec<u32>,
    /// The ids of the last [`RECENT_CALLS`] calls, oldest first, for eviction.
    recent: std::collections::VecDeque<Vec<u32>>,
}

/// How many calls eviction looks back on.
const RECENT_CALLS: usize = 8;

impl Default for IdentityCache {
    fn default() -> Self {
        IdentityCache {
            map: WeakMap::new(),
            entries: FxHashMap::default(),
            next: 1,
            format: None,
            counts: EstimateCache::default(),
            last: None,
            view: Vec::new(),
            view_ids: Vec::new(),
            recent: std::collections::VecDeque::new(),
        }
    }
}

impl IdentityCache {
    /// Forgets every message (after the caller mutated messages in place).
    pub fn clear(&mut self) {
        *self = IdentityCache::default();
    }

    /// Entries held (for tests of the bound).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entry of `id`.
    pub fn get(&self, id: u32) -> Option<&Cached> {
        self.entries.get(&id)
    }

    /// Resolves `array` (already checked to be an array) in `format` (`None`: the cache's format,
    /// or detected on the first call), importing and estimating only unseen objects.
    pub fn resolve(
        &mut self,
        array: &Array,
        format: Option<Format>,
        estimator: &Estimator,
        recognizer: &Recognizer,
    ) -> Result<Resolved, JsValue> {
        if array.length() > super::plain::MAX_NODES {
            return Err(error_to_js(
                &Error::invalid_input(
                    "messages",
                    format!(
                        "{} messages: at most {} are accepted in one call",
                        array.length(),
                        super::plain::MAX_NODES
                    ),
                ),
                None,
            ));
        }
        let buffer = identify(&self.map, array).map_err(|e| {
            let detail = e
                .dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
                .unwrap_or_else(|| "a non-Error value".to_string());
            error_to_js(
                &Error::invalid_input("messages", format!("reading the messages threw: {detail}")),
                None,
            )
        })?;
        let mut ids = vec![0u32; array.length() as usize];
        buffer.subarray(0, array.length()).copy_to(&mut ids);
        let mut todo: Vec<usize> = ids
            .iter()
            .enumerate()
            .filter(|(_, id)| **id == 0)
            .map(|(i, _)| i)
            .collect();
        // Ids the map knows but the cache dropped are fresh again. The previous call's ids are
        // all cached (eviction keeps them), so only what follows them is looked up.
        let known = self.extends_last(&ids);
        for (i, id) in ids.iter().enumerate().skip(known) {
            if *id != 0 && !self.entries.contains_key(id) {
                todo.push(i);
            }
        }
        todo.sort_unstable();
        let format = match format.or(self.format) {
            Some(f) => f,
            // What detection reads of each message (its fields and blocks, each distinct shape
            // once); an array that is not plain data is converted whole.
            None => match super::on_demand::detect_format(array)? {
                Some(f) => f,
                None => {
                    let json = to_json(&array.clone().into(), "messages")?;
                    super::error::throw(detect(&json))?
                }
            },
        };
        if self.format.is_some() && self.format != Some(format) {
            // Another format than the cached messages': start over.
            self.clear();
            todo = (0..ids.len()).collect();
        }
        self.format = Some(format);
        let import = crate::formats::message_importer(format);
        let mut unseen = Vec::with_capacity(todo.len());
        for &i in &todo {
            let value = js_sys::Reflect::get_u32(array, u32::try_from(i).unwrap_or(u32::MAX))
                .map_err(|_| {
                    error_to_js(
                        &Error::invalid_input(format!("messages[{i}]"), "reading it threw"),
                        None,
                    )
                })?;
            unseen.push((i, value));
        }
        // In batches of at most BATCH_MAX, each imported before the next is converted: the
        // converted form of a whole long history is never held at once.
        for chunk in unseen.chunks(BATCH_MAX) {
            let mut batch = batch_json(chunk).map(Vec::into_iter);
            for (i, value) in chunk {
                let i = *i;
                let path = format!("messages[{i}]");
                let json = match batch.as_mut().and_then(Iterator::next) {
                    Some(json) => json,
                    None => to_json(value, &path)?,
                };
                let message = import(&json, &path).map_err(|e| error_to_js(&e, None))?;
                let kinds = if estimator.counter.is_exact() {
                    self.counts.estimate_message(estimator, &message)
                } else {
                    estimator.estimate_message(&message)
                };
                let id = self.next;
                self.next = self.next.wrapping_add(1).max(1);
                if value.is_object() {
                    self.map
                        .set(value.unchecked_ref(), &JsValue::from_f64(f64::from(id)));
                }
                self.entries.insert(
                    id,
                    Cached {
                        message,
                        tokens: kinds.total(),
                        kinds,
                        part_tokens: None,
                        pruned: None,
                    },
                );
                if let Some(slot) = ids.get_mut(i) {
                    *slot = id;
                }
            }
        }
        self.mark_head(&ids, recognizer);
        self.evict(&ids);
        Ok(Resolved { ids, format })
    }

    /// Marks a summary at the head of the call (`Recognizer::mark_leading`: after the leading
    /// system messages) in the cache, so that the totals do not count its turn. Text elsewhere is
    /// never marked.
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

    /// Keeps the cache bounded: past twice the messages of the largest of the recent calls (and a
    /// little), only the messages of this call and of the calls just before it are kept, newest
    /// first, up to that bound. A small call in between (a sub-agent's history) therefore does not
    /// evict the main history.
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
        let mut live: rustc_hash::FxHashSet<u32> = rustc_hash::FxHashSet::default();
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

    /// The entry of `id`, to update.
    pub fn get_mut(&mut self, id: u32) -> Option<&mut Cached> {
        self.entries.get_mut(&id)
    }

    /// Measures the parts of the entries of `ids` that have not been measured yet.
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
    /// was given back ([`IdentityCache::restore`]) are reused for the ids it shares from the
    /// start, so a growing history copies only its new messages. The result is the caller's:
    /// the cache holds no view until one is given back.
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

    /// Gives back the messages [`IdentityCache::take_messages`] returned for `ids`, unchanged
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

    /// [`IdentityCache::totals`], adding only what follows the previous call's ids when the call
    /// extends them, and remembering the result for the next call.
    pub fn totals_of_call(&mut self, ids: &[u32]) -> Totals {
        let known = self.extends_last(ids);
        let t = match &self.last {
            Some((_, before)) if known > 0 => {
                let mut after = self.totals(ids.get(known..).unwrap_or_default());
                after.last_assistant = after
                    .last_assistant
                    .map(|i| i + known)
                    .or(before.last_assistant);
                after.tokens = after.tokens.saturating_add(before.tokens);
                after.turns += before.turns;
                after.non_system += before.non_system;
                after
            }
            _ => self.totals(ids),
        };
        self.last = Some((ids.to_vec(), t));
        t
    }

    /// Tokens, turns and non-system messages of `ids`, and the index of the last assistant
    /// message (for calibration).
    pub fn totals(&self, ids: &[u32]) -> Totals {
        let mut t = Totals::default();
        for (i, id) in ids.iter().enumerate() {
            if let Some(e) = self.entries.get(id) {
                t.tokens = t.tokens.saturating_add(e.tokens);
                if e.message.is_user_turn_start() {
                    t.turns += 1;
                }
                if e.message.role != Role::System {
                    t.non_system += 1;
                }
                if e.message.role == Role::Assistant {
                    t.last_assistant = Some(i);
                }
            }
        }
        t
    }
}

/// What `check` needs of a history.
#[derive(Clone, Copy, Debug, Default)]
pub struct Totals {
    pub tokens: usize,
    pub turns: usize,
    pub non_system: usize,
    pub last_assistant: Option<usize>,
}

fn to_json(value: &JsValue, path: &str) -> Result<Value, JsValue> {
    super::plain::to_json(value, path, super::plain::Kind::Input, "messages")
}

/// From how many unseen messages they cross into wasm together.
const BATCH: usize = 32;
/// The most unseen messages converted in one crossing.
const BATCH_MAX: usize = 4096;

/// The unseen messages converted in one crossing (as the JSON bytes of one array, see
/// `super::plain`) when there are many: `None` when they are few, when one of them holds binary
/// data (its placeholders would be numbered across the batch, not within its message, as the
/// way back expects), or when the batch fails the shape check; each is then converted alone, so
/// an error names the message's own path.
fn batch_json(unseen: &[(usize, JsValue)]) -> Option<Vec<Value>> {
    if unseen.len() < BATCH {
        return None;
    }
    let batch: Array = unseen.iter().map(|(_, v)| v).collect();
    match super::plain::to_json_with_binaries(
        &batch.into(),
        "messages",
        super::plain::Kind::Input,
        "messages",
    ) {
        Ok((Value::Array(items), None)) if items.len() == unseen.len() => Some(items),
        _ => None,
    }
}

/// The costs of a call's parts as the cache measured them ([`IdentityCache::measure_parts`]),
/// for the pruners; a part not measured is measured now.
pub struct CachedCosts<'a> {
    /// The cache.
    pub cache: &'a IdentityCache,
    /// The call's entry ids, in order.
    pub ids: &'a [u32],
    /// The estimator the entries were measured with.
    pub estimator: &'a Estimator,
}

impl PartCost for CachedCosts<'_> {
    fn at(&self, (message, part): (usize, usize), p: &Part) -> usize {
        self.ids
            .get(message)
            .and_then(|id| self.cache.get(*id))
            .and_then(|e| e.part_tokens.as_ref())
            .and_then(|t| t.get(part).copied())
            .unwrap_or_else(|| self.estimator.part_tokens(p))
    }
    fn of(&self, p: &Part) -> usize {
        self.estimator.part_tokens(p)
    }
}
