//! Summaries: what the summarizer is asked and how its answers become the summary.
//!
//! - [`transcript`] serializes the summarized messages (numbered, reasoning left out, tool outputs
//!   cut, a tool allow-list, images as placeholders).
//! - [`trim`] cuts long tool outputs and inputs and refers repeated outputs to their first
//!   occurrence in the transcript (`transcript.trim`).
//! - [`prompt`] holds the default prompt templates and renders them; [`preset_prompts`] the
//!   presets' own.
//! - [`answer`] makes an answer into summary text (Claude Code's `<analysis>` scratchpad dropped).
//! - [`recognize`] writes a summary into its message and recognizes earlier summaries and their
//!   rounds.
//! - [`digest`] extracts files, commands, errors and user requests without a model and appends
//!   what the model's summary missed.
//! - [`error_line`] picks the line of an error output that names the error.
//! - [`pending`] finds the agent's latest plan or to-do state.
//! - [`retention`] reports how many of the digest's facts a summary keeps, and which it lost.
//! - [`extractive`] writes a summary without a model (from the digest), for `summarize:
//!   "extractive"` and as the fallback when the summarizer fails.
//! - [`pieces`] builds the pieces of one compaction (history, split-turn prefix, their chunks),
//!   for the job and the cost forecast alike.
//! - [`chunk`] cuts a transcript too large for one request into chunks.
//! - [`mode`] the two request shapes ([`SummaryMode`]).
//! - [`continuation`] the instruction and cache markers of a request that
//!   continues the conversation.
//! - [`job`] drives the summarizer calls of one compaction (history and split-turn prefix in
//!   parallel, chunks in sequence, a rollup) and validates every answer.
//!
//! Pure Rust and sans-IO: nothing here calls a model; the caller runs the requests.

pub mod answer;
pub mod chunk;
pub mod continuation;
pub mod digest;
pub mod error_line;
pub mod extractive;
pub mod hidden_list;
pub mod job;
pub mod mode;
pub mod pending;
pub mod pieces;
pub mod preset_prompts;
pub mod prompt;
pub mod recognize;
pub mod retention;
pub mod transcript;
pub mod trim;

pub use digest::{append_to, Digest, APPENDED_HEADING};
pub use job::{is_blank, Finished, PieceId, PieceRequest, Purpose, SummaryJob};
pub use mode::SummaryMode;
pub use prompt::{default_turn_context, render, Templates, TURN_CONTEXT_HEADING};
pub use recognize::{wrap, Recognizer};
pub use transcript::{serialize, tool_allowed};
