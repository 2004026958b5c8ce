//! LangChain's `trimMessages`, made safe for tool calls: keep the first or the last messages that
//! fit in `maxTokens`, never keeping a tool result without its call or a call without its results.
//!
//! Semantics (LangChain.js `trimMessages`, with the pairing rule added):
//! - **`"last"`** (default): first `endOn` drops trailing messages until the last one matches;
//!   then, with `includeSystem`, `messages[0]` is held apart when it is a system message and its
//!   tokens are taken from the budget first (alone over budget: the result is empty); then the
//!   longest tail that fits is kept; then, with `allowPartial`, the last parts of the message just
//!   before that tail that still fit; finally `startOn` drops leading kept messages until one
//!   matches. The held-apart system message always stays (LangChain.js lets `startOn` drop it when
//!   nothing matches, which sends a request without its system prompt; we keep it).
//! - **`"first"`**: the longest head that fits, then, with `allowPartial`, the first parts of the
//!   next message that still fit; finally `endOn` drops trailing kept messages until one matches.
//!   `startOn` and `includeSystem` are rejected with `"first"`, as LangChain does.
//!
//! Tool pairs (a position is *pair-safe* when no call before it has a result at or after it,
//! [`crate::core::cut::pairs::pair_safe_positions`]):
//! - Every boundary between kept and dropped messages is pair-safe. `"last"` moves its start
//!   *forward* to the next pair-safe position (dropping the whole pair); `"first"` moves its end
//!   *back* to the previous pair-safe position. `endOn` and `startOn` likewise stop only at
//!   pair-safe positions that match. Whole pairs are dropped, never split. With `allowPartial`,
//!   `startOn` may also start on the free parts of a message whose tool parts are tied to dropped
//!   messages (the text of an Anthropic carrier whose calls were dropped), so that for `"last"` a
//!   larger budget never keeps fewer tokens.
//! - A partial message keeps only parts that can stand without the dropped messages: a tool call
//!   or result whose id also appears in another message is never kept in a partial message, and a
//!   call and its result inside the same message are kept together or not at all. Tool messages
//!   (role `tool`) are never split. Text, reasoning, images and files split freely.
//! - With `includeSystem`, `messages[0]` is held apart only when it carries no tool data (no
//!   supported format puts tool calls in a system message); otherwise it is an ordinary message.
//! - Last, a kept tool result whose call is not kept before it (an orphan in the input, or, in a
//!   damaged history, a result before its call, kept or dropped) is taken out of its message, which
//!   is then kept in part, or dropped when nothing else is left of it. So the kept messages never
//!   hold a result without its call, and a user's text beside an orphan result survives.
//!
//! Matching `startOn` / `endOn`: a `user` message that carries a tool result counts as `tool` (an
//! Anthropic `tool_result` block is a LangChain `ToolMessage`); every other message counts as its
//! role (an AI SDK assistant message with provider-executed results is `assistant`). A partial
//! message is matched by the parts it keeps (for both `startOn` and `endOn` when it is both the
//! first and the last kept message).
//!
//! Pricing: a whole message costs `tokens[i]`; a partial one costs `tokens[i]` minus the
//! `part_cost` of its dropped parts (its per-message overhead stays). The kept total never exceeds
//! `max_tokens`. `max_tokens == 0` keeps nothing. LangChain never splits the very last candidate
//! message (an off-by-one in `_firstMaxTokens`); we do. Its `textSplitter` (splitting one text
//! block) is out of scope: parts are the smallest unit.
//!
//! Reading: the rules walk from the end they keep, so [`trim_history`] reads (converts and counts)
//! only the messages that may be kept, the one past them, `messages[0]` with `includeSystem`, and,
//! for tool pairing and orphans, the messages its [`TrimSource`] names as holders of their tool
//! ids; [`trim`] is the same over messages already converted. Sums of tokens do not saturate at
//! `usize::MAX` the way the prefix sums of the whole history did (no real history comes near it).

mod history;
mod json_source;
mod rules;

pub use history::TrimSource;
pub use json_source::JsonSource;

use crate::core::error::{Error, Result};
use crate::core::estimate::Estimator;
use crate::core::message::{Message, Part, Role};
use crate::core::render::{Origin, Rendered};
use history::{Direction, History, Slice};
use rustc_hash::FxHashSet;

/// Which end of the history [`trim`] keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TrimStrategy {
    /// Keep the first messages (LangChain `"first"`).
    First,
    /// Keep the last messages (LangChain `"last"`, the default).
    #[default]
    Last,
}

impl TrimStrategy {
    /// Parses `"first"` or `"last"`; anything else is an invalid `strategy` option.
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "first" => Ok(TrimStrategy::First),
            "last" => Ok(TrimStrategy::Last),
            other => Err(Error::invalid_option(
                "strategy",
                format!("unknown strategy \"{other}\"; expected \"first\" or \"last\""),
            )),
        }
    }
}

/// The options of [`trim`], LangChain's names in snake case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrimOptions {
    /// The most tokens the kept messages may cost. `0` keeps nothing.
    pub max_tokens: usize,
    /// Which end to keep.
    pub strategy: TrimStrategy,
    /// `"last"` only: the kept messages (after any held-apart system message) start on one of
    /// these roles. Empty: no constraint.
    pub start_on: Vec<Role>,
    /// The kept messages end on one of these roles. Empty: no constraint.
    pub end_on: Vec<Role>,
    /// `"last"` only: keep `messages[0]` when it is a system message, counted against the budget.
    pub include_system: bool,
    /// Keep some parts of the one message at the boundary when the whole does not fit.
    pub allow_partial: bool,
}

impl TrimOptions {
    /// Options with LangChain's defaults: strategy `"last"`, no `startOn`/`endOn`, no system, no
    /// partial messages.
    pub fn new(max_tokens: usize) -> Self {
        TrimOptions {
            max_tokens,
            strategy: TrimStrategy::Last,
            start_on: Vec::new(),
            end_on: Vec::new(),
            include_system: false,
            allow_partial: false,
        }
    }

    /// Parses a role name of `startOn` / `endOn` (given as `key` for the error): ours (`"system"`,
    /// `"user"`, `"assistant"`, `"tool"`) or LangChain's (`"human"`, `"ai"`, `"developer"`).
    pub fn parse_role(name: &str, key: &str) -> Result<Role> {
        match name {
            "system" | "developer" => Ok(Role::System),
            "user" | "human" => Ok(Role::User),
            "assistant" | "ai" => Ok(Role::Assistant),
            "tool" => Ok(Role::Tool),
            other => Err(Error::invalid_option(
                key,
                format!(
                    "unknown message type \"{other}\"; expected one of \"system\", \"user\" \
                     (\"human\"), \"assistant\" (\"ai\"), \"tool\""
                ),
            )),
        }
    }

    /// Rejects combinations LangChain rejects: `startOn` or `includeSystem` with `"first"`.
    pub fn check(&self) -> Result<()> {
        if self.strategy == TrimStrategy::First {
            if !self.start_on.is_empty() {
                return Err(Error::invalid_option(
                    "startOn",
                    "startOn applies only with strategy \"last\"",
                ));
            }
            if self.include_system {
                return Err(Error::invalid_option(
                    "includeSystem",
                    "includeSystem applies only with strategy \"last\"",
                ));
            }
        }
        Ok(())
    }
}

/// One kept message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrimmedMessage {
    /// Index in the input.
    pub index: usize,
    /// `Some` when only these part indices (ascending, at least one, not all) are kept.
    pub parts: Option<Vec<usize>>,
}

impl TrimmedMessage {
    /// `message` as kept: whole, or with only the kept parts (its other fields, `original` among
    /// them, as they are, so exporters can lay the changed content over the caller's object).
    pub fn select(&self, message: &Message) -> Message {
        let mut out = message.clone();
        if let Some(parts) = &self.parts {
            out.parts = parts
                .iter()
                .filter_map(|&p| message.parts.get(p).cloned())
                .collect();
        }
        out
    }
}

/// What [`trim`] keeps, in input order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trimmed {
    /// Kept messages, indices strictly ascending.
    pub kept: Vec<TrimmedMessage>,
}

impl Trimmed {
    /// The kept messages themselves; a partial message keeps its `original` so exporters can lay
    /// the changed content over the caller's object.
    pub fn apply(&self, messages: &[Message]) -> Vec<Message> {
        self.kept
            .iter()
            .filter_map(|k| Some(k.select(messages.get(k.index)?)))
            .collect()
    }

    /// The kept messages as a render: a whole one is the input's (by index), one kept in part is
    /// changed (exported over the caller's object).
    pub fn rendered(&self, messages: &[Message]) -> Vec<Rendered> {
        let one = |k: &TrimmedMessage| {
            let origin = match k.parts {
                None => Origin::Input(k.index),
                Some(_) => Origin::Changed(k.index),
            };
            let message = k.select(messages.get(k.index)?);
            Some(Rendered { message, origin })
        };
        self.kept.iter().filter_map(one).collect()
    }
}

/// LangChain's `trimMessages` options that have no meaning here, each with the reason it is
/// refused by name (a function value would otherwise fail the conversion of the options).
pub const LANGCHAIN_ONLY: [(&str, &str); 2] = [
    (
        "tokenCounter",
        "tokenCounter is not supported: tokens are counted by the package; choose tokenizer: \"heuristic\" (default), \"o200k_base\" or \"cl100k_base\"",
    ),
    (
        "textSplitter",
        "textSplitter is not supported: with allowPartial, whole content blocks are kept",
    ),
];

/// Refuses the first of [`LANGCHAIN_ONLY`] that is `given` (`INVALID_OPTIONS` at its key).
pub fn refuse_langchain_only(given: &dyn Fn(&str) -> bool) -> Result<()> {
    match LANGCHAIN_ONLY.iter().find(|(key, _)| given(key)) {
        Some((key, message)) => Err(Error::invalid_option(*key, *message)),
        None => Ok(()),
    }
}

/// [`trim`] counting with `estimator` (`trimMessages` on an array converted whole).
pub fn trim_estimated(
    messages: &[Message],
    estimator: &Estimator,
    options: &TrimOptions,
) -> Result<Trimmed> {
    let tokens = estimator.estimate_all(messages).per_message;
    trim(messages, &tokens, &|p| estimator.part_tokens(p), options)
}

/// Trims `messages` (with `tokens[i]` the cost of message `i`, `part_cost` the cost of one part)
/// to at most `options.max_tokens`, by the rules of the module documentation. Never separates a
/// tool call from its results. Errors: invalid options, or `tokens` of the wrong length.
pub fn trim(
    messages: &[Message],
    tokens: &[usize],
    part_cost: &dyn Fn(&Part) -> usize,
    options: &TrimOptions,
) -> Result<Trimmed> {
    options.check()?;
    if tokens.len() != messages.len() {
        return Err(Error::invalid_input(
            "tokens",
            format!(
                "{} token counts for {} messages",
                tokens.len(),
                messages.len()
            ),
        ));
    }
    let source = Slice::new(messages, tokens);
    let history = History::new(&source, direction(options));
    let trimmed = run(&history, part_cost, options);
    history.finish()?;
    Ok(trimmed)
}

/// What [`trim_history`] keeps: the kept messages by index, and the messages kept in part (at the
/// boundary with `allowPartial`, and those that lost orphan results) with only their kept parts,
/// as the source read them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TrimmedHistory {
    /// Kept messages, indices strictly ascending.
    pub trimmed: Trimmed,
    /// The messages of the entries of `trimmed` with `parts`, in order, each holding only those
    /// parts (its `original` kept, so exporters can lay the changed content over the caller's
    /// object).
    pub partials: Vec<Message>,
}

impl TrimmedHistory {
    /// Each kept message in order: its index in the history, and the message rebuilt with only
    /// its kept parts when it is kept in part (`None`: kept whole, as the caller gave it).
    pub fn messages(&self) -> impl Iterator<Item = (usize, Option<&Message>)> {
        let mut partials = self.partials.iter();
        self.trimmed.kept.iter().map(move |k| {
            let partial = if k.parts.is_some() {
                partials.next()
            } else {
                None
            };
            (k.index, partial)
        })
    }
}

/// [`trim`] over a history read on demand: the same messages are kept, and only the messages the
/// rules look at are read (for `"last"` the tail that may be kept, the message before it, the
/// system message with `includeSystem`, and the messages [`TrimSource::holders`] names for the
/// tool ids of those; `"first"` likewise from the start). Errors: invalid options, or the first
/// read that failed.
pub fn trim_history<'a>(
    source: &dyn TrimSource<'a>,
    part_cost: &dyn Fn(&Part) -> usize,
    options: &TrimOptions,
) -> Result<TrimmedHistory> {
    options.check()?;
    let history = History::new(source, direction(options));
    let trimmed = run(&history, part_cost, options);
    let partials = trimmed
        .kept
        .iter()
        .filter(|k| k.parts.is_some())
        .filter_map(|k| Some(k.select(history.message(k.index)?)))
        .collect();
    history.finish()?;
    Ok(TrimmedHistory { trimmed, partials })
}

fn direction(options: &TrimOptions) -> Direction {
    match options.strategy {
        TrimStrategy::First => Direction::FromStart,
        TrimStrategy::Last => Direction::FromEnd,
    }
}

/// The rules, then the orphan rule: a tool result whose call is not kept before it (nowhere in
/// the input, dropped, or after the result in a damaged history) is never passed on. Its message keeps its other parts (kept in part, like a partial message) and is
/// dropped when nothing else is left of it.
fn run(
    history: &History<'_, '_>,
    part_cost: &dyn Fn(&Part) -> usize,
    options: &TrimOptions,
) -> Trimmed {
    if options.max_tokens == 0 || history.len() == 0 {
        return Trimmed::default();
    }
    let mut trimmed = match options.strategy {
        TrimStrategy::First => rules::first(history, part_cost, options),
        TrimStrategy::Last => rules::last(history, part_cost, options),
    };
    // The kept parts of a kept message (all of them, or those of a partial message).
    let kept_parts = |k: &TrimmedMessage| -> Vec<(usize, &Part)> {
        history.message(k.index).map_or_else(Vec::new, |m| {
            m.parts
                .iter()
                .enumerate()
                .filter(|(i, _)| k.parts.as_ref().is_none_or(|p| p.contains(i)))
                .collect()
        })
    };
    // Calls are seen in order: a result counts only when its call was kept before it.
    let mut calls: FxHashSet<&str> = FxHashSet::default();
    trimmed.kept.retain_mut(|k| {
        let parts = kept_parts(k);
        let mut orphans = 0usize;
        let mut kept: Vec<usize> = Vec::with_capacity(parts.len());
        for (i, p) in &parts {
            match p {
                Part::ToolCall { id, .. } => {
                    calls.insert(id.as_str());
                    kept.push(*i);
                }
                Part::ToolResult { id, .. } if !calls.contains(id.as_str()) => orphans += 1,
                _ => kept.push(*i),
            }
        }
        if orphans == 0 {
            return true;
        }
        if kept.is_empty() {
            return false;
        }
        let all = history.message(k.index).map_or(0, |m| m.parts.len());
        k.parts = (kept.len() < all).then_some(kept);
        true
    });
    trimmed
}
