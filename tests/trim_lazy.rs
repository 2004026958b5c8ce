#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
//! `trim_history` (messages read on demand, as `trimMessages` reads the caller's array) against the
//! whole-array `trim` it replaced (`common/trim_reference.rs`): the same messages and parts kept for
//! random histories, budgets and options, including orphans, duplicate ids, results before their
//! calls, parallel calls, pairs split across the boundary and Anthropic carriers; with sources whose
//! id index names extra messages (hash collisions) or every message, and with sources where some
//! messages cannot be read. Then how few messages a long history costs.

#[path = "common/trim_parts.rs"]
mod trim_parts;
#[path = "common/trim_reference.rs"]
mod trim_reference;

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;

use context_compaction::core::error::{Error, Result};
use context_compaction::core::message::{Message, Part, Role};
use context_compaction::core::trim::{
    trim, trim_history, TrimOptions, TrimSource, TrimStrategy, TrimmedHistory,
};
use proptest::prelude::*;
use trim_parts::{call, part_cost, result, roles};
use trim_reference::reference_trim;

fn texts(role: Role, texts: &[String]) -> Message {
    Message::new(role, texts.iter().map(|t| Part::text(t.clone())).collect())
}

#[derive(Clone, Debug)]
enum Step {
    User(Vec<String>),
    /// Text parts, parallel calls, results in an Anthropic carrier (with trailing text?) or in tool
    /// messages, result order seed, a provider-executed pair inside the message, calls left pending.
    Agent(Vec<String>, usize, Option<bool>, usize, bool, bool),
    System(Vec<String>),
}

/// Damage done to a well-formed history.
#[derive(Clone, Debug)]
enum Damage {
    /// Drops a message: its partners become orphans or unanswered calls.
    Remove(usize),
    /// Moves a message elsewhere: results before their calls, pairs far apart.
    Move(usize, usize),
    /// Renames the id of one tool part to the id of another: duplicate ids.
    Alias(usize, usize),
    /// Inserts a tool message answering a call that exists nowhere.
    Ghost(usize),
}

fn step() -> impl Strategy<Value = Step> {
    let text = "[a-z ]{0,24}";
    prop_oneof![
        3 => prop::collection::vec(text, 1..3).prop_map(Step::User),
        5 => (
            prop::collection::vec(text, 0..3),
            0usize..4,
            prop::option::of(any::<bool>()),
            any::<usize>(),
            prop::bool::weighted(0.2),
            prop::bool::weighted(0.1),
        )
            .prop_map(|(t, n, c, o, x, p)| Step::Agent(t, n, c, o, x, p)),
        1 => prop::collection::vec(text, 1..3).prop_map(Step::System),
    ]
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        (any::<usize>()).prop_map(Damage::Remove),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Damage::Move(a, b)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Damage::Alias(a, b)),
        (any::<usize>()).prop_map(Damage::Ghost),
    ]
}

fn build(system: bool, steps: &[Step]) -> Vec<Message> {
    let mut out = Vec::new();
    if system {
        out.push(texts(
            Role::System,
            &["be brief".into(), "use tools".into()],
        ));
    }
    let mut fresh = 0;
    for s in steps {
        match s {
            Step::User(t) => out.push(texts(Role::User, t)),
            Step::System(t) => out.push(texts(Role::System, t)),
            Step::Agent(t, n, carrier, order, executed, pending) => {
                let mut parts: Vec<Part> = t.iter().map(|t| Part::text(t.clone())).collect();
                if *executed {
                    fresh += 1;
                    let id = format!("x{fresh}");
                    parts.push(call(&id));
                    parts.push(result(&id));
                }
                let mut ids = Vec::new();
                for _ in 0..*n {
                    fresh += 1;
                    ids.push(format!("c{fresh}"));
                    parts.push(call(&format!("c{fresh}")));
                }
                if parts.is_empty() {
                    parts.push(Part::text("…"));
                }
                out.push(Message::new(Role::Assistant, parts));
                if *pending || ids.is_empty() {
                    continue;
                }
                let shift = order % ids.len();
                ids.rotate_left(shift);
                match carrier {
                    Some(with_text) => {
                        let mut parts: Vec<Part> = ids.iter().map(|id| result(id)).collect();
                        if *with_text {
                            parts.push(Part::text("also look at this"));
                        }
                        out.push(Message::new(Role::User, parts));
                    }
                    None => {
                        for id in &ids {
                            out.push(Message::new(Role::Tool, vec![result(id)]));
                        }
                    }
                }
            }
        }
    }
    out
}

fn harm(m: &mut Vec<Message>, damage: &[Damage]) {
    for d in damage {
        match *d {
            Damage::Remove(a) if !m.is_empty() => {
                m.remove(a % m.len());
            }
            Damage::Move(a, b) if !m.is_empty() => {
                let message = m.remove(a % m.len());
                m.insert(b % (m.len() + 1), message);
            }
            Damage::Alias(a, b) => {
                let ids: Vec<(usize, usize, String)> = m
                    .iter()
                    .enumerate()
                    .flat_map(|(i, x)| {
                        x.parts
                            .iter()
                            .enumerate()
                            .filter_map(move |(p, part)| match part {
                                Part::ToolCall { id, .. } | Part::ToolResult { id, .. } => {
                                    Some((i, p, id.clone()))
                                }
                                _ => None,
                            })
                    })
                    .collect();
                if ids.is_empty() {
                    continue;
                }
                let (i, p, _) = ids[a % ids.len()].clone();
                let to = ids[b % ids.len()].2.clone();
                if let Part::ToolCall { id, .. } | Part::ToolResult { id, .. } = &mut m[i].parts[p]
                {
                    *id = to;
                }
            }
            Damage::Ghost(a) => {
                let at = a % (m.len() + 1);
                m.insert(
                    at,
                    Message::new(Role::Tool, vec![result(&format!("ghost{a}"))]),
                );
            }
            _ => {}
        }
    }
}

fn options() -> impl Strategy<Value = TrimOptions> {
    (
        any::<bool>(),
        prop_oneof![1 => Just(0usize), 8 => 0usize..300, 1 => 300usize..2000],
        prop_oneof![3 => Just(0u8), 2 => 0u8..16],
        prop_oneof![3 => Just(0u8), 2 => 0u8..16],
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(first, max, start, end, sys, partial)| TrimOptions {
            max_tokens: max,
            strategy: if first {
                TrimStrategy::First
            } else {
                TrimStrategy::Last
            },
            start_on: if first { Vec::new() } else { roles(start) },
            end_on: roles(end),
            include_system: sys && !first,
            allow_partial: partial,
        })
}

fn history() -> impl Strategy<Value = (Vec<Message>, Vec<usize>)> {
    (
        any::<bool>(),
        prop::collection::vec(step(), 0..16),
        prop::collection::vec(damage(), 0..4),
    )
        .prop_flat_map(|(system, steps, damage)| {
            let mut m = build(system, &steps);
            harm(&mut m, &damage);
            let n = m.len();
            (Just(m), prop::collection::vec(0usize..8, n))
        })
        .prop_map(|(m, overhead)| {
            let t = m
                .iter()
                .zip(&overhead)
                .map(|(m, o)| o + m.parts.iter().map(part_cost).sum::<usize>())
                .collect();
            (m, t)
        })
}

/// Which messages the id index names for an id besides those that hold it.
#[derive(Clone, Copy, Debug)]
enum Extra {
    /// Only the holders.
    None,
    /// Some others, picked by a hash of the id and the seed (as hash collisions would).
    Seeded(u64),
    /// Every message.
    All,
}

/// A history read through [`TrimSource`], recording its reads; messages flagged `failing` cannot
/// be read.
struct Source<'m> {
    messages: &'m [Message],
    tokens: &'m [usize],
    exact: HashMap<String, Vec<usize>>,
    extra: Extra,
    failing: Vec<bool>,
    reads: RefCell<Vec<usize>>,
}

impl<'m> Source<'m> {
    fn new(messages: &'m [Message], tokens: &'m [usize], extra: Extra, failing: Vec<bool>) -> Self {
        let mut exact: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, m) in messages.iter().enumerate() {
            for id in m.tool_call_ids().into_iter().chain(m.tool_result_ids()) {
                exact.entry(id.to_string()).or_default().push(i);
            }
        }
        Source {
            messages,
            tokens,
            exact,
            extra,
            failing,
            reads: RefCell::new(Vec::new()),
        }
    }
}

fn mix(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^ (h >> 33)
}

impl<'m> TrimSource<'m> for Source<'m> {
    fn len(&self) -> usize {
        self.messages.len()
    }

    fn read(&self, index: usize) -> Result<Cow<'m, Message>> {
        self.reads.borrow_mut().push(index);
        if self.failing.get(index).copied().unwrap_or(false) {
            return Err(Error::invalid_input(
                format!("messages[{index}]"),
                "unreadable",
            ));
        }
        Ok(Cow::Borrowed(&self.messages[index]))
    }

    fn tokens(&self, index: usize, message: &Message) -> usize {
        assert!(std::ptr::eq(message, &self.messages[index]));
        self.tokens[index]
    }

    fn holders(&self, id: &str) -> Vec<usize> {
        // Deliberately unordered, with repeats: the reader must not rely on either.
        let mut at: Vec<usize> = self.exact.get(id).cloned().unwrap_or_default();
        at.reverse();
        let n = self.messages.len();
        match self.extra {
            Extra::None => {}
            Extra::All => at.extend((0..n).rev()),
            Extra::Seeded(seed) => {
                let h = id.bytes().fold(seed, |h, b| mix(h ^ u64::from(b)));
                at.extend((0..n).filter(|&i| mix(h ^ i as u64).is_multiple_of(4)));
            }
        }
        at
    }
}

fn extra() -> impl Strategy<Value = Extra> {
    prop_oneof![
        2 => Just(Extra::None),
        2 => any::<u64>().prop_map(Extra::Seeded),
        1 => Just(Extra::All),
    ]
}

/// The messages kept in part as `trim_history` reports them, checked against `Trimmed::apply`;
/// and no kept tool result without a call somewhere in the kept messages.
fn check_partial(m: &[Message], got: &TrimmedHistory) -> std::result::Result<(), TestCaseError> {
    let applied = got.trimmed.apply(m);
    let expected: Vec<Message> = got
        .trimmed
        .kept
        .iter()
        .zip(applied.iter().cloned())
        .filter(|(k, _)| k.parts.is_some())
        .map(|(_, message)| message)
        .collect();
    prop_assert_eq!(&got.partials, &expected);
    // `messages()` gives each kept index, with its rebuilt message when it is kept in part
    prop_assert_eq!(got.messages().count(), got.trimmed.kept.len());
    let each = got.trimmed.kept.iter().zip(&applied);
    for ((index, partial), (k, message)) in got.messages().zip(each) {
        prop_assert_eq!(index, k.index);
        prop_assert_eq!(partial, k.parts.as_ref().map(|_| message));
    }
    let calls: std::collections::HashSet<&str> =
        applied.iter().flat_map(Message::tool_call_ids).collect();
    for id in applied.iter().flat_map(Message::tool_result_ids) {
        prop_assert!(calls.contains(id), "an orphan result is kept: {}", id);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(1024)))]

    #[test]
    fn on_demand_trim_keeps_what_the_whole_array_trim_kept(
        (m, t) in history(),
        o in options(),
        extra in extra(),
    ) {
        let expected = reference_trim(&m, &t, &part_cost, &o).unwrap();
        prop_assert_eq!(&trim(&m, &t, &part_cost, &o).unwrap(), &expected);
        let source = Source::new(&m, &t, extra, vec![false; m.len()]);
        let got = trim_history(&source, &part_cost, &o).unwrap();
        prop_assert_eq!(&got.trimmed, &expected);
        check_partial(&m, &got)?;
        // Each message is read at most once.
        let mut reads = source.reads.into_inner();
        let count = reads.len();
        reads.sort_unstable();
        reads.dedup();
        prop_assert_eq!(reads.len(), count);
    }

    #[test]
    fn unreadable_messages_fail_the_trim_only_when_read(
        (m, t) in history(),
        o in options(),
        extra in extra(),
        seed in any::<u64>(),
    ) {
        let expected = reference_trim(&m, &t, &part_cost, &o).unwrap();
        let clean = Source::new(&m, &t, extra, vec![false; m.len()]);
        trim_history(&clean, &part_cost, &o).unwrap();
        let read = clean.reads.into_inner();
        let failing: Vec<bool> = (0..m.len()).map(|i| mix(seed ^ i as u64).is_multiple_of(5)).collect();
        let source = Source::new(&m, &t, extra, failing.clone());
        match trim_history(&source, &part_cost, &o) {
            Ok(got) => {
                prop_assert_eq!(&got.trimmed, &expected);
                prop_assert!(read.iter().all(|&i| !failing[i]));
            }
            Err(e) => {
                prop_assert!(read.iter().any(|&i| failing[i]), "{e:?}");
                // The error names the first unreadable message read.
                let first = source.reads.borrow().iter().copied().find(|&i| failing[i]).unwrap();
                prop_assert_eq!(e.path, Some(format!("messages[{first}]")));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// How much of a long history a trim reads.

/// 500 agent steps: a user request, an assistant message with two parallel calls, their two tool
/// messages, and a closing answer; every message costs 10.
fn long_history() -> (Vec<Message>, Vec<usize>) {
    let mut m = Vec::new();
    for s in 0..500 {
        let (a, b) = (format!("a{s}"), format!("b{s}"));
        m.push(Message::text(Role::User, "go"));
        m.push(Message::new(Role::Assistant, vec![call(&a), call(&b)]));
        m.push(Message::new(Role::Tool, vec![result(&b)]));
        m.push(Message::new(Role::Tool, vec![result(&a)]));
        m.push(Message::text(Role::Assistant, "done"));
    }
    let t = vec![10; m.len()];
    (m, t)
}

fn reads(m: &[Message], t: &[usize], o: &TrimOptions) -> (Vec<usize>, TrimmedHistory) {
    let source = Source::new(m, t, Extra::None, vec![false; m.len()]);
    let got = trim_history(&source, &part_cost, o).unwrap();
    assert_eq!(got.trimmed, reference_trim(m, t, &part_cost, o).unwrap());
    let mut reads = source.reads.into_inner();
    reads.sort_unstable();
    (reads, got)
}

#[test]
fn last_reads_the_tail_the_message_before_it_and_the_calls_it_answers() {
    let (m, t) = long_history();
    let n = m.len();
    // 25 tokens: the last two messages fit (the one before them is read to learn that it does
    // not); the first of them answers a call made before it, so the tail starts after it.
    let (read, got) = reads(&m, &t, &TrimOptions::new(25));
    assert_eq!(
        got.trimmed.kept.iter().map(|k| k.index).collect::<Vec<_>>(),
        vec![n - 1]
    );
    // the tail, the message before it, and the call message of the result read
    assert_eq!(read, vec![n - 4, n - 3, n - 2, n - 1]);
    // with includeSystem (and a user first message) message 0 is read as well
    let o = TrimOptions {
        include_system: true,
        ..TrimOptions::new(25)
    };
    let (read, _) = reads(&m, &t, &o);
    assert_eq!(read, vec![0, n - 4, n - 3, n - 2, n - 1]);
    // 45 tokens: the whole last step, its calls and results together
    let (read, got) = reads(&m, &t, &TrimOptions::new(45));
    assert_eq!(got.trimmed.kept.len(), 4);
    assert_eq!(read, vec![n - 5, n - 4, n - 3, n - 2, n - 1]);
}

#[test]
fn first_reads_the_head_the_message_after_it_and_the_results_of_its_calls() {
    let (m, t) = long_history();
    let o = TrimOptions {
        strategy: TrimStrategy::First,
        ..TrimOptions::new(35)
    };
    let (read, got) = reads(&m, &t, &o);
    // user, assistant with calls, first tool message fit; the cut falls inside the pair
    assert_eq!(got.trimmed.kept.len(), 1);
    assert_eq!(read, vec![0, 1, 2, 3]);
}

#[test]
fn an_orphan_in_the_tail_is_dropped_without_reading_the_history() {
    let (mut m, mut t) = long_history();
    m.push(Message::new(Role::Tool, vec![result("nowhere")]));
    t.push(10);
    let n = m.len();
    let (read, got) = reads(&m, &t, &TrimOptions::new(25));
    assert_eq!(
        got.trimmed.kept.iter().map(|k| k.index).collect::<Vec<_>>(),
        vec![n - 2]
    );
    assert_eq!(read, vec![n - 3, n - 2, n - 1]);
}
