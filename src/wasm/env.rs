//! Hooks registered once by the package's JS entry point: the `CompactionError` class, and (in
//! Node) a synchronous loader that reads a rank table from the package directory on first use.

use js_sys::Function;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

thread_local! {
    static ERROR_CLASS: RefCell<Option<Function>> = const { RefCell::new(None) };
    static ENCODING_LOADER: RefCell<Option<Function>> = const { RefCell::new(None) };
}

/// Registers the entry point's hooks. Internal: called by the package's own JS, not by users.
#[wasm_bindgen(js_name = "__configure", skip_typescript)]
pub fn configure(error_class: Function, encoding_loader: Option<Function>) {
    // Debug builds print a panic's message to the console before the trap (release builds stay
    // small; the JS guard turns the trap into an `INTERNAL` error either way).
    #[cfg(debug_assertions)]
    console_error_panic_hook::set_once();
    ERROR_CLASS.with(|c| *c.borrow_mut() = Some(error_class));
    ENCODING_LOADER.with(|l| *l.borrow_mut() = encoding_loader);
}

/// The registered `CompactionError` class, if any.
pub fn error_class() -> Option<Function> {
    ERROR_CLASS.with(|c| c.borrow().clone())
}

/// The registered synchronous rank-table loader, if any (Node only).
pub fn encoding_loader() -> Option<Function> {
    ENCODING_LOADER.with(|l| l.borrow().clone())
}

/// Traps on purpose (the wasm `unreachable` instruction). Internal: the package's tests use it to
/// check that a trap resets the instance; the entry points do not export it to users.
#[wasm_bindgen(js_name = "__trap", skip_typescript)]
pub fn trap() {
    core::arch::wasm32::unreachable();
}
