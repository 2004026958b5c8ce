//! The `maybeCompact` continuation: a framework such as the AI SDK hands `prepareStep` the whole
//! history on every step, the compacted part included. After an automatic compaction, a later call
//! whose messages start with exactly the messages it replaced (and hold something after them)
//! continues from the compaction's head (system messages, summary, pinned messages) instead of
//! summarizing again.

use serde_json::{json, Value};

use crate::core::error::{Error, Result};
use crate::core::estimate::message_key;
use crate::core::message::Message;

/// The digest of a run of messages: FNV-1a over their content keys (what `message_key` reads:
/// role, text, tool names, ids, inputs, outputs), so a later process can tell whether a call
/// starts with the messages a stored compaction replaced without having them.
pub fn prefix_digest<'a>(messages: impl IntoIterator<Item = &'a Message>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |x: u64| {
        for b in x.to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    for m in messages {
        let k = message_key(m);
        eat(k.hash);
        eat(k.bytes as u64);
    }
    h
}

/// The last automatic compaction as a store keeps it for a later process: how many of the
/// caller's messages it replaced and their digest, and the head that stands for them (the
/// caller's format); like a Session's compaction entry, how many messages it kept after them
/// (`keepLastMessages`), when it was made (`timestamp`, ISO 8601) and its summary's digest
/// (`summaryDigest`). One `memo` line of a compactor's log in the store; a line without the last
/// three (written before they were) reads as keeping nothing, at no time, with a null digest.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredMemo {
    /// The message format of the head.
    pub format: String,
    /// How many leading caller messages the head stands for.
    pub replaced: usize,
    /// Their [`prefix_digest`].
    pub digest: u64,
    /// System messages, the summary block and pinned messages, in the caller's format.
    pub head: Vec<Value>,
    /// How many caller messages it kept after the replaced ones.
    pub keep_last_messages: usize,
    /// When it was made (ISO 8601, milliseconds, UTC).
    pub timestamp: Option<String>,
    /// The summary's digest (null without a summary).
    pub summary_digest: Value,
}

impl StoredMemo {
    /// The header line of a compactor's log in a store.
    pub fn header_line(format: &str) -> String {
        json!({"type": "compactor", "version": 1, "format": format}).to_string()
    }

    /// The memo as one log line with entry id `id`.
    pub fn to_line(&self, id: &str) -> String {
        json!({
            "type": "memo",
            "id": id,
            "format": self.format,
            "replaced": self.replaced,
            "digest": format!("{:016x}", self.digest),
            "head": self.head,
            "keepLastMessages": self.keep_last_messages,
            "timestamp": self.timestamp,
            "summaryDigest": self.summary_digest,
        })
        .to_string()
    }

    /// Reads a memo line; `INVALID_INPUT` naming the field for anything else.
    pub fn read(line: &str) -> Result<StoredMemo> {
        let bad = |field: &str, what: &str| {
            Error::invalid_input(format!("memo.{field}"), what.to_string())
        };
        let v: Value =
            serde_json::from_str(line).map_err(|e| bad("line", &format!("not JSON: {e}")))?;
        if v.get("type").and_then(Value::as_str) != Some("memo") {
            return Err(bad("type", "a compactor's log holds memo lines"));
        }
        let format = v
            .get("format")
            .and_then(Value::as_str)
            .ok_or_else(|| bad("format", "must name the message format"))?
            .to_string();
        let replaced = v
            .get("replaced")
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| bad("replaced", "must be a count"))?;
        let digest = v
            .get("digest")
            .and_then(Value::as_str)
            .and_then(|d| u64::from_str_radix(d, 16).ok())
            .ok_or_else(|| bad("digest", "must be 16 hex digits"))?;
        let head = v
            .get("head")
            .and_then(Value::as_array)
            .cloned()
            .ok_or_else(|| bad("head", "must be an array of messages"))?;
        let keep_last_messages = match v.get("keepLastMessages") {
            None | Some(Value::Null) => 0,
            Some(n) => n
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| bad("keepLastMessages", "must be a count"))?,
        };
        let timestamp = match v.get("timestamp") {
            None | Some(Value::Null) => None,
            Some(Value::String(t)) => Some(t.clone()),
            Some(_) => return Err(bad("timestamp", "must be an ISO 8601 string")),
        };
        Ok(StoredMemo {
            format,
            replaced,
            digest,
            head,
            keep_last_messages,
            timestamp,
            summary_digest: v.get("summaryDigest").cloned().unwrap_or(Value::Null),
        })
    }
}

/// How many leading messages of a call the last compaction replaced, when the call starts with
/// exactly them: `replaced` messages, `len` in the call, `same(i)` whether message `i` is the
/// replaced one. `None` when it does not continue (or holds nothing after them).
pub fn continuation(replaced: usize, len: usize, same: impl Fn(usize) -> bool) -> Option<usize> {
    (len > replaced && (0..replaced).all(same)).then_some(replaced)
}

/// How many of the caller's messages a compaction replaced: those before its first kept message
/// `first_kept` (an index into the compacted history). When that history continued an earlier
/// compaction (`Some((prefix_len, head_len))`: its first `head_len` messages stood for the caller's
/// first `prefix_len`), the count is in the caller's messages. `None` when the kept tail starts
/// inside the head.
pub fn replaced_upto(first_kept: usize, continued: Option<(usize, usize)>) -> Option<usize> {
    match continued {
        None => Some(first_kept),
        Some((prefix_len, head_len)) => first_kept
            .checked_sub(head_len)
            .map(|extra| prefix_len + extra),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continues_only_past_exactly_the_replaced_prefix() {
        assert_eq!(continuation(3, 5, |_| true), Some(3));
        assert_eq!(
            continuation(3, 3, |_| true),
            None,
            "nothing after the prefix"
        );
        assert_eq!(continuation(3, 5, |i| i != 1), None);
        assert_eq!(continuation(0, 1, |_| false), Some(0));
        assert_eq!(replaced_upto(4, None), Some(4));
        assert_eq!(replaced_upto(4, Some((10, 2))), Some(12));
        assert_eq!(replaced_upto(1, Some((10, 2))), None);
    }

    #[test]
    fn a_stored_memo_reads_back_and_its_digest_follows_the_content() {
        use crate::core::message::Role;
        let a = [
            Message::text(Role::User, "a"),
            Message::text(Role::Assistant, "b"),
        ];
        let b = [
            Message::text(Role::User, "a"),
            Message::text(Role::Assistant, "c"),
        ];
        assert_eq!(prefix_digest(&a), prefix_digest(&a.clone()));
        assert_ne!(prefix_digest(&a), prefix_digest(&b));
        assert_ne!(prefix_digest(&a[..1]), prefix_digest(&a));
        let memo = StoredMemo {
            format: "openai".into(),
            replaced: 2,
            digest: prefix_digest(&a),
            head: vec![serde_json::json!({"role": "user", "content": "summary"})],
            keep_last_messages: 3,
            timestamp: Some("2026-02-12T09:30:00.000Z".into()),
            summary_digest: serde_json::json!({"filesRead": ["a.rs"]}),
        };
        assert_eq!(StoredMemo::read(&memo.to_line("m1")).ok(), Some(memo));
        // A line written before the record carried them: keeps nothing, no time, no digest.
        let old = StoredMemo::read(
            r#"{"type":"memo","format":"x","replaced":1,"digest":"00000000000000ff","head":[]}"#,
        )
        .map(|m| (m.keep_last_messages, m.timestamp, m.summary_digest));
        assert_eq!(old.ok(), Some((0, None, serde_json::Value::Null)));
        for bad in [
            "{}",
            "nope",
            r#"{"type":"memo","format":"x","replaced":-1,"digest":"0","head":[]}"#,
            r#"{"type":"memo","format":"x","replaced":1,"digest":"00000000000000ff","head":[],"keepLastMessages":-2}"#,
            r#"{"type":"memo","format":"x","replaced":1,"digest":"00000000000000ff","head":[],"timestamp":5}"#,
        ] {
            assert!(StoredMemo::read(bad).is_err(), "{bad}");
        }
    }
}
