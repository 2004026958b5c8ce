#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
//! Estimation over every real session of `tests/fixtures` (pi and Claude Code): the sums are
//! consistent, exact `o200k_base` counts agree with the heuristic per kind, the cache returns the
//! same numbers without re-tokenizing, and calibration with pi's recorded usage is that usage plus
//! the estimate of the later messages.

#[path = "common/fixtures.rs"]
mod fixtures;

use std::path::Path;
use std::rc::Rc;

use context_compaction::core::estimate::{
    calibrate, Counter, EstimateCache, Estimator, Kind, KindTokens, Usage,
};
use context_compaction::core::message::{Message, Role};
use context_compaction::core::tokens::{Encoding, EncodingName};
use context_compaction::formats::claude_code::import_claude_code;
use context_compaction::formats::pi_session::import_pi_session;

/// `(name, is_pi, messages of the whole file, context as sent now)` of every session.
fn sessions() -> Vec<(String, bool, Vec<Message>, Vec<Message>)> {
    let mut out = Vec::new();
    for (sub, is_pi) in [("pi", true), ("claude-code", false)] {
        for file in fixtures::files(sub) {
            let text = std::fs::read_to_string(&file).unwrap();
            let session = if is_pi {
                import_pi_session(&text)
            } else {
                import_claude_code(&text)
            }
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let name = format!("{sub}/{}", file.file_name().unwrap().to_string_lossy());
            let context = session.context();
            out.push((name, is_pi, session.messages, context));
        }
    }
    assert!(out.len() >= 4, "expected the pi and Claude Code fixtures");
    out
}

fn o200k() -> Rc<Encoding> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("encodings/o200k_base.tiktoken");
    let table = std::fs::read(path).unwrap();
    Rc::new(Encoding::parse(EncodingName::O200kBase, &table).unwrap())
}

#[test]
fn sums_are_consistent_and_exact_agrees_with_heuristic() {
    let heuristic = Estimator::default();
    let exact = Estimator::new(Counter::Exact(o200k()));
    let mut seen = KindTokens::default();
    for (name, _, messages, _) in sessions() {
        let h = heuristic.estimate_all(&messages);
        let e = exact.estimate_all(&messages);
        for est in [&h, &e] {
            assert_eq!(est.per_message.len(), messages.len(), "{name}");
            assert_eq!(est.by_kind.total(), est.total, "{name}: by_kind");
            assert_eq!(
                est.per_message.iter().sum::<usize>(),
                est.total,
                "{name}: per_message"
            );
            let kinds: KindTokens = est.per_message_kinds.iter().copied().sum();
            assert_eq!(kinds, est.by_kind, "{name}");
            assert!(est.total > 0, "{name}");
        }
        for kind in Kind::ALL {
            let (hk, ek) = (h.by_kind.get(kind), e.by_kind.get(kind));
            seen.add_kind(kind, hk);
            if hk < 200 {
                continue; // too few tokens for a ratio to mean anything
            }
            let ratio = ek as f64 / hk as f64;
            eprintln!("{name}: {kind:?} heuristic {hk} exact {ek} ratio {ratio:.3}");
            assert!(
                (0.85..=1.3).contains(&ratio),
                "{name}: {kind:?} exact {ek} vs heuristic {hk} (ratio {ratio:.3})"
            );
        }
        let ratio = e.total as f64 / h.total as f64;
        assert!((0.85..=1.3).contains(&ratio), "{name}: total ratio {ratio}");
    }
    // the fixtures exercise text, tool calls, tool results and reasoning
    for kind in [
        Kind::Text,
        Kind::ToolCalls,
        Kind::ToolResults,
        Kind::Reasoning,
    ] {
        assert!(seen.get(kind) > 1_000, "{kind:?}: {}", seen.get(kind));
    }
}

#[test]
fn cache_hits_give_the_same_numbers_in_exact_mode() {
    let exact = Estimator::new(Counter::Exact(o200k()));
    for (name, _, messages, _) in sessions() {
        let mut cache = EstimateCache::new(1 << 16);
        let plain = exact.estimate_all(&messages);
        let misses = cache.misses();
        let first = cache.estimate_all(&exact, &messages);
        let second = cache.estimate_all(&exact, &messages);
        assert_eq!(first, plain, "{name}");
        assert_eq!(second, plain, "{name}");
        // the second pass never re-tokenized (identical messages share one entry)
        assert_eq!(cache.misses() - misses, cache_distinct(&messages), "{name}");
        // a growing conversation: only the new message misses
        let before = cache.misses();
        let mut grown = messages.clone();
        grown.push(Message::text(
            Role::User,
            format!("one more message for {name}"),
        ));
        let g = cache.estimate_all(&exact, &grown);
        assert_eq!(cache.misses(), before + 1, "{name}");
        assert_eq!(g, exact.estimate_all(&grown), "{name}");
    }
}

fn cache_distinct(messages: &[Message]) -> u64 {
    let keys: std::collections::HashSet<_> = messages
        .iter()
        .map(context_compaction::core::estimate::message_key)
        .collect();
    keys.len() as u64
}

#[test]
fn calibration_with_recorded_pi_usage() {
    let estimator = Estimator::default();
    let mut checked = 0;
    for (name, is_pi, _, context) in sessions() {
        if !is_pi {
            continue;
        }
        // the last assistant message with a real (non-zero) usage, and up to 3 later messages
        // that are not assistant messages
        let usage_of = |m: &Message| {
            m.original
                .as_ref()
                .and_then(|o| o.get("usage"))
                .and_then(|u| Usage::from_value(&u))
        };
        let anchor = context
            .iter()
            .rposition(|m| m.role == Role::Assistant && usage_of(m).is_some_and(|u| u.total() > 0))
            .unwrap_or_else(|| panic!("{name}: no assistant usage"));
        let end = (anchor + 1..context.len())
            .take(3)
            .take_while(|&i| context[i].role != Role::Assistant)
            .last()
            .map_or(anchor + 1, |i| i + 1);
        let prefix = &context[..end];
        let usage = usage_of(&context[anchor]).unwrap();
        let est = estimator.estimate_all(prefix);
        let c = calibrate(prefix, &est.per_message, &usage);
        let later: usize = prefix[anchor + 1..]
            .iter()
            .map(|m| estimator.estimate_message(m).total())
            .sum();
        assert_eq!(c.anchor, Some(anchor), "{name}");
        assert_eq!(c.total as u64, usage.total() + later as u64, "{name}");
        assert_eq!(c.estimated, later, "{name}");
        // The reported context includes the system prompt and tools and counts with Claude's
        // tokenizer; the heuristic estimate of the messages is of the same order.
        let up_to: usize = est.per_message[..=anchor].iter().sum();
        let ratio = up_to as f64 / usage.total() as f64;
        eprintln!(
            "{name}: usage {} estimate {up_to} ratio {ratio:.3}",
            usage.total()
        );
        assert!((0.7..=1.1).contains(&ratio), "{name}: ratio {ratio}");
        // a prefix without an assistant message falls back to the plain estimate
        let first_user = &context[..1];
        let plain = estimator.estimate_all(first_user);
        if first_user[0].role != Role::Assistant {
            assert_eq!(
                calibrate(first_user, &plain.per_message, &usage).total,
                plain.total
            );
        }
        checked += 1;
    }
    assert!(checked >= 2);
}
