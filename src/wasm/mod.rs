//! The only JS-aware code: exported functions and classes, the error helper and the hooks that the
//! package's JS entry points register at load time.

pub mod compactor;
pub mod continuing;
pub mod convert;
pub mod driven;
pub mod env;
pub mod error;
pub mod functions;
pub mod heap;
pub mod identity;
pub mod on_demand;
pub mod options;
pub mod overflow;
pub mod pieces;
pub mod plain;
pub mod session;
pub mod session_compact;
pub mod session_file;
pub mod session_store;
pub mod tokens;
