//! Where a `Compactor`'s last compaction ends, so that its next cut is floored as a `Session`'s
//! is by its log's compaction entry (docs/session.md, "the loader rule"; the plan's
//! `PlanOptions::floor`). With presets whose source never keeps again what its previous
//! compaction kept (seed 000, pi: `Settings::keep_after_compaction`), the kept tail of the next
//! compaction starts after the messages the last one returned: they are folded into the new
//! summary.
//!
//! A Session knows those messages from its log. A Compactor knows them by what it returned: the
//! messages of the compacted array (`maybeCompact` and `compact()`), each by its store id (the
//! binding registers the returned objects) and its content key (a deep-equal copy counts as the
//! same message). A call that starts with exactly them is floored past them; a call that
//! continues the last automatic compaction from its memo (the caller kept its own array) is
//! floored past the memo's head and the messages that compaction kept
//! ([`super::Memo::kept`]). Any other call starts afresh: no floor.

use super::store::MessageStore;
use crate::core::estimate::{message_key, MessageKey};

/// The messages the last compaction returned (see the module documentation).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Boundary {
    /// Store ids of the returned messages, in order.
    ids: Vec<u32>,
    /// Their content keys (a copy of a returned message is recognised by them).
    keys: Vec<MessageKey>,
}

impl Boundary {
    /// The boundary after a compaction that returned the stored messages `ids`. When one of them
    /// is not in the store, it has no content key: the boundary is then matched by id alone.
    pub fn new<V>(store: &MessageStore<V>, ids: &[u32]) -> Boundary {
        let keys = ids
            .iter()
            .filter_map(|id| store.get(*id).map(|e| message_key(&e.message)))
            .collect::<Vec<_>>();
        Boundary {
            keys: if keys.len() == ids.len() {
                keys
            } else {
                Vec::new()
            },
            ids: ids.to_vec(),
        }
    }

    /// How many messages the compaction returned.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True when it returned nothing.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The floor of a call whose messages are `ids` in `store`: the number of returned messages
    /// when the call starts with exactly them (each the same object or a deep-equal copy), else 0.
    pub fn floor<V>(&self, store: &MessageStore<V>, ids: &[u32]) -> usize {
        if self.ids.is_empty() || ids.len() < self.ids.len() {
            return 0;
        }
        let same = |i: usize| {
            let (Some(id), Some(own)) = (ids.get(i), self.ids.get(i)) else {
                return false;
            };
            id == own
                || self.keys.get(i).is_some_and(|k| {
                    store
                        .get(*id)
                        .is_some_and(|e| message_key(&e.message) == *k)
                })
        };
        if (0..self.ids.len()).all(same) {
            self.ids.len()
        } else {
            0
        }
    }
}
