//! The memo of a `Compactor`'s last automatic compaction: the caller's messages it replaced
//! (everything before its kept tail) and the head it put in their place (system messages, the
//! summary block, pinned messages). A later `maybeCompact` whose messages start with exactly the
//! replaced ones continues from the head instead of summarizing again: what a caller who kept
//! the compacted array would have passed (`core::driver::memo` holds the rule and the record a
//! store keeps). `V` is what the binding keeps of each head message (its exported value).

use serde_json::Value;

use super::store::{MessageStore, Totals};
use crate::core::driver::{continuation, prefix_digest};
use crate::core::estimate::{Estimator, KindTokens};
use crate::core::format::Format;
use crate::core::message::Message;

/// What a memo says of its compaction besides the messages (a store's memo line carries it, as a
/// Session's compaction entry does).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MemoRecord {
    /// How many of the caller's messages the compaction kept after the replaced ones (seed 000's
    /// `keepLastMessages`).
    pub kept: usize,
    /// When it was made, in milliseconds since the Unix epoch (the caller's clock).
    pub timestamp: Option<i64>,
    /// The summary's digest (the result's `digest`; null without a summary).
    pub digest: Value,
}

/// The last automatic compaction (see the module documentation).
pub struct Memo<V> {
    /// The caller's message format.
    pub format: Format,
    /// The caller's messages it replaced (empty when read from a store).
    pub replaced: Vec<Message>,
    /// Store ids of `replaced` (compared first; messages only when ids differ).
    pub replaced_ids: Vec<u32>,
    /// The messages that stand for `replaced`.
    pub head: Vec<Message>,
    /// What the binding keeps of each head message.
    pub head_values: Vec<V>,
    /// Tokens by kind of each head message.
    pub head_kinds: Vec<KindTokens>,
    /// The totals of the head.
    pub head_totals: Totals,
    /// Read from a store: `replaced` is not at hand, only how many caller messages it held and
    /// their digest.
    pub stored: Option<(usize, u64)>,
    /// How many caller messages it kept after `replaced`, when, and its summary's digest.
    pub about: MemoRecord,
}

impl<V> Memo<V> {
    /// A memo whose `head` (with the binding's `head_values`) replaced `replaced` (their store
    /// ids `replaced_ids`); `stored`: read from a store instead (count and digest).
    pub fn new(
        format: Format,
        (replaced, replaced_ids): (Vec<Message>, Vec<u32>),
        (head, head_values): (Vec<Message>, Vec<V>),
        stored: Option<(usize, u64)>,
        about: MemoRecord,
        estimator: &Estimator,
    ) -> Memo<V> {
        Memo {
            format,
            replaced,
            replaced_ids,
            head_kinds: head.iter().map(|m| estimator.estimate_message(m)).collect(),
            head_totals: Totals::of(&head, estimator),
            head,
            head_values,
            stored,
            about,
        }
    }

    /// How many caller messages the compaction kept after the replaced ones: with the head,
    /// what it returned, and so the floor of a call that continues from it.
    pub fn kept(&self) -> usize {
        self.about.kept
    }

    /// How many replaced messages a store's record of this memo names, and their digest
    /// (`None` for a memo read from a store: it is recorded already).
    pub fn record(&self) -> Option<(usize, u64)> {
        self.stored
            .is_none()
            .then(|| (self.replaced.len(), prefix_digest(&self.replaced)))
    }

    /// How many of a call's messages (`ids` in `store`, in `format`) this memo replaced, when
    /// the call starts with exactly them and holds something after them.
    pub fn continuation<W>(
        &self,
        store: &MessageStore<W>,
        format: Format,
        ids: &[u32],
    ) -> Option<usize> {
        if self.format != format {
            return None;
        }
        if let Some((len, digest)) = self.stored {
            // A memo from a store: the caller's first `len` messages must have its digest.
            let messages: Option<Vec<&Message>> = ids
                .get(..len)?
                .iter()
                .map(|id| store.get(*id).map(|e| &e.message))
                .collect();
            let same = prefix_digest(messages?) == digest;
            return continuation(len, ids.len(), |_| same);
        }
        // Same object (id), or the same message (a deep-equal copy).
        continuation(self.replaced.len(), ids.len(), |i| {
            let (Some(id), Some(old), Some(m)) =
                (ids.get(i), self.replaced_ids.get(i), self.replaced.get(i))
            else {
                return false;
            };
            id == old || store.get(*id).is_some_and(|e| e.message == *m)
        })
    }

    /// The history a call continues with: the head, then the caller's `messages` (with their
    /// `kinds`) from `n` on.
    pub fn continue_with(
        &self,
        n: usize,
        messages: &[Message],
        kinds: &[KindTokens],
    ) -> (Vec<Message>, Vec<KindTokens>) {
        let mut m = self.head.clone();
        m.extend(messages.iter().skip(n).cloned());
        let mut k = self.head_kinds.clone();
        k.extend(kinds.iter().skip(n).copied());
        (m, k)
    }
}
