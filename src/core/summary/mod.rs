//! Summaries: what the summarizer is asked and how its answers become the summary.
//!
//! - [`transcript`] serializes the summarized messages (numbered, reasoning left out, tool outputs
//!   cut, a tool allow-list, images as placeholders).
//! - [`prompt`] holds the default prompt templates and renders them; [`preset_prompts`] the
//!   presets' own.
//! - [`recognize`] writes a summary into its message and recognizes earlier summaries and their
//!   rounds.
//! - [`digest`] extracts files, commands, errors and user requests without a model and appends
//!   what the model's summary missed.
//! - [`extractive`] writes a summary without a model (from the digest), for `summarize:
//!   "extractive"` and as the fallback when the summarizer fails.
//! - [`chunk`] cuts a transcript too large for one request into chunks.
//! - [`continuation`] the request modes, and the instruction and cache markers of a request that
//!   continues the conversation.
//! - [`job`] drives the summarizer calls of one compaction (history and split-turn prefix in
//!   parallel, chunks in sequence, a rollup) and validates every answer.
//!
//! Pure Rust and sans-IO: nothing here calls a model; the caller runs the requests.

pub mod chunk;
pub mod continuation;
pub mod digest;
pub mod extractive;
pub mod job;
pub mod preset_prompts;
pub mod prompt;
pub mod recognize;
pub mod transcript;

pub use continuation::SummaryMode;
pub use digest::{append_to, Digest, APPENDED_HEADING};
pub use job::{
    is_blank, Finished, PieceId, PieceRequest, Purpose, SummaryJob, TURN_CONTEXT_HEADING,
};
pub use prompt::{render, Templates};
pub use recognize::{wrap, Recognizer};
pub use transcript::{serialize, tool_allowed};
