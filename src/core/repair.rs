//! Makes a history pass [`validate`](crate::core::validate::validate) with the smallest changes
//! that keep every call paired, moving nothing.
//!
//! What [`repair`] does, violation by violation:
//! - **Orphan result, result before its call, second result for an answered call**: the result
//!   part is removed (a result cannot be moved next to a call without reordering the history).
//! - **Duplicate call id**: the later call is *renamed* to a fresh id (`<id>_dup2`, `_dup3`, ...,
//!   unused anywhere in the history), and the result that answers it (by the oldest-open-call rule
//!   of [`pairing`]) is renamed with it, so both the call and its output survive.
//! - **Unanswered call** (pending tail calls excepted, see [`crate::core::validate`]): a synthetic
//!   error result ([`INTERRUPTED_RESULT`], `is_error: true`) is added. All synthetic results of one
//!   message go together: into the tool-result-carrying `user` message right after it (Anthropic
//!   shape; placed after that message's last tool result, so tool results stay first), otherwise
//!   into one new `Tool` message placed after the `Tool` messages that directly follow it (for
//!   OpenAI, AI SDK and pi, whose existing tool messages then stay untouched).
//! - **Empty message** (as given, or after its results were removed): the message is dropped.
//! - **Misplaced summary**: no summary is moved or deleted. The summary block right after the
//!   leading system messages stays; every other message loses its `summary` marker and is kept in
//!   place as an ordinary message (its content and export are unchanged).
//!
//! [`answer_unanswered`] does the unanswered-call step alone (what `convertMessages` does).
//!
//! Guarantee: `validate(&repair(x).messages)` is empty for every `x`, `repair` is idempotent, and a
//! message that had no violation is kept, in the same relative order, unchanged except that
//! synthetic results may be added to it when it is the `user` carrier after an unanswered call.

use std::collections::{HashMap, HashSet};

use super::message::{Message, Part, Role};
use super::validate::{pairing, summary_block, ResultStatus, ViolationKind};

/// The output text of a synthetic result for a call that never got one.
pub const INTERRUPTED_RESULT: &str = "No result: the tool call was interrupted.";

/// One change made by [`repair`]. Message and part indexes refer to the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RepairAction {
    /// A tool result was removed; `reason` is `OrphanResult`, `ResultBeforeCall` or
    /// `DuplicateResultId`.
    RemovedResult {
        message: usize,
        part: usize,
        id: String,
        reason: ViolationKind,
    },
    /// A message was dropped because it had no parts (left).
    RemovedMessage { message: usize },
    /// A call with a repeated id got a fresh id.
    RenamedCall {
        message: usize,
        part: usize,
        from: String,
        to: String,
    },
    /// The result of a renamed call was renamed with it.
    RenamedResult {
        message: usize,
        part: usize,
        from: String,
        to: String,
    },
    /// Synthetic error results were added for the unanswered calls of `after_message`: into the
    /// input message `into_message`, or (when `None`) into a new `Tool` message.
    AddedResults {
        after_message: usize,
        into_message: Option<usize>,
        ids: Vec<String>,
    },
    /// A misplaced summary lost its `summary` marker.
    ClearedSummary { message: usize },
}

/// The repaired history and what was done to it.
#[derive(Clone, Debug, PartialEq)]
pub struct Repaired {
    /// A history that validates clean.
    pub messages: Vec<Message>,
    /// The changes, in the order they were made; empty when the input was valid.
    pub actions: Vec<RepairAction>,
}

/// Repairs `messages` by the rules of the module documentation. Never panics.
pub fn repair(messages: Vec<Message>) -> Repaired {
    let pairs = pairing(&messages);
    let mut actions = Vec::new();
    let mut used: HashSet<String> = pairs
        .calls
        .iter()
        .map(|c| c.id.clone())
        .chain(pairs.results.iter().map(|r| r.id.clone()))
        .collect();

    // New ids for repeated calls, and the results that follow them.
    let mut renames: HashMap<(usize, usize), String> = HashMap::new();
    let mut final_ids: Vec<String> = Vec::with_capacity(pairs.calls.len());
    for call in &pairs.calls {
        if call.duplicate {
            let to = fresh_id(&call.id, &mut used);
            actions.push(RepairAction::RenamedCall {
                message: call.message,
                part: call.part,
                from: call.id.clone(),
                to: to.clone(),
            });
            renames.insert((call.message, call.part), to.clone());
            final_ids.push(to);
        } else {
            final_ids.push(call.id.clone());
        }
    }
    let mut drops: HashSet<(usize, usize)> = HashSet::new();
    for result in &pairs.results {
        let reason = match result.status {
            ResultStatus::Answers(ci) => {
                if let Some(to) = pairs
                    .calls
                    .get(ci)
                    .filter(|c| c.duplicate)
                    .and_then(|_| final_ids.get(ci))
                {
                    actions.push(RepairAction::RenamedResult {
                        message: result.message,
                        part: result.part,
                        from: result.id.clone(),
                        to: to.clone(),
                    });
                    renames.insert((result.message, result.part), to.clone());
                }
                continue;
            }
            ResultStatus::Orphan => ViolationKind::OrphanResult,
            ResultStatus::BeforeCall => ViolationKind::ResultBeforeCall,
            ResultStatus::Duplicate => ViolationKind::DuplicateResultId,
        };
        drops.insert((result.message, result.part));
        actions.push(RepairAction::RemovedResult {
            message: result.message,
            part: result.part,
            id: result.id.clone(),
            reason,
        });
    }

    // Synthetic results per message holding unanswered calls.
    let mut missing = synthetic_results(&messages, &pairs, &final_ids);

    // Apply removals and renames; drop messages left empty.
    let mut kept: Vec<(usize, Message)> = Vec::with_capacity(messages.len());
    for (mi, mut message) in messages.into_iter().enumerate() {
        let parts = std::mem::take(&mut message.parts);
        message.parts = parts
            .into_iter()
            .enumerate()
            .filter(|(pi, _)| !drops.contains(&(mi, *pi)))
            .map(|(pi, part)| match renames.get(&(mi, pi)) {
                Some(to) => renamed(part, to),
                None => part,
            })
            .collect();
        if message.parts.is_empty() {
            actions.push(RepairAction::RemovedMessage { message: mi });
        } else {
            kept.push((mi, message));
        }
    }

    let mut out = insert_missing(kept, &mut missing, &mut actions);

    let (start, end) = summary_block(&messages_only(&out));
    for (i, (origin, message)) in out.iter_mut().enumerate() {
        if message.summary && !(start..end).contains(&i) {
            message.summary = false;
            if let Some(message) = origin {
                actions.push(RepairAction::ClearedSummary { message: *message });
            }
        }
    }
    Repaired {
        messages: out.into_iter().map(|(_, m)| m).collect(),
        actions,
    }
}

/// The synthetic error results ([`INTERRUPTED_RESULT`]) of the unanswered calls (pending tail
/// calls excepted), by the message holding the calls; `ids` are the calls' final ids.
fn synthetic_results(
    messages: &[Message],
    pairs: &super::validate::Pairing,
    ids: &[String],
) -> HashMap<usize, Vec<Part>> {
    let mut missing: HashMap<usize, Vec<Part>> = HashMap::new();
    for (ci, call) in pairs.calls.iter().enumerate() {
        if !pairs.is_unanswered(ci, true) {
            continue;
        }
        let name = messages
            .get(call.message)
            .and_then(|m| m.parts.get(call.part))
            .and_then(|p| match p {
                Part::ToolCall { name, .. } => Some(name.clone()),
                _ => None,
            });
        let id = ids.get(ci).cloned().unwrap_or_else(|| call.id.clone());
        missing
            .entry(call.message)
            .or_default()
            .push(Part::ToolResult {
                id,
                name,
                output: vec![Part::text(INTERRUPTED_RESULT)],
                is_error: true,
            });
    }
    missing
}

/// Answers each unanswered call (pending tail calls excepted) with a synthetic error result, as
/// [`repair`] does, and changes nothing else: what an agent does before sending a history with an
/// interrupted turn (pi adds an error result for each). Returns the messages and the ids of the
/// calls answered, in call order.
pub fn answer_unanswered(messages: Vec<Message>) -> (Vec<Message>, Vec<String>) {
    let pairs = pairing(&messages);
    let ids: Vec<String> = pairs.calls.iter().map(|c| c.id.clone()).collect();
    let mut missing = synthetic_results(&messages, &pairs, &ids);
    if missing.is_empty() {
        return (messages, Vec::new());
    }
    let answered: Vec<String> = pairs
        .calls
        .iter()
        .enumerate()
        .filter(|(ci, _)| pairs.is_unanswered(*ci, true))
        .map(|(_, c)| c.id.clone())
        .collect();
    let mut actions = Vec::new();
    let out = insert_missing(
        messages.into_iter().enumerate().collect(),
        &mut missing,
        &mut actions,
    );
    (messages_only_owned(out), answered)
}

fn messages_only_owned(out: Vec<(Option<usize>, Message)>) -> Vec<Message> {
    out.into_iter().map(|(_, m)| m).collect()
}

/// Places the synthetic results of `missing` after their messages (see the module docs).
fn insert_missing(
    kept: Vec<(usize, Message)>,
    missing: &mut HashMap<usize, Vec<Part>>,
    actions: &mut Vec<RepairAction>,
) -> Vec<(Option<usize>, Message)> {
    let mut out: Vec<(Option<usize>, Message)> = Vec::with_capacity(kept.len() + missing.len());
    let mut iter = kept.into_iter().peekable();
    while let Some((origin, message)) = iter.next() {
        let timestamp = message.timestamp;
        out.push((Some(origin), message));
        let Some(parts) = missing.remove(&origin) else {
            continue;
        };
        let ids: Vec<String> = parts.iter().filter_map(result_id).collect();
        // Anthropic shape: the user message right after carries the results.
        if let Some((next_origin, next)) = iter.peek_mut() {
            if next.role == Role::User && next.parts.iter().any(Part::is_tool_result) {
                let at = next
                    .parts
                    .iter()
                    .rposition(Part::is_tool_result)
                    .map_or(0, |i| i + 1);
                let len = next.parts.len();
                let tail = next.parts.split_off(at.min(len));
                next.parts.extend(parts);
                next.parts.extend(tail);
                actions.push(RepairAction::AddedResults {
                    after_message: origin,
                    into_message: Some(*next_origin),
                    ids,
                });
                continue;
            }
        }
        // Otherwise one new Tool message after the Tool messages that directly follow.
        while let Some((next_origin, next)) = iter.peek() {
            if next.role != Role::Tool || missing.contains_key(next_origin) {
                break;
            }
            if let Some(item) = iter.next() {
                out.push((Some(item.0), item.1));
            }
        }
        let mut synthetic = Message::new(Role::Tool, parts);
        synthetic.timestamp = timestamp;
        out.push((None, synthetic));
        actions.push(RepairAction::AddedResults {
            after_message: origin,
            into_message: None,
            ids,
        });
    }
    out
}

fn messages_only(out: &[(Option<usize>, Message)]) -> Vec<Message> {
    // Only the markers matter to `summary_block`; parts are not needed.
    out.iter()
        .map(|(_, m)| {
            let mut shell = Message::new(m.role, Vec::new());
            shell.summary = m.summary;
            shell
        })
        .collect()
}

fn result_id(part: &Part) -> Option<String> {
    match part {
        Part::ToolResult { id, .. } => Some(id.clone()),
        _ => None,
    }
}

/// `part` with its tool id replaced by `to`.
fn renamed(part: Part, to: &str) -> Part {
    match part {
        Part::ToolCall { name, input, .. } => Part::ToolCall {
            id: to.to_string(),
            name,
            input,
        },
        Part::ToolResult {
            name,
            output,
            is_error,
            ..
        } => Part::ToolResult {
            id: to.to_string(),
            name,
            output,
            is_error,
        },
        other => other,
    }
}

/// `<id>_dup<n>` for the smallest n >= 2 not in `used` (then marked used).
fn fresh_id(id: &str, used: &mut HashSet<String>) -> String {
    let mut n = 2usize;
    loop {
        let candidate = format!("{id}_dup{n}");
        if used.insert(candidate.clone()) {
            return candidate;
        }
        n += 1;
    }
}
