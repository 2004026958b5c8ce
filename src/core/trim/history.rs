//! The history as the trimming rules read it: each message and its tokens loaded when a rule first
//! asks for it, and the sums, pair-safe positions and tool-id lookups computed only as far as they
//! are asked for. `"last"` reads from the end and `"first"` from the start, so a trim reads the
//! messages it may keep, the one past them, and, for tool pairing, the few messages its
//! [`TrimSource`] names as possible holders of an id.
//!
//! Every answer is the one the whole history gives: a position is pair-safe when no tool call
//! before it has a result at or after it, which for each id depends only on its first call and its
//! last result; both are found by reading the id's possible holders in order until one truly holds
//! it.

use std::borrow::Cow;
use std::cell::{OnceCell, RefCell};

use rustc_hash::FxHashMap;

use crate::core::error::{Error, Result};
use crate::core::message::{Message, Part, Role};

/// Where [`super::trim_history`] reads a history from: messages by index, converted when first
/// read, and an index of the tool ids they may carry.
pub trait TrimSource<'a> {
    /// How many messages the history holds.
    fn len(&self) -> usize;

    /// True when the history holds no message.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Message `index` (below [`TrimSource::len`]), or why it cannot be read (`INVALID_INPUT`
    /// naming it). Each message is read at most once per trim.
    fn read(&self, index: usize) -> Result<Cow<'a, Message>>;

    /// The tokens of message `index`, given what [`TrimSource::read`] returned for it.
    fn tokens(&self, index: usize, message: &Message) -> usize;

    /// Indices of the messages that may carry a tool call or a tool result with `id` as one of
    /// their parts. Every message that does must be listed; a message listed that does not only
    /// costs a read.
    fn holders(&self, id: &str) -> Vec<usize>;
}

/// Messages already in the core's model, with their tokens and an exact index of their tool ids.
pub(super) struct Slice<'a> {
    messages: &'a [Message],
    tokens: &'a [usize],
    ids: FxHashMap<&'a str, Vec<usize>>,
}

impl<'a> Slice<'a> {
    pub(super) fn new(messages: &'a [Message], tokens: &'a [usize]) -> Self {
        let mut ids: FxHashMap<&'a str, Vec<usize>> = FxHashMap::default();
        for (i, message) in messages.iter().enumerate() {
            for part in &message.parts {
                if let Part::ToolCall { id, .. } | Part::ToolResult { id, .. } = part {
                    let at = ids.entry(id.as_str()).or_default();
                    if at.last() != Some(&i) {
                        at.push(i);
                    }
                }
            }
        }
        Slice {
            messages,
            tokens,
            ids,
        }
    }
}

impl<'a> TrimSource<'a> for Slice<'a> {
    fn len(&self) -> usize {
        self.messages.len()
    }

    fn read(&self, index: usize) -> Result<Cow<'a, Message>> {
        self.messages
            .get(index)
            .map(Cow::Borrowed)
            .ok_or_else(|| Error::invalid_input(format!("messages[{index}]"), "no such message"))
    }

    fn tokens(&self, index: usize, _message: &Message) -> usize {
        self.tokens.get(index).copied().unwrap_or(0)
    }

    fn holders(&self, id: &str) -> Vec<usize> {
        self.ids.get(id).cloned().unwrap_or_default()
    }
}

/// The end a trim keeps, and so the end the history is read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Direction {
    /// `"first"`: sums run from the start, pair-safety is judged by the calls before a position.
    FromStart,
    /// `"last"`: sums run back from their end, pair-safety is judged by the results after a
    /// position.
    FromEnd,
}

/// A history read on demand (see the module documentation). A read that fails is remembered;
/// the rules then see the message as absent and [`History::finish`] returns the error.
pub(super) struct History<'a, 's> {
    source: &'s dyn TrimSource<'a>,
    len: usize,
    direction: Direction,
    messages: Vec<OnceCell<Cow<'a, Message>>>,
    tokens: Vec<OnceCell<usize>>,
    error: RefCell<Option<Error>>,
    first_calls: RefCell<FxHashMap<String, Option<usize>>>,
    last_results: RefCell<FxHashMap<String, Option<usize>>>,
    /// [`Direction::FromEnd`]: `reach[k]` is the first call of any result in messages `len-k..`;
    /// [`Direction::FromStart`]: `reach[k]` is the last result of any call in messages `..k`.
    reach: RefCell<Vec<Option<usize>>>,
    /// Running sums of tokens from an anchor: back from it ([`Direction::FromEnd`]) or on from it
    /// ([`Direction::FromStart`]); `sums.1[k]` covers `k` messages.
    sums: RefCell<(Option<usize>, Vec<usize>)>,
}

impl<'a, 's> History<'a, 's> {
    pub(super) fn new(source: &'s dyn TrimSource<'a>, direction: Direction) -> Self {
        let len = source.len();
        History {
            source,
            len,
            direction,
            messages: (0..len).map(|_| OnceCell::new()).collect(),
            tokens: (0..len).map(|_| OnceCell::new()).collect(),
            error: RefCell::new(None),
            first_calls: RefCell::default(),
            last_results: RefCell::default(),
            reach: RefCell::new(vec![None]),
            sums: RefCell::new((None, Vec::new())),
        }
    }

    /// The error of the first read that failed, if any.
    pub(super) fn finish(self) -> Result<()> {
        match self.error.into_inner() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Message `index`, read on first use; `None` past the end or once a read has failed.
    pub(super) fn message(&self, index: usize) -> Option<&Message> {
        let cell = self.messages.get(index)?;
        if let Some(m) = cell.get() {
            return Some(m);
        }
        if self.error.borrow().is_some() {
            return None;
        }
        match self.source.read(index) {
            Ok(m) => Some(cell.get_or_init(|| m)),
            Err(e) => {
                *self.error.borrow_mut() = Some(e);
                None
            }
        }
    }

    /// Tokens of message `index` (0 when it cannot be read).
    pub(super) fn tokens(&self, index: usize) -> usize {
        let Some(cell) = self.tokens.get(index) else {
            return 0;
        };
        if let Some(t) = cell.get() {
            return *t;
        }
        let Some(message) = self.message(index) else {
            return 0;
        };
        *cell.get_or_init(|| self.source.tokens(index, message))
    }

    /// Tokens of messages `from..to`, saturating.
    pub(super) fn sum(&self, from: usize, to: usize) -> usize {
        let to = to.min(self.len);
        if from >= to {
            return 0;
        }
        let (anchor, span) = match self.direction {
            Direction::FromEnd => (to, to - from),
            Direction::FromStart => (from, to - from),
        };
        let mut sums = self.sums.borrow_mut();
        if sums.0 != Some(anchor) {
            *sums = (Some(anchor), vec![0]);
        }
        while sums.1.len() <= span {
            let k = sums.1.len();
            let index = match self.direction {
                Direction::FromEnd => anchor - k,
                Direction::FromStart => anchor + k - 1,
            };
            let before = sums.1.last().copied().unwrap_or(0);
            sums.1.push(before.saturating_add(self.tokens(index)));
        }
        sums.1.get(span).copied().unwrap_or(0)
    }

    /// True when cutting before message `c` keeps every tool call with its results (positions
    /// `0` and `len` always are; past `len` none is).
    pub(super) fn is_safe(&self, c: usize) -> bool {
        if c == 0 || c == self.len {
            return true;
        }
        if c > self.len {
            return false;
        }
        match self.direction {
            Direction::FromEnd => self.reach_to(self.len - c).is_none_or(|first| first >= c),
            Direction::FromStart => self.reach_to(c).is_none_or(|last| last < c),
        }
    }

    /// `reach[k]`, extending it as far as needed.
    fn reach_to(&self, k: usize) -> Option<usize> {
        loop {
            let known = self.reach.borrow().len();
            if known > k {
                return self.reach.borrow().get(k).copied().flatten();
            }
            let before = self.reach.borrow().last().copied().flatten();
            let next = match self.direction {
                Direction::FromEnd => {
                    let index = self.len - known;
                    let results = self.ids_of(index, Part::is_tool_result);
                    results
                        .iter()
                        .filter_map(|id| self.first_call(id))
                        .chain(before)
                        .min()
                }
                Direction::FromStart => {
                    let index = known - 1;
                    let calls = self.ids_of(index, |p| matches!(p, Part::ToolCall { .. }));
                    calls
                        .iter()
                        .filter_map(|id| self.last_result(id))
                        .chain(before)
                        .max()
                }
            };
            self.reach.borrow_mut().push(next);
        }
    }

    /// The ids of the parts of message `index` that `which` selects.
    fn ids_of(&self, index: usize, which: impl Fn(&Part) -> bool) -> Vec<String> {
        self.message(index).map_or_else(Vec::new, |m| {
            m.parts
                .iter()
                .filter(|p| which(p))
                .filter_map(part_id)
                .map(str::to_string)
                .collect()
        })
    }

    /// The possible holders of `id`, ascending, within the history.
    fn holders(&self, id: &str) -> Vec<usize> {
        let mut at = self.source.holders(id);
        at.retain(|&i| i < self.len);
        at.sort_unstable();
        at.dedup();
        at
    }

    /// The first message that calls `id`, if any does.
    pub(super) fn first_call(&self, id: &str) -> Option<usize> {
        if let Some(found) = self.first_calls.borrow().get(id) {
            return *found;
        }
        let found = self
            .holders(id)
            .into_iter()
            .find(|&h| self.holds(h, id, |p| matches!(p, Part::ToolCall { .. })));
        self.first_calls.borrow_mut().insert(id.to_string(), found);
        found
    }

    /// The last message that answers `id`, if any does.
    fn last_result(&self, id: &str) -> Option<usize> {
        if let Some(found) = self.last_results.borrow().get(id) {
            return *found;
        }
        let found = self
            .holders(id)
            .into_iter()
            .rev()
            .find(|&h| self.holds(h, id, Part::is_tool_result));
        self.last_results.borrow_mut().insert(id.to_string(), found);
        found
    }

    /// True when message `index` has a part that `which` selects with tool id `id`.
    fn holds(&self, index: usize, id: &str, which: impl Fn(&Part) -> bool) -> bool {
        self.message(index)
            .is_some_and(|m| m.parts.iter().any(|p| which(p) && part_id(p) == Some(id)))
    }

    /// True when a message other than `index` calls or answers `id`.
    pub(super) fn elsewhere(&self, id: &str, index: usize) -> bool {
        self.holders(id)
            .into_iter()
            .any(|h| h != index && self.holds(h, id, Part::is_tool_data))
    }

    /// True when message `index` (only `parts` of it, when given) counts as one of `roles`: a
    /// user message that carries a tool result counts as `tool`.
    pub(super) fn matches(&self, roles: &[Role], index: usize, parts: Option<&[usize]>) -> bool {
        let Some(message) = self.message(index) else {
            return false;
        };
        let carries_result = match parts {
            Some(parts) => parts
                .iter()
                .any(|&p| message.parts.get(p).is_some_and(Part::is_tool_result)),
            None => message.is_tool_result_carrier(),
        };
        let kind = if message.role == Role::User && carries_result {
            Role::Tool
        } else {
            message.role
        };
        roles.contains(&kind)
    }
}

/// The tool id of a call or a result.
fn part_id(part: &Part) -> Option<&str> {
    match part {
        Part::ToolCall { id, .. } | Part::ToolResult { id, .. } => Some(id),
        _ => None,
    }
}
