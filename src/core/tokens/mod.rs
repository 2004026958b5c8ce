//! Token counting: the fast heuristic estimate and exact counts from tiktoken rank tables.

pub mod bpe;
pub mod encoding;
pub mod heuristic;
pub mod registry;

pub use encoding::{Encoding, EncodingName};
pub use registry::EncodingRegistry;
