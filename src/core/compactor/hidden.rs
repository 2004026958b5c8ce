//! The `hidden` list of a Compactor's compaction digest, as a Session's compaction entry has it
//! (seed 003: "hidden blocks and replacement text"): the parts of the summarized messages that a
//! `Compactor.prune` hid behind a replacement text, so that the digest says what they were. The
//! Compactor knows them by the pruned forms it returned: the binding registers each one and marks
//! which of its parts replaced hidden ones ([`super::Stored::hidden`]). A Session names the log
//! entry of each; a Compactor has no log, so each item names the message by its index in the
//! caller's array: `{ message, part, tool, output | input }`.

use serde_json::Value;

use super::store::MessageStore;
use crate::core::message::Message;
use crate::core::plan::Plan;
use crate::core::session::view::replacement_of;
use crate::core::summary::hidden_list::{listed, HiddenList};

/// `digest` with the hidden parts of the messages `plan` summarizes or drops. `history`: the
/// planned messages; `caller(i)`: the store id of planned message `i` and its index in the
/// caller's array (`None` for a message the Compactor made, a memo's head).
pub fn with_hidden<V>(
    digest: Value,
    store: &MessageStore<V>,
    history: &[Message],
    plan: &Plan,
    caller: impl Fn(usize) -> Option<(u32, usize)>,
) -> Value {
    let hiding = plan
        .dispositions
        .iter()
        .enumerate()
        .filter(|(_, d)| listed(d))
        .filter_map(|(i, _)| {
            let (id, index) = caller(i)?;
            let stored = store.get(id)?;
            (!stored.hidden.is_empty()).then_some((index, stored))
        })
        .collect::<Vec<_>>();
    // Without any, the list (which indexes the history's tool calls) is not built.
    if hiding.is_empty() {
        return digest;
    }
    let mut list = HiddenList::new(history);
    for (index, stored) in hiding {
        for &part in &stored.hidden {
            let p = stored.message.parts.get(part);
            let Some(replacement) = p.and_then(replacement_of) else {
                continue;
            };
            list.push(("message", Value::from(index)), part, p, replacement);
        }
    }
    list.into_digest(digest)
}
