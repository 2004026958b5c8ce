#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
//! `trim` (LangChain `trimMessages`): LangChain's documented examples, then properties over
//! generated agent histories with parallel tool calls, results in tool messages or Anthropic-style
//! user carriers, provider-executed results inside the assistant message and pending tail calls.

#[path = "common/trim_parts.rs"]
mod trim_parts;

use context_compaction::core::message::{Message, Part, Role};
use context_compaction::core::trim::{trim, TrimOptions, TrimStrategy, Trimmed, TrimmedMessage};
use context_compaction::core::validate::{validate, ViolationKind};
use proptest::prelude::*;
use trim_parts::{call, part_cost, result, roles};

fn whole(index: usize) -> TrimmedMessage {
    TrimmedMessage { index, parts: None }
}
fn partial(index: usize, parts: &[usize]) -> TrimmedMessage {
    TrimmedMessage {
        index,
        parts: Some(parts.to_vec()),
    }
}
fn texts(role: Role, texts: &[&str]) -> Message {
    Message::new(role, texts.iter().map(|t| Part::text(*t)).collect())
}

// ---------------------------------------------------------------------------------------------
// LangChain.js how-to "trim messages" (gpt-4 counts; string contents are one text part each).
// Counts chosen so that every documented outcome follows: sys 13, h1 8, a1 25, h2 8, a2 22, h3 8.

fn js_history() -> (Vec<Message>, Vec<usize>) {
    let m = vec![
        Message::text(
            Role::System,
            "you're a good assistant, you always respond with a joke.",
        ),
        Message::text(Role::User, "i wonder why it's called langchain"),
        Message::text(
            Role::Assistant,
            "Well, I guess they thought \"WordRope\"...",
        ),
        Message::text(Role::User, "and who is harrison chasing anyways"),
        Message::text(
            Role::Assistant,
            "Hmmm let me think.\n\nWhy, he's probably chasing...",
        ),
        Message::text(Role::User, "what do you call a speechless parrot"),
    ];
    (m, vec![13, 8, 25, 8, 22, 8])
}

fn js(options: TrimOptions) -> Vec<usize> {
    let (m, t) = js_history();
    let kept = trim(&m, &t, &|_| 0, &options).unwrap();
    assert!(kept.kept.iter().all(|k| k.parts.is_none()));
    kept.kept.iter().map(|k| k.index).collect()
}

#[test]
fn langchain_js_last_first_include_system_start_on() {
    assert_eq!(js(TrimOptions::new(45)), vec![3, 4, 5]);
    let sys = |max| TrimOptions {
        include_system: true,
        ..TrimOptions::new(max)
    };
    assert_eq!(js(sys(45)), vec![0, 4, 5]);
    // allowPartial cannot split a one-block message (textSplitter is out of scope)
    assert_eq!(
        js(TrimOptions {
            allow_partial: true,
            ..sys(50)
        }),
        vec![0, 4, 5]
    );
    assert_eq!(
        js(TrimOptions {
            start_on: vec![Role::User],
            ..sys(60)
        }),
        vec![0, 3, 4, 5]
    );
    assert_eq!(
        js(TrimOptions {
            strategy: TrimStrategy::First,
            ..TrimOptions::new(45)
        }),
        vec![0, 1]
    );
}

// ---------------------------------------------------------------------------------------------
// LangChain's `trim_messages` docstring: every block costs 4, every message 3 + 3 more.

fn doc_history() -> Vec<Message> {
    let line = "This is a 4 token text. The full message is 10 tokens.";
    vec![
        Message::text(Role::System, line),
        Message::text(Role::User, line),
        texts(
            Role::Assistant,
            &[
                "This is the FIRST 4 token block.",
                "This is the SECOND 4 token block.",
            ],
        ),
        Message::text(Role::User, line),
        Message::text(Role::Assistant, line),
    ]
}

fn doc(options: TrimOptions) -> Vec<TrimmedMessage> {
    let m = doc_history();
    let t: Vec<usize> = m.iter().map(|m| 6 + 4 * m.parts.len()).collect();
    trim(&m, &t, &|_| 4, &options).unwrap().kept
}

#[test]
fn langchain_docstring_examples() {
    let first = |max, allow_partial| TrimOptions {
        strategy: TrimStrategy::First,
        allow_partial,
        ..TrimOptions::new(max)
    };
    // first 30, partial: the assistant's FIRST block
    assert_eq!(
        doc(first(30, true)),
        vec![whole(0), whole(1), partial(2, &[0])]
    );
    assert_eq!(doc(first(30, false)), vec![whole(0), whole(1)]);
    let last = |max, allow_partial| TrimOptions {
        include_system: true,
        allow_partial,
        ..TrimOptions::new(max)
    };
    assert_eq!(doc(last(30, false)), vec![whole(0), whole(3), whole(4)]);
    // last 40, partial: the assistant's SECOND block
    assert_eq!(
        doc(last(40, true)),
        vec![whole(0), partial(2, &[1]), whole(3), whole(4)]
    );
    // endOn human first drops the final assistant message, then the budget applies
    assert_eq!(
        doc(TrimOptions {
            end_on: vec![Role::User],
            ..last(30, true)
        }),
        vec![whole(0), partial(2, &[1]), whole(3)]
    );
    // startOn human drops the partial assistant message again
    assert_eq!(
        doc(TrimOptions {
            start_on: vec![Role::User],
            ..last(40, true)
        }),
        vec![whole(0), whole(3), whole(4)]
    );
    // the system message alone over budget: nothing
    assert!(doc(last(9, true)).is_empty());
    // endOn with "first": trailing kept messages that are not assistant messages go
    assert_eq!(
        doc(TrimOptions {
            end_on: vec![Role::Assistant],
            ..first(30, true)
        }),
        vec![whole(0), whole(1), partial(2, &[0])]
    );
    assert!(doc(TrimOptions {
        end_on: vec![Role::Assistant],
        ..first(29, false)
    })
    .is_empty());
}

// ---------------------------------------------------------------------------------------------
// Properties.

#[derive(Clone, Debug)]
enum Step {
    /// Text parts of a user message.
    User(Vec<String>),
    /// Text parts, number of parallel calls, results as an Anthropic carrier (with trailing text?),
    /// result order seed, one provider-executed pair inside the message.
    Agent(Vec<String>, usize, Option<bool>, usize, bool),
}

fn step() -> impl Strategy<Value = Step> {
    let text = "[a-z ]{0,20}";
    prop_oneof![
        2 => prop::collection::vec(text, 1..3).prop_map(Step::User),
        3 => (
            prop::collection::vec(text, 0..3),
            0usize..4,
            prop::option::of(any::<bool>()),
            any::<usize>(),
            prop::bool::weighted(0.2),
        )
            .prop_map(|(t, n, c, o, p)| Step::Agent(t, n, c, o, p)),
    ]
}

/// Well-formed histories; the last agent step's calls may be pending (no results yet).
fn build(system: bool, steps: &[Step], pending: bool) -> Vec<Message> {
    let mut out = Vec::new();
    if system {
        out.push(texts(Role::System, &["be brief", "use tools"]));
    }
    let mut fresh = 0;
    for (si, s) in steps.iter().enumerate() {
        match s {
            Step::User(t) => out.push(Message::new(
                Role::User,
                t.iter().map(|t| Part::text(t.clone())).collect(),
            )),
            Step::Agent(t, n, carrier, order, executed) => {
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
                if (pending && si + 1 == steps.len()) || ids.is_empty() {
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

fn options() -> impl Strategy<Value = TrimOptions> {
    (
        any::<bool>(),
        0usize..250,
        prop_oneof![3 => Just(0u8), 1 => 0u8..16],
        prop_oneof![3 => Just(0u8), 1 => 0u8..16],
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
        prop::collection::vec(step(), 0..12),
        any::<bool>(),
    )
        .prop_flat_map(|(system, steps, pending)| {
            let m = build(system, &steps, pending);
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

/// The priced total, computed independently of the implementation.
fn priced(m: &[Message], t: &[usize], kept: &Trimmed) -> usize {
    kept.kept
        .iter()
        .map(|k| match &k.parts {
            None => t[k.index],
            Some(parts) => {
                let dropped: usize = m[k.index]
                    .parts
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !parts.contains(i))
                    .map(|(_, p)| part_cost(p))
                    .sum();
                t[k.index].saturating_sub(dropped)
            }
        })
        .sum()
}

/// LangChain's message type: a user message carrying tool results is a tool message.
fn kind(m: &Message) -> Role {
    if m.role == Role::User && m.is_tool_result_carrier() {
        Role::Tool
    } else {
        m.role
    }
}

fn pairing_violations(m: &[Message]) -> Vec<(ViolationKind, Option<String>)> {
    validate(m)
        .into_iter()
        .filter(|v| {
            matches!(
                v.kind,
                ViolationKind::OrphanResult
                    | ViolationKind::UnansweredCall
                    | ViolationKind::ResultBeforeCall
                    | ViolationKind::EmptyMessage
            )
        })
        .map(|v| (v.kind, v.id))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(768)))]

    #[test]
    fn trim_keeps_pairs_budget_and_order((m, t) in history(), o in options()) {
        prop_assert!(validate(&m).is_empty(), "generator built an invalid history");
        let kept = trim(&m, &t, &part_cost, &o).unwrap();
        prop_assert!(priced(&m, &t, &kept) <= o.max_tokens);
        prop_assert!(kept.kept.windows(2).all(|w| w[0].index < w[1].index));
        for k in &kept.kept {
            if let Some(parts) = &k.parts {
                prop_assert!(!parts.is_empty() && parts.len() < m[k.index].parts.len());
                prop_assert!(parts.windows(2).all(|w| w[0] < w[1]));
                prop_assert!(m[k.index].role != Role::Tool);
            }
        }
        let out = kept.apply(&m);
        prop_assert_eq!(pairing_violations(&out), vec![]);
        // options apply where they promise to
        let body: Vec<&TrimmedMessage> = kept.kept.iter()
            .filter(|k| !(o.include_system && k.index == 0 && m[0].role == Role::System))
            .collect();
        if let (Some(first), false) = (body.first(), o.start_on.is_empty()) {
            let msg = &out[kept.kept.iter().position(|k| k.index == first.index).unwrap()];
            let kind = kind(msg);
            prop_assert!(o.start_on.contains(&kind));
        }
        if let (Some(last), false) = (out.last(), o.end_on.is_empty()) {
            let kind = kind(last);
            // with includeSystem the held-apart system message may be all that is left
            prop_assert!(o.end_on.contains(&kind) || (body.is_empty() && o.include_system));
        }
        // deterministic
        prop_assert_eq!(trim(&m, &t, &part_cost, &o).unwrap(), kept);
    }

    #[test]
    fn last_is_monotonic_in_the_budget(
        (m, t) in history(),
        o in options(),
        more in 0usize..100,
    ) {
        let o = TrimOptions { strategy: TrimStrategy::Last, ..o };
        let small = trim(&m, &t, &part_cost, &o).unwrap();
        let large = trim(&m, &t, &part_cost, &TrimOptions { max_tokens: o.max_tokens + more, ..o.clone() })
            .unwrap();
        prop_assert!(priced(&m, &t, &small) <= priced(&m, &t, &large));
    }

    #[test]
    fn without_tools_it_is_langchain(
        sys in any::<bool>(),
        msgs in prop::collection::vec((0u8..2, 1usize..4, 1usize..6), 0..10),
        o in options(),
    ) {
        let mut m: Vec<Message> = Vec::new();
        if sys {
            m.push(Message::text(Role::System, "s"));
        }
        for (r, blocks, _) in &msgs {
            let role = if *r == 0 { Role::User } else { Role::Assistant };
            m.push(Message::new(role, vec![Part::text("b"); *blocks]));
        }
        // every part costs 3, every message that plus a 1..6 overhead
        let t: Vec<usize> = m.iter().enumerate()
            .map(|(i, x)| 3 * x.parts.len() + if sys && i == 0 { 2 } else { msgs[i - usize::from(sys)].2 })
            .collect();
        let got = trim(&m, &t, &|_| 3, &o).unwrap();
        prop_assert_eq!(got, reference(&m, &t, &o));
    }
}

/// A direct port of LangChain.js `_firstMaxTokens` / `_lastMaxTokens` for histories without tool
/// data and with block contents, with our two documented differences (the last candidate may be
/// split; a held-apart system message survives `startOn`).
fn reference(m: &[Message], t: &[usize], o: &TrimOptions) -> Trimmed {
    if o.max_tokens == 0 {
        return Trimmed::default();
    }
    let cost = |idx: &[usize]| idx.iter().map(|&i| t[i]).sum::<usize>();
    let split = |i: usize, budget: usize, keep_last: bool| -> Option<Vec<usize>> {
        let n = m[i].parts.len();
        let fits = (1..n).rev().find(|k| t[i] - 3 * (n - k) <= budget)?;
        Some(if keep_last {
            (n - fits..n).collect()
        } else {
            (0..fits).collect()
        })
    };
    let mut kept: Vec<TrimmedMessage> = Vec::new();
    match o.strategy {
        TrimStrategy::First => {
            let all: Vec<usize> = (0..m.len()).collect();
            let idx = (0..=m.len())
                .rev()
                .find(|&e| cost(&all[..e]) <= o.max_tokens)
                .unwrap();
            kept.extend((0..idx).map(whole));
            if o.allow_partial && idx < m.len() {
                if let Some(p) = split(idx, o.max_tokens - cost(&all[..idx]), false) {
                    kept.push(partial(idx, &p));
                }
            }
            if !o.end_on.is_empty() {
                while kept
                    .last()
                    .is_some_and(|k| !o.end_on.contains(&m[k.index].role))
                {
                    kept.pop();
                }
            }
        }
        TrimStrategy::Last => {
            let mut end = m.len();
            if !o.end_on.is_empty() {
                while end > 0 && !o.end_on.contains(&m[end - 1].role) {
                    end -= 1;
                }
            }
            let swapped = o.include_system && end > 0 && m[0].role == Role::System;
            let floor = usize::from(swapped);
            let mut budget = o.max_tokens;
            if swapped {
                if t[0] > budget {
                    return Trimmed::default();
                }
                budget -= t[0];
            }
            let body: Vec<usize> = (floor..end).collect();
            let start = (0..=body.len())
                .find(|&s| cost(&body[s..]) <= budget)
                .unwrap()
                + floor;
            let mut tail: Vec<TrimmedMessage> = (start..end).map(whole).collect();
            if o.allow_partial && start > floor {
                if let Some(p) = split(start - 1, budget - cost(&body[start - floor..]), true) {
                    tail.insert(0, partial(start - 1, &p));
                }
            }
            if !o.start_on.is_empty() {
                while tail
                    .first()
                    .is_some_and(|k| !o.start_on.contains(&m[k.index].role))
                {
                    tail.remove(0);
                }
            }
            if swapped {
                kept.push(whole(0));
            }
            kept.extend(tail);
        }
    }
    Trimmed { kept }
}
