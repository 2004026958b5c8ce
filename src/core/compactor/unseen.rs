//! Importing the messages of a call that a `Compactor`'s store does not hold
//! ([`MessageStore::unknown`]): each is read from the caller's array first (a read that fails is
//! `INVALID_INPUT` at `messages[i]`, and nothing is imported); then they are converted in batches
//! of at most [`BATCH_MAX`], each imported before the next is converted. A batch of at least
//! [`BATCH`] messages is converted together (one crossing into wasm) when the binding can; else,
//! or when that conversion declines, each message is converted alone, so that an error names the
//! message's own path.

use serde_json::Value;

use super::store::{BATCH, BATCH_MAX};
use super::MessageStore;
use crate::core::error::{Error, Result};
use crate::core::estimate::Estimator;
use crate::core::message::Message;

/// How the binding reads and converts the caller's messages (`T`: one caller's value).
pub struct Reader<R, B, O> {
    /// The caller's message `i`; `None` when reading it failed.
    pub read: R,
    /// The JSON of a batch of `(i, value)`, converted together; `None` when it cannot be (each
    /// is then converted alone).
    pub batch: B,
    /// The JSON of message `i`, converted alone (an error names `messages[i]`).
    pub one: O,
}

impl<V> MessageStore<V> {
    /// Imports the messages of a call whose `ids` (0: an object never seen) the store does not
    /// hold (see the module documentation) with `import` (the format's importer), setting their
    /// new ids in `ids`; `stored(value, id)` is told of each as it is stored.
    pub fn import_unseen<T, R, B, O>(
        &mut self,
        ids: &mut [u32],
        reader: Reader<R, B, O>,
        import: fn(&Value, &str) -> Result<Message>,
        estimator: &Estimator,
        mut stored: impl FnMut(&T, u32),
    ) -> Result<()>
    where
        R: Fn(usize) -> Option<T>,
        B: Fn(&[(usize, T)]) -> Option<Vec<Value>>,
        O: Fn(usize, &T) -> Result<Value>,
    {
        let read = |i: usize| {
            let e = || Error::invalid_input(format!("messages[{i}]"), "reading it threw");
            (reader.read)(i).map(|v| (i, v)).ok_or_else(e)
        };
        let unseen = (self.unknown(ids).into_iter().map(read)).collect::<Result<Vec<_>>>()?;
        for chunk in unseen.chunks(BATCH_MAX) {
            let batch = (chunk.len() >= BATCH)
                .then(|| (reader.batch)(chunk))
                .flatten();
            let mut batch = batch.filter(|b| b.len() == chunk.len()).map(Vec::into_iter);
            for (i, value) in chunk {
                let json = match batch.as_mut().and_then(Iterator::next) {
                    Some(json) => json,
                    None => (reader.one)(*i, value)?,
                };
                let id = self.import(*i, &json, import, estimator)?;
                stored(value, id);
                if let Some(slot) = ids.get_mut(*i) {
                    *slot = id;
                }
            }
        }
        Ok(())
    }
}
