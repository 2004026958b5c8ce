//! The steps of a `Compactor` given a store (js/stored-compactor.mjs): its last automatic
//! compaction as a line a later process reads back, and seeding the continuation from such a line,
//! so a fresh process handed the same history plus new messages continues from the stored summary
//! instead of summarizing again. The record's format and digest are the core's
//! (`core::driver::memo`), the memo itself `core::compactor::Memo`. Not API: the names start with `__`.

use wasm_bindgen::prelude::*;

use super::compactor::Compactor;
use super::convert::to_js;
use super::error::throw;
use crate::core::compactor::{Memo, MemoRecord};
use crate::core::driver::StoredMemo;
use crate::core::error::Error;
use crate::formats::{Codec, Format};

#[wasm_bindgen]
impl Compactor {
    /// Counts the automatic compactions remembered here (a change means a new record).
    #[wasm_bindgen(js_name = __memoEpoch, skip_typescript)]
    pub fn memo_epoch(&self) -> f64 {
        self.inner.state.borrow().memo_epoch as f64
    }

    /// Whether `maybeCompact(messages)` would compact now (continuing from the last compaction,
    /// from cached counts): a store-backed Compactor takes the store's lease first.
    #[wasm_bindgen(js_name = __wouldCompact, skip_typescript)]
    pub fn would_compact(&self, messages: JsValue) -> Result<bool, JsValue> {
        Ok(self.inner.quick(&messages)?.should_compact)
    }

    /// The header line of a compactor's log in a store, for messages in `format`.
    #[wasm_bindgen(js_name = __memoHeader, skip_typescript)]
    pub fn memo_header(&self) -> Option<String> {
        let state = self.inner.state.borrow();
        let memo = state.memo.as_ref()?;
        Some(StoredMemo::header_line(memo.format.as_str()))
    }

    /// The last automatic compaction made here as a memo line with entry id `id` (`undefined`
    /// when there is none, or when it was read from a store).
    #[wasm_bindgen(js_name = __memoRecord, skip_typescript)]
    pub fn memo_record(&self, id: String) -> Option<String> {
        let state = self.inner.state.borrow();
        let memo = state.memo.as_ref()?;
        let (replaced, digest) = memo.record()?;
        let record = StoredMemo {
            format: memo.format.as_str().to_string(),
            replaced,
            digest,
            head: memo.format.export(&memo.head),
            keep_last_messages: memo.kept(),
            timestamp: memo
                .about
                .timestamp
                .map(crate::core::message::format_iso8601_millis),
            summary_digest: memo.about.digest.clone(),
        };
        Some(record.to_line(&id))
    }

    /// Continues from a stored memo line: a call whose first messages have the memo's digest
    /// continues from its head.
    #[wasm_bindgen(js_name = __memoSeed, skip_typescript)]
    pub fn memo_seed(&self, line: String) -> Result<(), JsValue> {
        let record = throw(StoredMemo::read(&line))?;
        let format = throw(Format::parse(&record.format))?.ok_or_else(|| {
            super::error::to_js(
                &Error::invalid_input("memo.format", "must name a message format"),
                None,
            )
        })?;
        let import = crate::formats::message_importer(format);
        let mut head = record
            .head
            .iter()
            .enumerate()
            .map(|(i, v)| import(v, &format!("memo.head[{i}]")))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| super::error::to_js(&e, None))?;
        // The summary is marked as it was when the head was made: at its head.
        self.inner.recognizer.mark_leading(&mut head);
        let head_js = record.head.iter().map(to_js).collect();
        let estimator = self.inner.estimator()?;
        let stored = Some((record.replaced, record.digest));
        let about = MemoRecord {
            kept: record.keep_last_messages,
            timestamp: record
                .timestamp
                .as_deref()
                .and_then(crate::core::message::parse_iso8601_millis),
            digest: record.summary_digest,
        };
        let memo = Memo::new(
            format,
            Default::default(),
            (head, head_js),
            stored,
            about,
            &estimator,
        );
        self.inner.state.borrow_mut().memo = Some(memo);
        Ok(())
    }
}
