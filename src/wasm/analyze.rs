//! A `Compactor`'s state and how it reads a call's messages: the identity cache, the cheap
//! decision of an automatic call, the continuation of the last automatic compaction, and the plan.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;

use super::convert::Incoming;
use super::error::throw;
use super::identity::{IdentityCache, Totals};
use super::options::{estimator_for, Callbacks};
use crate::core::driver::{continuation, replaced_upto};
use crate::core::error::Error;
use crate::core::estimate::{calibrate, Estimate, Estimator, Usage};
use crate::core::message::Part;
use crate::core::options::Options;
use crate::core::prepare::{prepare, History, Prepared};
use crate::core::summary::Recognizer;

/// The last automatic compaction: the messages it replaced (everything before its kept tail) and
/// the head it put in their place (system messages, the summary block, pinned messages). A later
/// `maybeCompact` whose messages start with exactly `replaced` continues from `head` instead of
/// summarizing again: what a caller who kept the compacted array would have passed.
pub struct Memo {
    pub format: crate::formats::Format,
    pub replaced: Vec<crate::core::message::Message>,
    /// Identity-cache ids of `replaced` (compared first; messages only when ids differ).
    pub replaced_ids: Vec<u32>,
    pub head: Vec<crate::core::message::Message>,
    pub head_js: Vec<JsValue>,
    /// Tokens, turns and non-system messages of `head`.
    pub head_totals: Totals,
    /// Read from a store (`compactor_memo.rs`): `replaced` is not at hand, only how many caller
    /// messages it held and their digest.
    pub stored: Option<(usize, u64)>,
}

/// Tokens, turns and non-system messages of a memo's head.
pub fn totals_of(head: &[crate::core::message::Message], estimator: &Estimator) -> Totals {
    let mut t = Totals::default();
    for m in head {
        t.tokens = t
            .tokens
            .saturating_add(estimator.estimate_message(m).total());
        if m.is_user_turn_start() {
            t.turns += 1;
        }
        if m.role != crate::core::message::Role::System {
            t.non_system += 1;
        }
    }
    t
}

/// How many messages before a usage's response `check` looks back for the previous response it
/// learned from.
const LEARN_WINDOW: usize = 256;

/// Mutable state, borrowed briefly and never across an `.await`.
pub struct State {
    /// The breaker and the count of compactions: the core's pipeline decides every call.
    pub pipeline: crate::core::pipeline::Pipeline,
    pub memo: Option<Memo>,
    /// Counts memos made here (a store records the latest when it changed).
    pub memo_epoch: u64,
    /// Every message object seen, imported once (see `identity`).
    pub identity: IdentityCache,
    /// What self-calibration has learned from the usage given to `check`.
    pub learned: crate::core::estimate::Learned,
    /// The latest usage `check` learned from: the content key of its assistant message (found
    /// again in a later call whether the caller passes the same object or a copy) and the prompt
    /// it reported (`input + cacheRead + cacheWrite`).
    pub last_usage: Option<(crate::core::estimate::MessageKey, u64)>,
}

/// What a `Compactor` holds; shared with its in-flight compactions.
pub struct Inner {
    pub options: Options,
    /// Recognizes earlier summaries: the configured style's, every preset's, other agents'.
    pub recognizer: Recognizer,
    pub callbacks: Callbacks,
    pub state: RefCell<State>,
    /// Calls into the caller's code running now (see [`super::call::Reentry`]).
    pub reentry: super::call::Reentry,
}

/// One analyzed call: the caller's messages, their estimate and the estimator used.
pub struct Analyzed {
    pub incoming: Incoming,
    /// Identity-cache ids of the caller's messages.
    pub ids: Vec<u32>,
    pub estimate: Estimate,
    pub estimator: Estimator,
    /// Set when the messages continue the last automatic compaction: `incoming` is then its head
    /// followed by the caller's messages from `prefix_len` on (`head_len` head messages).
    pub continued: Option<Continued>,
}

/// How an analyzed history maps to the caller's messages after a memo was used.
pub struct Continued {
    /// The caller's messages that the head stands for.
    pub prefix_len: usize,
    /// Messages of the head at the start of the analyzed history.
    pub head_len: usize,
    /// The caller's messages, imported (to remember the next prefix).
    pub caller: Vec<crate::core::message::Message>,
}

/// A call's messages resolved through the identity cache, not copied yet.
pub struct Resolved {
    pub array: js_sys::Array,
    pub format: crate::formats::Format,
    pub ids: Vec<u32>,
    pub estimator: Estimator,
}

/// The cheap decision of an automatic call: the array it would return below the trigger.
pub struct Quick {
    pub array: js_sys::Array,
    pub continued: bool,
    pub tokens: usize,
    pub should_compact: bool,
}

impl Inner {
    pub fn estimator(&self) -> Result<Estimator, JsValue> {
        estimator_for(&self.options)
    }

    /// Resolves `messages` through the identity cache: only unseen objects are converted.
    pub fn resolve(&self, messages: &JsValue) -> Result<Resolved, JsValue> {
        if !js_sys::Array::is_array(messages) {
            return throw(Err(Error::invalid_input(
                "messages",
                "messages must be an array",
            )));
        }
        let array = super::plain::snapshot(messages, "messages")?;
        let estimator = self.estimator()?;
        // The cache is taken out while JS runs (getters of the caller's objects may call back).
        let mut cache = std::mem::take(&mut self.state.borrow_mut().identity);
        let resolved = cache.resolve(&array, self.options.format, &estimator, &self.recognizer);
        self.state.borrow_mut().identity = cache;
        let r = resolved?;
        Ok(Resolved {
            array,
            format: r.format,
            ids: r.ids,
            estimator,
        })
    }

    /// Tokens, turns and non-system messages of a call's cached messages.
    pub fn totals(&self, ids: &[u32]) -> Totals {
        self.state.borrow_mut().identity.totals_of_call(ids)
    }

    /// Tokens by kind of the cached messages `ids`, summed.
    pub fn kinds_of(&self, ids: &[u32]) -> crate::core::estimate::KindTokens {
        let state = self.state.borrow();
        ids.iter()
            .filter_map(|id| state.identity.get(*id).map(|e| e.kinds))
            .sum()
    }

    /// The corrected total of the messages `ids`, whose uncorrected total is `plain`: `plain`
    /// itself while nothing was learned (no walk over the messages).
    pub fn corrected_total(&self, ids: &[u32], plain: usize) -> usize {
        if self.state.borrow().learned.factors == crate::core::estimate::Factors::ONE {
            plain
        } else {
            self.corrected(&self.kinds_of(ids))
        }
    }

    /// `kinds` corrected by what self-calibration has learned.
    pub fn corrected(&self, kinds: &crate::core::estimate::KindTokens) -> usize {
        self.state.borrow().learned.corrected(kinds)
    }

    /// The expected error in tokens of an estimate of `estimated` tokens.
    pub fn error_of(&self, estimated: usize) -> usize {
        crate::core::estimate::scale(estimated, self.state.borrow().learned.error())
    }

    /// The budget the trigger is evaluated against when `estimated` tokens of the count are
    /// estimated: with `safetyMargin: "auto"` the margin is their expected error.
    pub fn budget_for(&self, estimated: usize) -> crate::core::trigger::Budget {
        let settings = &self.options.settings;
        if settings.auto_margin {
            settings.budget.with_auto_margin(self.error_of(estimated))
        } else {
            settings.budget
        }
    }

    /// Learns from `usage` given with the messages `ids`, whose latest assistant message is at
    /// `anchor`: the growth of the prompt since the usage learned from before, set against the
    /// estimate of the messages from that usage's assistant message up to this one. The same
    /// response given again teaches nothing; so does a response whose predecessor is not among the
    /// [`LEARN_WINDOW`] messages before it.
    pub fn learn(&self, ids: &[u32], anchor: usize, usage: &Usage) {
        use crate::core::estimate::message_key;
        use crate::core::message::Role;
        let key_at = |i: usize| {
            let state = self.state.borrow();
            let e = state.identity.get(*ids.get(i)?)?;
            (e.message.role == Role::Assistant).then(|| message_key(&e.message))
        };
        let Some(anchor_key) = key_at(anchor) else {
            return;
        };
        let prompt = usage
            .input
            .saturating_add(usage.cache_read)
            .saturating_add(usage.cache_write);
        let last = self.state.borrow().last_usage;
        if let Some((prev_key, prev_prompt)) = last {
            if prev_key == anchor_key {
                return;
            }
            // Looked for among the last LEARN_WINDOW messages only, so a check stays cheap when
            // the previous response is gone (compacted away, another conversation).
            let from = (anchor.saturating_sub(LEARN_WINDOW)..anchor)
                .rev()
                .find(|&i| key_at(i) == Some(prev_key));
            if let (Some(from), true) = (from, prompt > prev_prompt) {
                let added = self.kinds_of(ids.get(from..anchor).unwrap_or_default());
                self.state
                    .borrow_mut()
                    .learned
                    .observe(&added, prompt - prev_prompt);
            }
        }
        self.state.borrow_mut().last_usage = Some((anchor_key, prompt));
    }

    /// Tokens of each cached message.
    pub fn per_message(&self, ids: &[u32]) -> Vec<usize> {
        let state = self.state.borrow();
        ids.iter()
            .map(|id| state.identity.get(*id).map_or(0, |e| e.tokens))
            .collect()
    }

    pub fn analyze(&self, messages: &JsValue) -> Result<Analyzed, JsValue> {
        let r = self.resolve(messages)?;
        Ok(self.materialize(r))
    }

    /// Gives the messages of a call that only read them back to the identity cache, so that the
    /// next call over the same (or a longer) history does not copy them again.
    pub fn restore(&self, a: Analyzed) {
        if a.continued.is_none() {
            self.state
                .borrow_mut()
                .identity
                .restore(a.ids, a.incoming.messages);
        }
    }

    /// The cached messages of a resolved call, for planning (copied, but for those the last
    /// call given back with [`Inner::restore`] shares).
    fn materialize(&self, r: Resolved) -> Analyzed {
        let mut messages = self.state.borrow_mut().identity.take_messages(&r.ids);
        self.recognizer.mark_leading(&mut messages);
        let state = self.state.borrow();
        let kinds = r
            .ids
            .iter()
            .map(|id| state.identity.get(*id).map(|e| e.kinds).unwrap_or_default())
            .collect();
        Analyzed {
            incoming: Incoming {
                array: r.array,
                format: r.format,
                messages,
                binaries: None,
            },
            ids: r.ids,
            estimate: Estimate::from_kinds(kinds),
            estimator: r.estimator,
            continued: None,
        }
    }

    /// How many of the caller's messages the last automatic compaction replaced, when the call
    /// starts with exactly them and holds something after them.
    fn continuation(&self, r: &Resolved) -> Option<usize> {
        let state = self.state.borrow();
        let memo = state.memo.as_ref()?;
        if memo.format != r.format {
            return None;
        }
        if let Some((len, digest)) = memo.stored {
            // A memo from a store: the caller's first `len` messages must have its digest.
            let messages = r
                .ids
                .get(..len)?
                .iter()
                .map(|id| state.identity.get(*id).map(|e| &e.message));
            let messages: Option<Vec<_>> = messages.collect();
            let same = crate::core::driver::prefix_digest(messages?) == digest;
            return continuation(len, r.ids.len(), |_| same);
        }
        // Same object (id), or the same message (a deep-equal copy).
        continuation(memo.replaced.len(), r.ids.len(), |i| {
            let (Some(id), Some(old), Some(m)) =
                (r.ids.get(i), memo.replaced_ids.get(i), memo.replaced.get(i))
            else {
                return false;
            };
            id == old || state.identity.get(*id).is_some_and(|e| e.message == *m)
        })
    }

    /// The trigger on an automatic call's history (continued from the last compaction when it
    /// applies), from cached counts alone: no message is copied.
    pub fn quick(&self, messages: &JsValue) -> Result<Quick, JsValue> {
        let r = self.resolve(messages)?;
        let n = self.continuation(&r);
        let (mut totals, array) = match n {
            None => (self.totals(&r.ids), r.array.slice(0, r.array.length())),
            Some(n) => {
                let state = self.state.borrow();
                let head = js_sys::Array::new();
                if let Some(memo) = &state.memo {
                    for v in &memo.head_js {
                        head.push(v);
                    }
                }
                let start = u32::try_from(n).unwrap_or(u32::MAX);
                (
                    state.identity.totals(r.ids.get(n..).unwrap_or_default()),
                    head.concat(&r.array.slice(start, r.array.length())),
                )
            }
        };
        if n.is_some() {
            if let Some(memo) = &self.state.borrow().memo {
                totals.tokens = totals.tokens.saturating_add(memo.head_totals.tokens);
                totals.turns += memo.head_totals.turns;
                totals.non_system += memo.head_totals.non_system;
            }
        }
        let settings = &self.options.settings;
        let learned = self.state.borrow().learned;
        if learned.factors != crate::core::estimate::Factors::ONE {
            let kinds = match n {
                None => self.kinds_of(&r.ids),
                Some(n) => {
                    let head: crate::core::estimate::KindTokens = self
                        .state
                        .borrow()
                        .memo
                        .as_ref()
                        .map(|m| m.head.iter().map(|h| r.estimator.estimate_message(h)).sum())
                        .unwrap_or_default();
                    head + self.kinds_of(r.ids.get(n..).unwrap_or_default())
                }
            };
            totals.tokens = learned.corrected(&kinds);
        }
        let d = settings
            .trigger
            .evaluate(&crate::core::trigger::TriggerInput {
                tokens: totals.tokens,
                turns: totals.turns,
                messages: totals.non_system,
                budget: self.budget_for(totals.tokens),
                forced: false,
            });
        Ok(Quick {
            array,
            continued: n.is_some(),
            tokens: totals.tokens,
            should_compact: d.should_compact,
        })
    }

    /// Like [`Inner::analyze`], continuing from the last automatic compaction when the messages
    /// start with exactly the messages it replaced (and hold something after them).
    pub fn analyze_continuing(&self, messages: &JsValue) -> Result<Analyzed, JsValue> {
        let r = self.resolve(messages)?;
        let Some(n) = self.continuation(&r) else {
            return Ok(self.materialize(r));
        };
        let a = self.materialize(r);
        let state = self.state.borrow();
        let Some(memo) = &state.memo else {
            drop(state);
            return Ok(a);
        };
        let head = js_sys::Array::new();
        for v in &memo.head_js {
            head.push(v);
        }
        let start = u32::try_from(n).unwrap_or(u32::MAX);
        let array = head.concat(&a.incoming.array.slice(start, a.incoming.array.length()));
        let mut messages = memo.head.clone();
        messages.extend(a.incoming.messages.iter().skip(n).cloned());
        let per_message: Vec<crate::core::estimate::KindTokens> = memo
            .head
            .iter()
            .map(|m| a.estimator.estimate_message(m))
            .chain(a.estimate.per_message_kinds.iter().skip(n).copied())
            .collect();
        let continued = Continued {
            prefix_len: n,
            head_len: memo.head.len(),
            caller: a.incoming.messages.clone(),
        };
        Ok(Analyzed {
            incoming: Incoming {
                array,
                format: a.incoming.format,
                messages,
                binaries: None,
            },
            ids: a.ids,
            estimate: Estimate::from_kinds(per_message),
            estimator: a.estimator,
            continued: Some(continued),
        })
    }

    /// Remembers a successful automatic compaction of `a` whose kept tail starts at `first_kept`
    /// (an index into `a`), with `head` the rendered messages before the tail.
    pub fn remember(
        &self,
        a: &Analyzed,
        first_kept: usize,
        head: Vec<crate::core::message::Message>,
        head_js: Vec<JsValue>,
    ) {
        let upto = replaced_upto(
            first_kept,
            a.continued.as_ref().map(|c| (c.prefix_len, c.head_len)),
        );
        let caller = match &a.continued {
            None => &a.incoming.messages,
            Some(c) => &c.caller,
        };
        let replaced =
            upto.and_then(|n| Some((caller.get(..n)?.to_vec(), a.ids.get(..n)?.to_vec())));
        let head_totals = totals_of(&head, &a.estimator);
        let memo = replaced.map(|(replaced, replaced_ids)| Memo {
            format: a.incoming.format,
            replaced,
            replaced_ids,
            head,
            head_js,
            head_totals,
            stored: None,
        });
        let mut state = self.state.borrow_mut();
        state.memo = memo;
        state.memo_epoch += 1;
    }

    /// Decides and plans for `a`; `usage` calibrates the total.
    pub fn prepare(
        &self,
        a: &Analyzed,
        usage: Option<&Usage>,
        forced: bool,
    ) -> Result<Prepared, JsValue> {
        let learned = self.state.borrow().learned;
        let (total, estimated) = match usage {
            Some(u) => {
                let c = calibrate(&a.incoming.messages, &a.estimate.per_message, u);
                let after: crate::core::estimate::KindTokens = match c.anchor {
                    Some(at) => a
                        .estimate
                        .per_message_kinds
                        .iter()
                        .skip(at + 1)
                        .copied()
                        .sum(),
                    None => a.estimate.by_kind,
                };
                let estimated = learned.corrected(&after);
                (c.measured.saturating_add(estimated), estimated)
            }
            None => {
                let estimated = learned.corrected(&a.estimate.by_kind);
                (estimated, estimated)
            }
        };
        let mut settings = self.options.settings.clone();
        settings.budget = self.budget_for(estimated);
        let cost = |p: &Part| a.estimator.part_tokens(p);
        // Planned with the counts the trigger sees: corrected by self-calibration.
        let tokens: Vec<usize> = a
            .estimate
            .per_message_kinds
            .iter()
            .map(|k| learned.corrected(k))
            .collect();
        let history = History {
            messages: &a.incoming.messages,
            tokens: &tokens,
            total,
            part_cost: &cost,
        };
        throw(prepare(&settings, &history, forced))
    }
}
