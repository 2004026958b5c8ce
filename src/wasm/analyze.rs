//! How a `Compactor` reads a call's messages: resolved through its identity map into its core
//! state (`core::compactor::CompactorState`, which holds the store, the memo, the learned
//! calibration and the pipeline, and makes every decision), then copied out for planning
//! ([`Analyzed`]) or decided on stored counts alone ([`Inner::quick`]). This file converts values
//! and calls the core: no rule of its own.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;

use super::convert::Incoming;
use super::error::throw;
use super::identity::Identity;
use super::options::{estimator_for, Callbacks};
use crate::core::compactor::CompactorState;
use crate::core::error::Error;
use crate::core::estimate::{Estimate, Estimator, Usage};
use crate::core::message::Message;
use crate::core::options::Options;
use crate::core::prepare::Prepared;
use crate::core::summary::Recognizer;

/// The core state of a `Compactor`, keeping the exported value of each message it made.
pub type State = CompactorState<JsValue>;

/// What a `Compactor` holds; shared with its in-flight compactions.
pub struct Inner {
    pub options: Options,
    /// Recognizes earlier summaries: the configured style's, every preset's, other agents'.
    pub recognizer: Recognizer,
    pub callbacks: Callbacks,
    /// Mutable state, borrowed briefly and never across an `.await` or a call into JS.
    pub state: RefCell<State>,
    /// The caller's message objects to the ids of `state`'s store.
    pub identity: Identity,
}

/// One analyzed call: the caller's messages, their estimate and the estimator used.
pub struct Analyzed {
    pub incoming: Incoming,
    /// Store ids of the caller's messages.
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
    pub caller: Vec<Message>,
}

/// A call's messages resolved through the identity map, not copied yet.
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

    /// Resolves `messages` through the identity map: only unseen objects are converted.
    pub fn resolve(&self, messages: &JsValue) -> Result<Resolved, JsValue> {
        if !js_sys::Array::is_array(messages) {
            return throw(Err(Error::invalid_input(
                "messages",
                "messages must be an array",
            )));
        }
        let array = super::plain::snapshot(messages, "messages")?;
        let estimator = self.estimator()?;
        // The store is taken out while JS runs (getters of the caller's objects may call back).
        let mut store = std::mem::take(&mut self.state.borrow_mut().store);
        let resolved = self.identity.resolve(
            &mut store,
            &array,
            self.options.format,
            &estimator,
            &self.recognizer,
        );
        self.state.borrow_mut().store = store;
        let r = resolved?;
        Ok(Resolved {
            array,
            format: r.format,
            ids: r.ids,
            estimator,
        })
    }

    pub fn analyze(&self, messages: &JsValue) -> Result<Analyzed, JsValue> {
        let r = self.resolve(messages)?;
        Ok(self.materialize(r))
    }

    /// Gives the messages of a call that only read them back to the store, so that the next
    /// call over the same (or a longer) history does not copy them again.
    pub fn restore(&self, a: Analyzed) {
        if a.continued.is_none() {
            let mut state = self.state.borrow_mut();
            state.store.restore(a.ids, a.incoming.messages);
        }
    }

    /// The stored messages of a resolved call, for planning (copied, but for those the last call
    /// given back with [`Inner::restore`] shares).
    fn materialize(&self, r: Resolved) -> Analyzed {
        let mut state = self.state.borrow_mut();
        let mut messages = state.store.take_messages(&r.ids);
        self.recognizer.mark_leading(&mut messages);
        let kinds = state.store.kinds(&r.ids);
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

    /// The memo's head values followed by the caller's `array` from `n` on.
    fn continued_array(&self, array: &js_sys::Array, n: usize) -> js_sys::Array {
        let head = js_sys::Array::new();
        if let Some(memo) = &self.state.borrow().memo {
            for v in &memo.head_values {
                head.push(v);
            }
        }
        let start = u32::try_from(n).unwrap_or(u32::MAX);
        head.concat(&array.slice(start, array.length()))
    }

    /// The trigger on an automatic call's history (continued from the last compaction when it
    /// applies), from stored counts alone: no message is copied.
    pub fn quick(&self, messages: &JsValue) -> Result<Quick, JsValue> {
        let r = self.resolve(messages)?;
        let q = self
            .state
            .borrow_mut()
            .quick(&self.options, r.format, &r.ids);
        let array = match q.continued {
            None => r.array.slice(0, r.array.length()),
            Some(n) => self.continued_array(&r.array, n),
        };
        Ok(Quick {
            array,
            continued: q.continued.is_some(),
            tokens: q.count.tokens(),
            should_compact: q.decision.should_compact,
        })
    }

    /// Like [`Inner::analyze`], continuing from the last automatic compaction when the messages
    /// start with exactly the messages it replaced (and hold something after them).
    pub fn analyze_continuing(&self, messages: &JsValue) -> Result<Analyzed, JsValue> {
        let r = self.resolve(messages)?;
        let n = self.state.borrow().continuation(r.format, &r.ids);
        let a = self.materialize(r);
        let Some(n) = n else { return Ok(a) };
        let array = self.continued_array(&a.incoming.array, n);
        let state = self.state.borrow();
        let Some(memo) = &state.memo else {
            drop(state);
            return Ok(a);
        };
        let (messages, kinds) =
            memo.continue_with(n, &a.incoming.messages, &a.estimate.per_message_kinds);
        let continued = Continued {
            prefix_len: n,
            head_len: memo.head.len(),
            caller: a.incoming.messages,
        };
        Ok(Analyzed {
            incoming: Incoming {
                array,
                format: a.incoming.format,
                messages,
                binaries: None,
            },
            ids: a.ids,
            estimate: Estimate::from_kinds(kinds),
            estimator: a.estimator,
            continued: Some(continued),
        })
    }

    /// Remembers a successful automatic compaction of `a` (whose messages the compaction took:
    /// `messages`) whose kept tail starts at `first_kept` (an index into `a`), with `head` the
    /// rendered messages before the tail and `digest` the summary's (the memo's record carries
    /// it, with the time now).
    pub fn remember(
        &self,
        a: &Analyzed,
        messages: &[Message],
        first_kept: usize,
        head: (Vec<Message>, Vec<JsValue>),
        digest: serde_json::Value,
    ) {
        let caller = match &a.continued {
            None => messages,
            Some(c) => &c.caller,
        };
        self.state.borrow_mut().remember(
            a.incoming.format,
            caller,
            &a.ids,
            a.continued.as_ref().map(|c| (c.prefix_len, c.head_len)),
            first_kept,
            head,
            (Some(js_sys::Date::now() as i64), digest),
            &a.estimator,
        );
    }

    /// Remembers that a compaction returned `out`: its objects are registered in the store now
    /// (as the next call would import them), and the next cut is floored past them when the
    /// next call starts with them (`core::compactor::boundary`). The objects are this
    /// compaction's own; should reading them fail, the boundary is cleared instead (the next cut
    /// has no floor) and the compaction stands.
    pub fn returned(&self, out: &js_sys::Array) {
        let ids = self
            .resolve(&out.clone().into())
            .map(|r| r.ids)
            .unwrap_or_default();
        self.state.borrow_mut().returned(&ids);
    }

    /// Registers the objects of a prune's result `out` in the store and marks, for each new
    /// pruned form (`forms`: its index in `out` and the parts that replaced hidden ones), which
    /// parts a compaction's digest lists as `hidden` (`core::compactor::hidden`). A failure to
    /// read them only leaves them unmarked.
    pub fn pruned_forms(&self, out: &js_sys::Array, forms: &[(u32, Vec<usize>)]) {
        if forms.is_empty() {
            return;
        }
        let Ok(r) = self.resolve(&out.clone().into()) else {
            return;
        };
        let mut state = self.state.borrow_mut();
        for (at, parts) in forms {
            let id = r.ids.get(*at as usize).copied().unwrap_or(0);
            if let Some(e) = state.store.get_mut(id) {
                e.hidden.clone_from(parts);
            }
        }
    }

    /// The digest of a compaction of `a` by `plan`, with the parts of the messages it summarizes
    /// that a prune hid (`core::compactor::hidden`).
    pub fn digest_with_hidden(
        &self,
        a: &Analyzed,
        plan: &crate::core::plan::Plan,
        digest: serde_json::Value,
    ) -> serde_json::Value {
        let state = self.state.borrow();
        let caller = |i: usize| {
            let index = match &a.continued {
                None => i,
                Some(c) => i.checked_sub(c.head_len)? + c.prefix_len,
            };
            Some((*a.ids.get(index)?, index))
        };
        crate::core::compactor::hidden::with_hidden(
            digest,
            &state.store,
            &a.incoming.messages,
            plan,
            caller,
        )
    }

    /// Decides and plans for `a`; `usage` calibrates the total. The cut is floored past what the
    /// last compaction returned when `a` starts with it (`core::compactor::boundary`).
    pub fn prepare(
        &self,
        a: &Analyzed,
        usage: Option<&Usage>,
        forced: bool,
    ) -> Result<Prepared, JsValue> {
        let state = self.state.borrow();
        let floor = state.floor(&a.ids, a.continued.as_ref().map(|c| c.prefix_len));
        throw(state.prepare(
            &self.options,
            &a.incoming.messages,
            &a.estimate.per_message_kinds,
            usage,
            &a.estimator,
            floor,
            forced,
        ))
    }
}
