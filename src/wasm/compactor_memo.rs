//! The steps of a `Compactor` given a store (js/stored-compactor.mjs): its last automatic
//! compaction as a line a later process reads back, and seeding the continuation from such a line,
//! so a fresh process handed the same history plus new messages continues from the stored summary
//! instead of summarizing again. The line is `formats::memo_line`'s, the memo
//! `core::compactor::Memo`. Not API: the names start with `__`.

use wasm_bindgen::prelude::*;

use super::compactor::Compactor;
use super::convert::to_js;
use super::error::throw;
use super::options::estimator_for;
use crate::core::driver::StoredMemo;
use crate::formats::memo_line::{memo_line, memo_of_line};

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
        Ok(self.inner.quick(&messages)?.1.decision.should_compact)
    }

    /// The header line of a compactor's log in a store, for messages in `format`.
    #[wasm_bindgen(js_name = __memoHeader, skip_typescript)]
    pub fn memo_header(&self) -> Option<String> {
        let state = self.inner.state.borrow();
        Some(StoredMemo::header_line(
            state.memo.as_ref()?.format.as_str(),
        ))
    }

    /// The last automatic compaction made here as a memo line with entry id `id` (`undefined`
    /// when there is none, or when it was read from a store).
    #[wasm_bindgen(js_name = __memoRecord, skip_typescript)]
    pub fn memo_record(&self, id: String) -> Option<String> {
        memo_line(self.inner.state.borrow().memo.as_ref()?, &id)
    }

    /// Continues from a stored memo line: a call whose first messages have the memo's digest
    /// continues from its head.
    #[wasm_bindgen(js_name = __memoSeed, skip_typescript)]
    pub fn memo_seed(&self, line: String) -> Result<(), JsValue> {
        let estimator = estimator_for(&self.inner.options)?;
        let mut state = self.inner.state.borrow_mut();
        let memo = throw(memo_of_line(
            &line,
            &state.recognizer,
            &estimator,
            to_js::<serde_json::Value>,
        ))?;
        state.memo = Some(memo);
        Ok(())
    }
}
