//! Token counting: the fast heuristic estimate and exact counts from tiktoken rank tables.

pub mod bpe;
pub mod encoding;
pub mod heuristic;
pub mod huge;
pub mod loaded;
pub mod ranks;
pub mod registry;
pub mod split;
pub mod table_file;

pub use encoding::{Encoding, EncodingName};
pub use registry::EncodingRegistry;
