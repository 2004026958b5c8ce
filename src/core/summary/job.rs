//! The summarizer calls of one compaction as a sans-IO state machine.
//!
//! [`SummaryJob::next`] hands out the requests that may run now, the caller runs them (in parallel
//! when several are handed out) and gives each answer to [`SummaryJob::submit`]; when `next`
//! returns nothing and [`SummaryJob::is_done`] holds, [`SummaryJob::finish`] assembles the summary.
//!
//! Pieces (built by [`super::pieces`], which the cost forecast shares). The history (messages planned `Summarize`, without the earlier summary, which travels
//! as `previous_summary`, and without messages before it, which it already covers) and the prefix
//! of a split turn (`TurnPrefix`) are two independent lanes that run in parallel. Each lane's
//! transcript is cut into chunks at message boundaries when it exceeds `settings.chunk_chars`
//! characters (with `settings.chunk_by_window`: when the request would not fit the summarizer's
//! window, see [`WindowCapacity`]) or, when set, `settings.summarizer_input_tokens` tokens (a single message larger
//! than that is cut itself); the chunks of a lane run in sequence, each given the answer to the
//! previous chunk as `previous_summary` (the first history chunk gets the earlier summary). When
//! the history's final answer exceeds `settings.rollup_tokens` tokens (a preset's own threshold,
//! such as seed 004's 80,000, or the summary budget), one rollup request condenses it.
//!
//! Validation of an answer: empty or whitespace → `SUMMARY_EMPTY`; estimated tokens not smaller
//! than those of what it replaces (the piece's transcript, without overlap messages, plus the
//! `previous_summary` it was given) and, except for a rollup, more than the request's `max_tokens`
//! → `NO_PROGRESS`. When the history's prompts show the workstream state (`{state}`, seed 004), an
//! answer may end with a state delta after its marker line: it is taken out of the summary
//! ([`SummaryJob::take_state_deltas`]), and one that is not a valid delta is `SUMMARIZER_FAILED`. A rejected answer leaves the piece
//! outstanding: it may be retried and submitted again. When a rollup still fails after its retries,
//! [`SummaryJob::skip_rollup`] keeps the summary it was given, which `finish` cuts to its cap: a
//! compaction never fails because its own summary grew.
//!
//! The finished summary never exceeds its cap (the larger of the summary budget and the rollup
//! threshold, plus the split-turn budget): it is cut with a marker if the model outgrew it, and
//! the digest items it missed are appended only as far as they fit.

use std::rc::Rc;

use crate::core::error::{Error, ErrorCode, Result};
use crate::core::message::Message;
use crate::core::plan::Plan;
use crate::core::settings::Settings;

use super::chunk::Chunk;
use super::digest::{append_within, Digest};
use super::pieces::{pieces, Pieces};
use super::prompt::{render, Templates, NONE};
use super::transcript::truncate_plain;

/// True when `text` shows nothing: only whitespace, zero-width characters (U+200B–U+200D, U+2060,
/// U+FEFF) or other control and format characters. Such a summary is `SUMMARY_EMPTY`.
pub fn is_blank(text: &str) -> bool {
    text.chars().all(|c| {
        c.is_whitespace()
            || c.is_control()
            || matches!(c, '\u{200B}'..='\u{200F}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}' | '\u{00AD}')
    })
}

/// The marker ending a summary cut to its cap.
pub const CUT_MARKER: &str = "\n[... summary cut to its token budget]";

/// `text` cut (on a character boundary, with [`CUT_MARKER`]) to at most `max_tokens`.
fn fit(text: &str, max_tokens: usize, estimate: &dyn Fn(&str) -> usize) -> String {
    if estimate(text) <= max_tokens {
        return text.to_string();
    }
    let mut chars = text.chars().count();
    loop {
        chars = chars * 3 / 4;
        let cut = format!("{}{CUT_MARKER}", truncate_plain(text, chars).trim_end());
        if chars == 0 || estimate(&cut) <= max_tokens {
            return cut;
        }
    }
}

/// Identifies one request of a job; unique within the job.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PieceId(pub u32);

/// What a request is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Purpose {
    /// The whole history in one piece.
    History,
    /// The beginning of a split turn (or one chunk of it).
    TurnPrefix,
    /// One chunk of a history too large for one request.
    Chunk,
    /// Condensing a summary longer than its limit.
    Rollup,
}

impl Purpose {
    /// The name the JS callback sees: `history`, `turn-prefix`, `chunk`, `rollup`.
    pub fn as_str(self) -> &'static str {
        match self {
            Purpose::History => "history",
            Purpose::TurnPrefix => "turn-prefix",
            Purpose::Chunk => "chunk",
            Purpose::Rollup => "rollup",
        }
    }
}

/// One call of the summarizer, ready to send.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PieceRequest {
    /// Pass it back to [`SummaryJob::submit`].
    pub id: PieceId,
    /// What the piece is for.
    pub purpose: Purpose,
    /// The rendered system prompt.
    pub system: String,
    /// The rendered user prompt (transcript, previous summary and instructions included).
    pub prompt: String,
    /// The serialized messages of this piece alone (empty for a rollup).
    pub transcript: String,
    /// Indices of the messages this piece covers (a rollup covers the whole history).
    pub message_indices: Vec<usize>,
    /// The summary this piece builds on (for a rollup: the summary to condense).
    pub previous_summary: Option<String>,
    /// The caller's instructions.
    pub instructions: Option<String>,
    /// The token budget of the answer.
    pub max_tokens: usize,
    /// The compaction round.
    pub round: u32,
}

/// The result of a finished job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finished {
    /// The history summary, then a split-turn section when a split turn's prefix was summarized
    /// (introduced by the style's `turn_context`, [`TURN_CONTEXT_HEADING`](super::prompt::TURN_CONTEXT_HEADING) by default), then the digest items the summary missed (see [`append_to`]). When no piece
    /// had anything to show (e.g. an allow-list left every summarized message out) and there is no
    /// earlier summary, it holds only the appended digest, or nothing.
    pub summary: String,
    /// The digest of every summarized message.
    pub digest: Digest,
    /// The part of `digest` that was appended because the model's summary did not mention it.
    pub appended: Digest,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    Chunk(usize),
    Rollup,
    Done,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LaneKind {
    History,
    Prefix,
}

#[derive(Clone, Debug)]
struct Lane {
    kind: LaneKind,
    chunks: Vec<Chunk>,
    indices: Vec<usize>,
    stage: Stage,
    /// The outstanding request, with the tokens its answer must stay below.
    in_flight: Option<(PieceId, usize, usize)>,
    answer: Option<String>,
    rolled_up: bool,
}

impl Lane {
    fn new(kind: LaneKind, chunks: Vec<Chunk>, indices: Vec<usize>) -> Lane {
        let stage = if chunks.is_empty() {
            Stage::Done
        } else {
            Stage::Chunk(0)
        };
        Lane {
            kind,
            chunks,
            indices,
            stage,
            in_flight: None,
            answer: None,
            rolled_up: false,
        }
    }

    fn pieces(&self) -> usize {
        let rollup = usize::from(self.rolled_up || self.stage == Stage::Rollup);
        self.chunks.len() + rollup
    }
}

/// The summarizer calls of one compaction (see the module documentation).
pub struct SummaryJob<'e> {
    estimate: Rc<dyn Fn(&str) -> usize + 'e>,
    templates: Templates,
    instructions: Option<String>,
    previous_summary: Option<String>,
    round: u32,
    summary_tokens: usize,
    prefix_tokens: usize,
    rollup_limit: usize,
    original_task: String,
    state: Option<String>,
    /// Joins the history summary and the split-turn section.
    turn_context: String,
    /// The history's prompts show the workstream state (`{state}`): their answers may end with
    /// a state delta ([`crate::core::session::workstream::split_delta`]).
    asks_state: bool,
    /// The state deltas taken out of answers, in the order they were accepted.
    deltas: Vec<serde_json::Value>,
    /// Tokens of the summary message around the summary text.
    wrapper: usize,
    /// Tokens of what the summary replaces.
    replaced: usize,
    history: Lane,
    prefix: Option<Lane>,
    digest: Digest,
    next_id: u32,
    done: usize,
}

impl<'e> SummaryJob<'e> {
    /// Prepares the pieces of `plan` over `messages`. `previous_summary` is the earlier summary to
    /// build on; when `None` and the plan names an earlier summary message, that message's text
    /// (without `settings.summary.prefix`) is used. `estimate` counts the tokens of a text.
    ///
    /// Errors: `INVALID_INPUT` when the plan does not match the messages or summarizes nothing
    /// (no history, no turn prefix and no earlier summary).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        messages: &[Message],
        plan: &Plan,
        settings: &Settings,
        templates: Templates,
        previous_summary: Option<String>,
        instructions: Option<String>,
        round: u32,
        estimate: &'e dyn Fn(&str) -> usize,
    ) -> Result<SummaryJob<'e>> {
        let estimate: Rc<dyn Fn(&str) -> usize + 'e> = Rc::new(estimate);
        SummaryJob::with_counter(
            messages,
            plan,
            settings,
            templates,
            previous_summary,
            instructions,
            round,
            estimate,
        )
    }

    /// [`SummaryJob::new`] with a counter the job shares instead of borrows (a job that owns its
    /// inputs, like [`crate::core::pipeline::Job`], holds one of these).
    #[allow(clippy::too_many_arguments)]
    pub fn with_counter(
        messages: &[Message],
        plan: &Plan,
        settings: &Settings,
        templates: Templates,
        previous_summary: Option<String>,
        instructions: Option<String>,
        round: u32,
        shared: Rc<dyn Fn(&str) -> usize + 'e>,
    ) -> Result<SummaryJob<'e>> {
        let estimate: &dyn Fn(&str) -> usize = &*shared;
        let Pieces {
            previous_summary,
            history,
            prefix,
            original_task,
            history_chunks,
            prefix_chunks,
        } = pieces(
            messages,
            plan,
            settings,
            &templates,
            previous_summary,
            instructions.as_deref(),
            estimate,
        )?;
        let digest_indices: Vec<usize> = {
            let mut all = history.clone();
            all.extend(&prefix);
            all.sort_unstable();
            all
        };
        let digest = Digest::extract_allowed(
            messages,
            &digest_indices,
            settings.transcript.tool_allow.as_deref(),
        );
        let mut history_lane = Lane::new(LaneKind::History, history_chunks, history);
        let summary_tokens = settings.plan.summary_tokens;
        // What the summary message adds around the summary (prefix, suffix, later-rounds note,
        // question, continue message, per-message overhead): the plan counts the message at the
        // summary budget, so the text must leave room for it.
        let style = &settings.summary;
        let wrapper = estimate(&super::recognize::wrap(style, "", round.max(2)))
            + style.question.as_deref().map_or(0, |q| estimate(q) + 4)
            + style
                .continue_message
                .as_deref()
                .map_or(0, |c| estimate(c) + 4)
            + 4;
        if history_lane.chunks.is_empty() {
            // No new history: the earlier summary stands for it, without a call, unless it is
            // larger than the summary's budget: then one rollup condenses it.
            history_lane.answer = previous_summary.clone();
            let over = previous_summary
                .as_deref()
                .is_some_and(|p| estimate(p) > summary_tokens.saturating_sub(wrapper).max(1));
            if over {
                history_lane.stage = Stage::Rollup;
            }
        }
        let prefix_lane =
            (!prefix.is_empty()).then(|| Lane::new(LaneKind::Prefix, prefix_chunks, prefix));
        // What the summary replaces (its transcripts and the earlier summary): the appended digest
        // never makes the summary larger than that.
        let replaced = history_lane
            .chunks
            .iter()
            .chain(prefix_lane.iter().flat_map(|l| l.chunks.iter()))
            .map(|c| c.replaced_tokens)
            .sum::<usize>()
            + previous_summary.as_deref().map_or(0, estimate);
        let asks_state = [&templates.history, &templates.update, &templates.chunk]
            .iter()
            .any(|t| t.contains("{state}"));
        Ok(SummaryJob {
            estimate: Rc::clone(&shared),
            templates,
            instructions: instructions.filter(|s| !s.trim().is_empty()),
            previous_summary,
            round,
            summary_tokens,
            prefix_tokens: settings.plan.prefix_summary_tokens,
            rollup_limit: settings.rollup_tokens,
            original_task,
            state: None,
            turn_context: settings.summary.turn_context.clone(),
            asks_state,
            deltas: Vec::new(),
            wrapper,
            replaced,
            history: history_lane,
            prefix: prefix_lane,
            digest,
            next_id: 0,
            done: 0,
        })
    }

    /// The requests that may run now: at most one per lane (the history's next chunk and the split
    /// turn's next chunk, in that order), each handed out once. Empty while every lane waits for
    /// an answer, and when the job is done.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Vec<PieceRequest> {
        let mut out = Vec::new();
        if let Some(r) = self.issue(LaneKind::History) {
            out.push(r);
        }
        if let Some(r) = self.issue(LaneKind::Prefix) {
            out.push(r);
        }
        out
    }

    /// Accepts the answer to an outstanding piece after validating it (see the module
    /// documentation). Errors: `INVALID_INPUT` for an id that is not outstanding, `SUMMARY_EMPTY`,
    /// `NO_PROGRESS` (with both token counts in the message); on error nothing changes.
    pub fn submit(&mut self, piece: PieceId, answer: &str) -> Result<()> {
        let estimate = Rc::clone(&self.estimate);
        let rollup_limit = self.rollup_limit;
        let lane = [Some(&mut self.history), self.prefix.as_mut()]
            .into_iter()
            .flatten()
            .find(|l| l.in_flight.is_some_and(|(id, _, _)| id == piece))
            .ok_or_else(|| {
                Error::new(
                    ErrorCode::InvalidInput,
                    format!("piece {} is not outstanding in this summary job", piece.0),
                )
            })?;
        let (limit, asked) = lane
            .in_flight
            .map_or((0, 0), |(_, limit, asked)| (limit, asked));
        let what = match (lane.kind, lane.stage) {
            (_, Stage::Rollup) => "rollup",
            (LaneKind::Prefix, _) => "split-turn prefix summary",
            (LaneKind::History, _) => "history summary",
        };
        // A history piece whose prompt shows the workstream state may end with a delta.
        let (answer, delta) = if self.asks_state && lane.kind == LaneKind::History {
            crate::core::session::workstream::split_delta(answer)?
        } else {
            (answer.to_string(), None)
        };
        let answer = super::answer::summary_text(&answer);
        let answer = answer.as_str();
        if is_blank(answer) {
            return Err(Error::new(
                ErrorCode::SummaryEmpty,
                format!("the summarizer returned an empty {what}"),
            ));
        }
        let tokens = estimate(answer);
        // An answer within the budget the request asked for passes even when its piece was
        // smaller (a few short messages before a long split turn): the compaction as a whole must
        // still shrink the context (`driver::check_progress`). A rollup must condense.
        let rollup = lane.stage == Stage::Rollup;
        if tokens >= limit && (rollup || tokens > asked) {
            return Err(Error::new(
                ErrorCode::NoProgress,
                format!(
                    "the {what} has {tokens} tokens, not fewer than the {limit} tokens it replaces"
                ),
            ));
        }
        lane.in_flight = None;
        lane.answer = Some(answer.to_string());
        self.deltas.extend(delta);
        lane.stage = match lane.stage {
            Stage::Chunk(k) if k + 1 < lane.chunks.len() => Stage::Chunk(k + 1),
            Stage::Chunk(_) if lane.kind == LaneKind::History && tokens > rollup_limit => {
                Stage::Rollup
            }
            Stage::Rollup => {
                lane.rolled_up = true;
                Stage::Done
            }
            _ => Stage::Done,
        };
        self.done += 1;
        Ok(())
    }

    /// Gives up an outstanding rollup (its answers did not condense): the summary it was given is
    /// kept, and [`SummaryJob::finish`] cuts it to its cap. `INVALID_INPUT` when `piece` is not an
    /// outstanding rollup.
    pub fn skip_rollup(&mut self, piece: PieceId) -> Result<()> {
        let lane = &mut self.history;
        if lane.stage != Stage::Rollup || lane.in_flight.is_none_or(|(id, _, _)| id != piece) {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                format!("piece {} is not an outstanding rollup", piece.0),
            ));
        }
        lane.in_flight = None;
        lane.rolled_up = true;
        lane.stage = Stage::Done;
        self.done += 1;
        Ok(())
    }

    /// `(answered, total)` pieces; `total` grows by one when a rollup becomes necessary.
    pub fn progress(&self) -> (usize, usize) {
        let total = self.history.pieces() + self.prefix.as_ref().map_or(0, Lane::pieces);
        (self.done, total)
    }

    /// True when every piece is answered.
    pub fn is_done(&self) -> bool {
        self.history.stage == Stage::Done
            && self.prefix.as_ref().is_none_or(|l| l.stage == Stage::Done)
    }

    /// The digest of the summarized messages.
    pub fn digest(&self) -> &Digest {
        &self.digest
    }

    /// Takes the workstream state deltas given after
    /// [`crate::core::session::workstream::DELTA_MARKER`] in the answers accepted so far.
    pub fn take_state_deltas(&mut self) -> Vec<serde_json::Value> {
        std::mem::take(&mut self.deltas)
    }

    /// Shows `state` (the workstream state so far, as text) to the summarizer as `{state}`.
    pub fn set_state(&mut self, state: Option<String>) {
        self.state = state.filter(|s| !s.trim().is_empty());
    }

    /// The summary without a model ([`super::extractive`]): the earlier summary, then the digest
    /// of the summarized messages and the last thing the assistant said in them, within the
    /// history's token budget. Used by `summarize: "extractive"` and as the fallback when the
    /// summarizer fails.
    pub fn extractive(&self, messages: &[Message]) -> Finished {
        let mut indices = self.history.indices.clone();
        if let Some(prefix) = &self.prefix {
            indices.extend(prefix.indices.iter().copied());
        }
        indices.sort_unstable();
        let summary = super::extractive::summary(&super::extractive::Input {
            messages,
            indices: &indices,
            previous_summary: self.previous_summary.as_deref(),
            digest: &self.digest,
            max_tokens: self.summary_tokens,
            replaced_tokens: self.replaced,
            estimate: &*self.estimate,
        });
        Finished {
            summary,
            digest: self.digest.clone(),
            appended: Digest::default(),
        }
    }

    /// Assembles the summary (see [`Finished`]). Errors: `INVALID_INPUT` when pieces are still
    /// unanswered.
    pub fn finish(self) -> Result<Finished> {
        if !self.is_done() {
            let (done, total) = self.progress();
            return Err(Error::new(
                ErrorCode::InvalidInput,
                format!("the summary job is not finished: {done} of {total} pieces answered"),
            ));
        }
        let mut summary = self.history.answer.clone().unwrap_or_default();
        if let Some(prefix) = self.prefix.as_ref().and_then(|l| l.answer.as_deref()) {
            if summary.is_empty() {
                summary.push_str(self.turn_context.trim_start());
            } else {
                summary.push_str(&self.turn_context);
            }
            summary.push_str(prefix);
        }
        // The summary stays within its cap (the larger of its budget and the rollup threshold):
        // an answer that outgrew it even after the rollup is cut, and the digest items the model
        // missed are appended only as far as they fit.
        let cap = (self.summary_tokens.max(self.rollup_limit)
            + self.prefix.as_ref().map_or(0, |_| self.prefix_tokens))
        .saturating_sub(self.wrapper)
        .max(1);
        let summary = fit(&summary, cap, &*self.estimate);
        let missing = self.digest.missing_from(&summary);
        let room = cap.min(
            self.replaced
                .saturating_sub(1)
                .max((self.estimate)(&summary)),
        );
        let (summary, appended) = append_within(&summary, &missing, room, &*self.estimate);
        Ok(Finished {
            summary,
            digest: self.digest,
            appended,
        })
    }

    fn issue(&mut self, kind: LaneKind) -> Option<PieceRequest> {
        let lane = match kind {
            LaneKind::History => &self.history,
            LaneKind::Prefix => self.prefix.as_ref()?,
        };
        if lane.in_flight.is_some() {
            return None;
        }
        let parts = lane.chunks.len();
        let (purpose, template, transcript, indices, previous, replaced, part) = match lane.stage {
            Stage::Done => return None,
            Stage::Rollup => {
                let summary = lane.answer.clone().unwrap_or_default();
                let tokens = (self.estimate)(&summary);
                let t = &self.templates.rollup;
                (
                    Purpose::Rollup,
                    t,
                    String::new(),
                    lane.indices.clone(),
                    Some(summary),
                    tokens,
                    1,
                )
            }
            Stage::Chunk(k) => {
                let chunk = lane.chunks.get(k)?;
                let previous = if k == 0 {
                    match kind {
                        LaneKind::History => self.previous_summary.clone(),
                        LaneKind::Prefix => None,
                    }
                } else {
                    lane.answer.clone()
                };
                let (purpose, template) = match kind {
                    LaneKind::Prefix => (Purpose::TurnPrefix, &self.templates.turn_prefix),
                    LaneKind::History if parts > 1 => (Purpose::Chunk, &self.templates.chunk),
                    LaneKind::History if previous.is_some() => {
                        (Purpose::History, &self.templates.update)
                    }
                    LaneKind::History => (Purpose::History, &self.templates.history),
                };
                let previous_tokens = previous.as_deref().map_or(0, &*self.estimate);
                let replaced = chunk.replaced_tokens.saturating_add(previous_tokens);
                let transcript = chunk.transcript.clone();
                (
                    purpose,
                    template,
                    transcript,
                    chunk.indices.clone(),
                    previous,
                    replaced,
                    k + 1,
                )
            }
        };
        let max_tokens = match kind {
            LaneKind::Prefix => self.prefix_tokens,
            LaneKind::History => self.summary_tokens,
        };
        let max_text = max_tokens.to_string();
        let round = self.round.to_string();
        let part_text = part.to_string();
        let parts_text = parts.max(1).to_string();
        let vars = [
            ("transcript", transcript.as_str()),
            ("previous_summary", previous.as_deref().unwrap_or(NONE)),
            ("instructions", self.instructions.as_deref().unwrap_or(NONE)),
            ("max_tokens", max_text.as_str()),
            ("round", round.as_str()),
            ("part", part_text.as_str()),
            ("parts", parts_text.as_str()),
            ("original_task", self.original_task.as_str()),
            ("state", self.state.as_deref().unwrap_or(NONE)),
        ];
        let request = PieceRequest {
            id: PieceId(self.next_id),
            purpose,
            system: render(&self.templates.system, &vars),
            prompt: render(template, &vars),
            transcript,
            message_indices: indices,
            previous_summary: previous,
            instructions: self.instructions.clone(),
            max_tokens,
            round: self.round,
        };
        self.next_id = self.next_id.wrapping_add(1);
        let lane = match kind {
            LaneKind::History => &mut self.history,
            LaneKind::Prefix => self.prefix.as_mut()?,
        };
        lane.in_flight = Some((request.id, replaced, max_tokens));
        Some(request)
    }
}
