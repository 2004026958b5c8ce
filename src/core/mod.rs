//! The engine: pure Rust, never imports wasm-bindgen, js-sys or serde-wasm-bindgen.

pub mod cost;
pub mod cut;
pub mod driver;
pub mod error;
pub mod estimate;
pub mod format;
pub mod message;
pub mod models;
pub mod options;
pub mod overflow;
pub mod pipeline;
pub mod plan;
pub mod prepare;
pub mod preset;
pub mod prune;
pub mod render;
pub mod repair;
pub mod session;
pub mod settings;
pub mod summary;
pub mod surrogates;
pub mod tokens;
pub mod trigger;
pub mod trim;
pub mod validate;
