//! The JSON results the binding hands to JS, built here so that their field names are pinned by
//! native tests: the reading calls of a `Compactor` and a `Session` (`plan()` with its `cost`,
//! `check()`, `estimate()`, the self-calibration; [`handles`]), and the free functions, the
//! summarizer's request and the result of a call that changed nothing ([`functions`]).

pub mod functions;
pub mod handles;

pub use functions::*;
pub use handles::*;
