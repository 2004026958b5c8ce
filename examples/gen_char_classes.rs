//! Writes `src/core/tokens/split/table.rs`, the character classes of the tiktoken pre-tokenizers,
//! from regex-syntax's own Unicode tables (the ones fancy-regex, and so tiktoken, matches with):
//!
//! ```sh
//! cargo run --example gen_char_classes > src/core/tokens/split/table.rs && cargo fmt
//! ```
//!
//! `tests/tokens_classes.rs` checks that the committed table is what this prints.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    print!("{}", classes::render());
}

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
#[path = "../tests/common/char_classes.rs"]
mod classes;
