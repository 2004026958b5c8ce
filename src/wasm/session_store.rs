//! The steps a store-backed `Session` (js/stored-session.mjs) runs: what the store does not hold
//! yet, marking it stored, and merging lines other writers stored. The rules and results are the
//! core's (`core::session::shared`, `core::session::results`, `formats::session_handle`, which
//! keeps the caller's objects with their entries in the merged log); this file converts values.
//! Not API: the names start with `__`.

use wasm_bindgen::prelude::*;

use super::convert::to_js;
use super::error::throw;
use super::session::Session;
use crate::core::session::results;

#[wasm_bindgen]
impl Session {
    /// Tags the ids of new entries, so that writers sharing the log never make the same id.
    #[wasm_bindgen(js_name = __storeAttach, skip_typescript)]
    pub fn store_attach(&self, tag: String) {
        self.inner.state.borrow_mut().attach(tag);
    }

    /// `{ header?, lines: [{ id, line }], live?, liveEpoch? }`: what the store does not hold yet.
    #[wasm_bindgen(js_name = __storePending, skip_typescript)]
    pub fn store_pending(&self) -> JsValue {
        to_js(&results::pending(self.inner.state.borrow().core.as_ref()))
    }

    /// Records that the store holds the header and the first `count` pending lines (and the
    /// live set of change `live_epoch`, when given).
    #[wasm_bindgen(js_name = __storeMarked, skip_typescript)]
    pub fn store_marked(&self, count: u32, live_epoch: Option<f64>) {
        let mut state = self.inner.state.borrow_mut();
        state.mark_stored(count as usize, live_epoch);
    }

    /// After an instance reset (js/guard.mjs): the session read back from the old one's log
    /// again has `entries` pending lines, and a pending header and live set when asked.
    #[wasm_bindgen(js_name = __storeRestore, skip_typescript)]
    pub fn store_restore(&self, entries: u32, header: bool, live: bool) {
        let mut state = self.inner.state.borrow_mut();
        state.restore_pending(entries as usize, header, live);
    }

    /// Merges the lines other writers stored after this session's (`header` is the store's):
    /// `{ merged, dropped: [{ id, type }] }`.
    #[wasm_bindgen(js_name = __storeMerge, skip_typescript)]
    pub fn store_merge(&self, header: String, lines: Vec<String>) -> Result<JsValue, JsValue> {
        let inner = &self.inner;
        let mut state = inner.state.borrow_mut();
        // A session made by the merge (none yet) needs its configuration.
        let config = state.core.is_none().then(|| inner.config()).transpose()?;
        Ok(to_js(&throw(state.merge(header, lines, config))?))
    }
}
