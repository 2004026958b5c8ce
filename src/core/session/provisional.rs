//! The format of a session made without one (docs/session.md, "The message format").
//!
//! Plain text (`{ role, content: string }`) reads the same in the AI SDK, OpenAI and Anthropic
//! formats, so a first append holding only that does not show the format: the session takes it
//! as `ai-sdk` provisionally. The first append whose messages show their format (a marker of
//! `formats::detect`) decides it:
//! - the same format: it is simply decided;
//! - another one, while the header has not been given out: the messages logged so far are read
//!   again from their logged form under that format and must read the same (the same content
//!   key: role, text, tool names, ids, inputs, outputs); the header then names it. A message that
//!   does not read the same, or does not read at all, refuses the append;
//! - another one after the header was given out (`flush()`, `toJSONL()`, a store's write): the
//!   append is refused, since a reader of that header would read the new messages under the
//!   wrong format.
//!
//! Every refusal is `INVALID_INPUT` at the appended message that showed the format, telling the
//! caller to pass `format`; nothing changes.

use std::cell::Cell;

use crate::core::error::{Error, Result};
use crate::core::estimate::message_key;

use super::entry::{EntryKind, Header};
use super::{Import, Session};

/// A session whose format is provisional: whether its header was given out since it was made.
#[derive(Clone, Debug, Default)]
pub struct Provisional {
    given_out: Cell<bool>,
}

impl Session {
    /// Marks the session's format as provisional (taken from plain text, not shown by it).
    pub fn set_provisional(&mut self) {
        self.provisional = Some(Provisional::default());
    }

    /// True when the session's format was given or shown by its messages.
    pub fn format_decided(&self) -> bool {
        self.provisional.is_none()
    }

    /// Records that the header was given out (written for a reader).
    pub(super) fn header_given_out(&self) {
        if let Some(p) = &self.provisional {
            p.given_out.set(true);
        }
    }

    /// Decides the format: `format` was shown by appended message `at` (its index in the append);
    /// `import` reads a message of that format. See the module documentation for the rule.
    pub fn decide_format(&mut self, format: &str, at: usize, import: Import<'_>) -> Result<()> {
        let Some(p) = &self.provisional else {
            return self.expect_format(format);
        };
        if self.header.format == format {
            self.provisional = None;
            return Ok(());
        }
        let path = format!("messages[{at}]");
        let refuse = |why: String| {
            Error::invalid_input(
                path.clone(),
                format!(
                    "this message is {format}, but the session took its earlier plain-text \
                     messages as {} {why}; pass `format` when you make the session",
                    self.header.format
                ),
            )
        };
        if p.given_out.get() {
            return Err(refuse(
                "and its header naming that format was already written (flush, toJSONL or a store)"
                    .into(),
            ));
        }
        for (i, e) in self.log.iter().enumerate() {
            let EntryKind::Message(m) = &e.kind else {
                continue;
            };
            let Some(original) = &m.original else {
                continue;
            };
            let again =
                import(&original.to_value(), &format!("log[{i}].message")).map_err(|e| {
                    refuse(format!(
                        "and entry {i} does not read as {format}: {}",
                        e.message
                    ))
                })?;
            if message_key(&again) != message_key(m) {
                return Err(refuse(format!(
                    "and entry {i} reads differently as {format}"
                )));
            }
        }
        let branched = self.header.branched_from.clone();
        self.header = Header::new(self.header.id.clone(), format.to_string(), branched);
        self.provisional = None;
        Ok(())
    }
}
