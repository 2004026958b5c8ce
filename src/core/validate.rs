//! Tool-call pairing and structure checks: what a provider would reject (a result without its
//! call, a call without its result, duplicate ids) and what this package relies on (one summary
//! block at the start, no empty messages).
//!
//! Pairing rule (shared with [`crate::core::repair`] through [`pairing`]): messages are walked in
//! order; a tool call opens its id, a tool result closes the oldest open call with the same id.
//! A call counts wherever it appears before the result: in an earlier message, or earlier in the
//! same message (AI SDK assistant messages carry provider-executed results after their calls).
//!
//! Pending tail calls: an agent that is waiting for its tools has a history that ends with the
//! assistant message making the calls, possibly followed by the results that are already in. So
//! the calls of the **last assistant message** that have no result are *pending*, not unanswered,
//! when every message after it holds nothing but tool results (or nothing at all). This is on by
//! default ([`ValidateOptions::allow_pending_tail_calls`]); turn it off right before sending a
//! request that must be complete.

use std::collections::{HashMap, HashSet, VecDeque};

use super::message::{Message, Part, Role};

/// What is wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ViolationKind {
    /// A tool result whose id no call anywhere in the history uses.
    OrphanResult,
    /// A tool result whose call comes only later.
    ResultBeforeCall,
    /// A tool call with no result after it (and not a pending tail call).
    UnansweredCall,
    /// A tool call whose id an earlier call already used.
    DuplicateCallId,
    /// A tool result whose id an earlier result already used (it answers a repeated call id, or
    /// no call at all because every call with the id is answered).
    DuplicateResultId,
    /// A summary message outside the one summary block right after the leading system messages.
    SummaryMisplaced,
    /// A message without parts (most providers reject it).
    EmptyMessage,
}

impl ViolationKind {
    /// A stable name (`"orphan-result"`, ...), for JSON and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            ViolationKind::OrphanResult => "orphan-result",
            ViolationKind::ResultBeforeCall => "result-before-call",
            ViolationKind::UnansweredCall => "unanswered-call",
            ViolationKind::DuplicateCallId => "duplicate-call-id",
            ViolationKind::DuplicateResultId => "duplicate-result-id",
            ViolationKind::SummaryMisplaced => "summary-misplaced",
            ViolationKind::EmptyMessage => "empty-message",
        }
    }
}

/// One problem, located by message and part index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// What is wrong.
    pub kind: ViolationKind,
    /// Index of the message.
    pub message: usize,
    /// Index of the part within the message, when a part is at fault.
    pub part: Option<usize>,
    /// The tool call id concerned, if any.
    pub id: Option<String>,
    /// A sentence a person can act on.
    pub detail: String,
}

impl Violation {
    /// The location as a path, `messages[3].content[0]` (or `messages[3]` for a whole message).
    /// The content index is the part index of the core's model, which equals the index in the
    /// caller's `content` array for formats with one block per part; for OpenAI assistant
    /// `tool_calls` and single-result tool messages it is only an approximation.
    pub fn path(&self) -> String {
        match self.part {
            Some(p) => format!("messages[{}].content[{}]", self.message, p),
            None => format!("messages[{}]", self.message),
        }
    }
}

/// Which rules apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValidateOptions {
    /// Calls of the last assistant message, followed by nothing but tool results, may lack a
    /// result (see the module documentation). Default `true`.
    pub allow_pending_tail_calls: bool,
    /// Report messages without parts. Default `true`.
    pub reject_empty: bool,
}

impl Default for ValidateOptions {
    fn default() -> Self {
        ValidateOptions {
            allow_pending_tail_calls: true,
            reject_empty: true,
        }
    }
}

/// A tool call as the pairing walk saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallSlot {
    /// Message index.
    pub message: usize,
    /// Part index.
    pub part: usize,
    /// The call's id as written.
    pub id: String,
    /// An earlier call already used this id.
    pub duplicate: bool,
    /// The result that answers it (message, part), if any.
    pub answered_by: Option<(usize, usize)>,
}

/// How a tool result relates to the calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultStatus {
    /// Answers the call at this index of [`Pairing::calls`].
    Answers(usize),
    /// No call uses the id.
    Orphan,
    /// Only a later call uses the id.
    BeforeCall,
    /// Every earlier call with the id is answered already.
    Duplicate,
}

/// A tool result as the pairing walk saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResultSlot {
    /// Message index.
    pub message: usize,
    /// Part index.
    pub part: usize,
    /// The result's id as written.
    pub id: String,
    /// What it answers.
    pub status: ResultStatus,
}

/// Every call and result of a history, paired by the rule of the module documentation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pairing {
    /// Calls in history order.
    pub calls: Vec<CallSlot>,
    /// Results in history order.
    pub results: Vec<ResultSlot>,
    /// The last assistant message when only tool results (or empty messages) follow it: its
    /// unanswered calls are pending.
    pub pending_tail: Option<usize>,
}

impl Pairing {
    /// True when the call at `index` of [`Pairing::calls`] lacks a result and is not pending.
    pub fn is_unanswered(&self, index: usize, allow_pending: bool) -> bool {
        self.calls.get(index).is_some_and(|c| {
            c.answered_by.is_none() && !(allow_pending && self.pending_tail == Some(c.message))
        })
    }
}

/// Pairs every call and result of `messages` (oldest open call first). Never panics.
pub fn pairing(messages: &[Message]) -> Pairing {
    let mut later_call_ids: HashMap<&str, usize> = HashMap::new();
    for m in messages {
        for id in m.tool_call_ids() {
            *later_call_ids.entry(id).or_insert(0) += 1;
        }
    }
    let mut out = Pairing::default();
    let mut seen: HashSet<&str> = HashSet::new();
    let mut open: HashMap<&str, VecDeque<usize>> = HashMap::new();
    for (mi, m) in messages.iter().enumerate() {
        for (pi, part) in m.parts.iter().enumerate() {
            match part {
                Part::ToolCall { id, .. } => {
                    let duplicate = !seen.insert(id.as_str());
                    if let Some(n) = later_call_ids.get_mut(id.as_str()) {
                        *n = n.saturating_sub(1);
                    }
                    open.entry(id.as_str())
                        .or_default()
                        .push_back(out.calls.len());
                    out.calls.push(CallSlot {
                        message: mi,
                        part: pi,
                        id: id.clone(),
                        duplicate,
                        answered_by: None,
                    });
                }
                Part::ToolResult { id, .. } => {
                    let popped = open.get_mut(id.as_str()).and_then(VecDeque::pop_front);
                    let status = match popped {
                        Some(ci) => {
                            if let Some(call) = out.calls.get_mut(ci) {
                                call.answered_by = Some((mi, pi));
                            }
                            ResultStatus::Answers(ci)
                        }
                        None if seen.contains(id.as_str()) => ResultStatus::Duplicate,
                        None if later_call_ids.get(id.as_str()).is_some_and(|n| *n > 0) => {
                            ResultStatus::BeforeCall
                        }
                        None => ResultStatus::Orphan,
                    };
                    out.results.push(ResultSlot {
                        message: mi,
                        part: pi,
                        id: id.clone(),
                        status,
                    });
                }
                _ => {}
            }
        }
    }
    out.pending_tail = pending_tail(messages);
    out
}

/// The last assistant message, when every message after it holds only tool results.
fn pending_tail(messages: &[Message]) -> Option<usize> {
    let last = messages.iter().rposition(|m| m.role == Role::Assistant)?;
    let rest = messages.get(last + 1..)?;
    rest.iter()
        .all(|m| m.parts.iter().all(Part::is_tool_result))
        .then_some(last)
}

/// Index just past the leading system messages, and the end of the summary block that may follow
/// (a system-role summary, seed 004's, belongs to the block).
pub(crate) fn summary_block(messages: &[Message]) -> (usize, usize) {
    let start = messages
        .iter()
        .position(|m| m.role != Role::System || m.summary)
        .unwrap_or(messages.len());
    let len = messages
        .get(start..)
        .map_or(0, |rest| rest.iter().take_while(|m| m.summary).count());
    (start, start + len)
}

/// Checks `messages` with the default options (pending tail calls allowed, empty messages
/// rejected). An empty result means no provider rule this package knows is broken.
pub fn validate(messages: &[Message]) -> Vec<Violation> {
    validate_with(messages, &ValidateOptions::default())
}

/// Checks `messages`; violations come sorted by message, then part, then kind.
pub fn validate_with(messages: &[Message], options: &ValidateOptions) -> Vec<Violation> {
    let pairing = pairing(messages);
    let mut out = Vec::new();
    for (ci, call) in pairing.calls.iter().enumerate() {
        if call.duplicate {
            out.push(violation(
                ViolationKind::DuplicateCallId,
                call.message,
                Some(call.part),
                &call.id,
                format!("tool call id \"{}\" is used by an earlier call", call.id),
            ));
        }
        if pairing.is_unanswered(ci, options.allow_pending_tail_calls) {
            out.push(violation(
                ViolationKind::UnansweredCall,
                call.message,
                Some(call.part),
                &call.id,
                format!("tool call \"{}\" has no result after it", call.id),
            ));
        }
    }
    for result in &pairing.results {
        let (kind, detail) = match result.status {
            ResultStatus::Answers(ci) => {
                if !pairing.calls.get(ci).is_some_and(|c| c.duplicate) {
                    continue;
                }
                (
                    ViolationKind::DuplicateResultId,
                    format!(
                        "tool result id \"{}\" is used by an earlier result",
                        result.id
                    ),
                )
            }
            ResultStatus::Orphan => (
                ViolationKind::OrphanResult,
                format!("tool result \"{}\" answers no tool call", result.id),
            ),
            ResultStatus::BeforeCall => (
                ViolationKind::ResultBeforeCall,
                format!("tool result \"{}\" comes before its call", result.id),
            ),
            ResultStatus::Duplicate => (
                ViolationKind::DuplicateResultId,
                format!("tool call \"{}\" is already answered", result.id),
            ),
        };
        out.push(violation(
            kind,
            result.message,
            Some(result.part),
            &result.id,
            detail,
        ));
    }
    let (start, end) = summary_block(messages);
    for (mi, m) in messages.iter().enumerate() {
        if m.summary && !(start..end).contains(&mi) {
            out.push(Violation {
                kind: ViolationKind::SummaryMisplaced,
                message: mi,
                part: None,
                id: None,
                detail: "a summary must come right after the system messages, in one block"
                    .to_string(),
            });
        }
        if options.reject_empty && m.parts.is_empty() {
            out.push(Violation {
                kind: ViolationKind::EmptyMessage,
                message: mi,
                part: None,
                id: None,
                detail: format!("the {} message has no content", m.role.as_str()),
            });
        }
    }
    out.sort_by_key(|v| (v.message, v.part, v.kind));
    out
}

fn violation(
    kind: ViolationKind,
    message: usize,
    part: Option<usize>,
    id: &str,
    detail: String,
) -> Violation {
    Violation {
        kind,
        message,
        part,
        id: Some(id.to_string()),
        detail,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(id: &str) -> Part {
        Part::ToolCall {
            id: id.into(),
            name: "read".into(),
            input: json!({}),
        }
    }
    fn result(id: &str) -> Part {
        Part::ToolResult {
            id: id.into(),
            name: Some("read".into()),
            output: vec![Part::text("ok")],
            is_error: false,
        }
    }
    fn msg(role: Role, parts: Vec<Part>) -> Message {
        Message::new(role, parts)
    }
    fn kinds(v: &[Violation]) -> Vec<(ViolationKind, usize, Option<usize>)> {
        v.iter().map(|x| (x.kind, x.message, x.part)).collect()
    }

    #[test]
    fn parallel_calls_with_results_in_any_order_are_valid() {
        let h = vec![
            Message::text(Role::System, "sys"),
            Message::text(Role::User, "go"),
            msg(Role::Assistant, vec![Part::text("x"), call("a"), call("b")]),
            msg(Role::Tool, vec![result("b")]),
            msg(Role::Tool, vec![result("a")]),
            Message::text(Role::Assistant, "done"),
        ];
        assert!(validate(&h).is_empty());
    }

    #[test]
    fn anthropic_results_in_user_message_with_text() {
        let h = vec![
            Message::text(Role::User, "go"),
            msg(Role::Assistant, vec![call("a"), call("b")]),
            msg(
                Role::User,
                vec![result("b"), result("a"), Part::text("and more")],
            ),
        ];
        assert!(validate(&h).is_empty());
    }

    #[test]
    fn finds_each_kind() {
        let mut summary = Message::text(Role::User, "summary");
        summary.summary = true;
        let h = vec![
            Message::text(Role::User, "go"),
            msg(Role::Tool, vec![result("z")]),    // orphan
            msg(Role::Tool, vec![result("late")]), // before call
            msg(
                Role::Assistant,
                vec![call("late"), call("a"), call("a"), call("u")],
            ),
            msg(Role::Tool, vec![result("a"), result("a"), result("a")]), // third: duplicate
            summary,                                                      // misplaced
            msg(Role::User, vec![]),                                      // empty
            Message::text(Role::Assistant, "end"),
        ];
        let v = validate(&h);
        assert_eq!(
            kinds(&v),
            vec![
                (ViolationKind::OrphanResult, 1, Some(0)),
                (ViolationKind::ResultBeforeCall, 2, Some(0)),
                (ViolationKind::UnansweredCall, 3, Some(0)),
                (ViolationKind::DuplicateCallId, 3, Some(2)),
                (ViolationKind::UnansweredCall, 3, Some(3)),
                // answers the repeated call: its id was used by the first result
                (ViolationKind::DuplicateResultId, 4, Some(1)),
                // answers nothing: both calls "a" are answered
                (ViolationKind::DuplicateResultId, 4, Some(2)),
                (ViolationKind::SummaryMisplaced, 5, None),
                (ViolationKind::EmptyMessage, 6, None),
            ]
        );
        assert_eq!(v[1].path(), "messages[2].content[0]");
        assert_eq!(v[7].path(), "messages[5]");
        assert_eq!(v[0].id.as_deref(), Some("z"));
    }

    #[test]
    fn pending_tail_calls_are_allowed_only_when_asked() {
        let h = vec![
            Message::text(Role::User, "go"),
            msg(Role::Assistant, vec![call("a"), call("b")]),
            msg(Role::Tool, vec![result("a")]),
        ];
        assert!(validate(&h).is_empty());
        let strict = ValidateOptions {
            allow_pending_tail_calls: false,
            ..ValidateOptions::default()
        };
        let v = validate_with(&h, &strict);
        assert_eq!(kinds(&v), vec![(ViolationKind::UnansweredCall, 1, Some(1))]);
        // a user message after the calls ends the exemption
        let mut h2 = h.clone();
        h2.push(Message::text(Role::User, "next"));
        assert_eq!(
            kinds(&validate(&h2)),
            vec![(ViolationKind::UnansweredCall, 1, Some(1))]
        );
    }

    #[test]
    fn summary_block_after_system_messages_is_fine() {
        let mut q = Message::text(Role::User, "What did we do so far?");
        q.summary = true;
        let mut a = Message::text(Role::Assistant, "We did X.");
        a.summary = true;
        let h = vec![
            Message::text(Role::System, "sys"),
            q,
            a,
            Message::text(Role::User, "go on"),
        ];
        assert!(validate(&h).is_empty());
    }

    #[test]
    fn provider_executed_result_in_same_assistant_message() {
        let h = vec![
            Message::text(Role::User, "search"),
            msg(
                Role::Assistant,
                vec![call("s"), result("s"), Part::text("found")],
            ),
        ];
        assert!(validate(&h).is_empty());
        let h = vec![msg(Role::Assistant, vec![result("s"), call("s")])];
        let strict = ValidateOptions {
            allow_pending_tail_calls: false,
            ..ValidateOptions::default()
        };
        assert_eq!(
            kinds(&validate_with(&h, &strict)),
            vec![
                (ViolationKind::ResultBeforeCall, 0, Some(0)),
                (ViolationKind::UnansweredCall, 0, Some(1)),
            ]
        );
    }
}
