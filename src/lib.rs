//! context-compaction: keeps long LLM-agent conversations inside the model's context window.
//!
//! `core` is pure Rust (tested natively), `formats` converts the message formats people have,
//! and `wasm` is the only JS-aware layer (compiled for `wasm32` alone).

pub mod core;
pub mod formats;
#[cfg(target_arch = "wasm32")]
pub mod wasm;
