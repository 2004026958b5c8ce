//! A history held as JSON messages read one at a time, as `trimMessages` reads the caller's array
//! (the binding hands over message `i`'s JSON when the rules first ask for it): a [`TrimSource`]
//! that imports each message with its format's importer, counts it with an estimator, and names
//! the possible holders of a tool id from the hashed index of every string under an `id` key
//! ([`crate::core::plain_data::holders`]).

use std::borrow::Cow;

use serde_json::Value;

use super::TrimSource;
use crate::core::error::Result;
use crate::core::estimate::Estimator;
use crate::core::message::Message;
use crate::core::plain_data::holders;

/// Messages read as JSON on demand (see the module documentation).
pub struct JsonSource<'e, R> {
    /// How many messages the history holds.
    pub len: usize,
    /// Message `i`'s JSON (`read(i, path)`, with `path` naming it in errors: `messages[i]`).
    pub read: R,
    /// The format's importer.
    pub import: fn(&Value, &str) -> Result<Message>,
    /// Counts each message read.
    pub estimator: &'e Estimator,
    /// `[hash, index]` pairs, sorted, of every string under an `id` key the messages hold.
    pub ids: &'e [u32],
}

impl<R: Fn(usize, &str) -> Result<Value>> TrimSource<'static> for JsonSource<'_, R> {
    fn len(&self) -> usize {
        self.len
    }

    fn read(&self, index: usize) -> Result<Cow<'static, Message>> {
        let path = format!("messages[{index}]");
        let json = (self.read)(index, &path)?;
        (self.import)(&json, &path).map(Cow::Owned)
    }

    fn tokens(&self, _index: usize, message: &Message) -> usize {
        self.estimator.estimate_message(message).total()
    }

    fn holders(&self, id: &str) -> Vec<usize> {
        holders(self.ids, id)
    }
}
