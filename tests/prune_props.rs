#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
//! Properties every pruner keeps on arbitrary histories (parallel calls, results in any order, in
//! tool messages or Anthropic-style user messages, errors, pinned messages, a summary, missing
//! timestamps): only outputs and inputs change, pairing and validity stay, pinned and summary
//! messages stay, the freed tokens add up, and each style's own protections hold.

use std::collections::HashSet;

use context_compaction::core::message::{Message, Part, Role};
use context_compaction::core::prune::{
    apply, classify, clear_tool_uses, order, prune_opencode, prune_superseded, prune_ttl,
    total_freed, ClearToolInputs, ClearToolUsesOptions, FileAccess, OpenCodeOptions, PruneAction,
    PruneKind, Style, TtlOptions,
};
use context_compaction::core::validate::validate;
use proptest::prelude::*;
use serde_json::json;

const TOOLS: &[&str] = &["read", "Read", "edit", "bash", "skill", "memory"];

fn cost(p: &Part) -> usize {
    p.text_len().div_ceil(4)
}

#[derive(Clone, Debug)]
struct Use {
    tool: usize,
    path: usize,
    size: usize,
    error: bool,
}

#[derive(Clone, Debug)]
enum Step {
    User(bool),
    Tools(Vec<Use>, bool, bool),
}

fn tool_use() -> impl Strategy<Value = Use> {
    (
        0..TOOLS.len(),
        0usize..3,
        0usize..1500,
        prop::bool::weighted(0.1),
    )
        .prop_map(|(tool, path, size, error)| Use {
            tool,
            path,
            size,
            error,
        })
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        1 => prop::bool::weighted(0.1).prop_map(Step::User),
        3 => (prop::collection::vec(tool_use(), 1..4), any::<bool>(), any::<bool>())
            .prop_map(|(u, anthropic, reversed)| Step::Tools(u, anthropic, reversed)),
    ]
}

fn build(summary: bool, steps: &[Step], gaps: &[Option<i64>]) -> Vec<Message> {
    let mut h = vec![Message::text(Role::System, "system prompt")];
    if summary {
        let mut s = Message::text(Role::User, "summary of earlier work");
        s.summary = true;
        h.push(s);
    }
    let mut n = 0usize;
    let mut now = 0i64;
    let mut gap = gaps.iter().cycle();
    let mut stamp = |m: &mut Message| {
        if let Some(g) = gap.next().copied().flatten() {
            now += g;
            m.timestamp = Some(now);
        }
    };
    for s in steps {
        match s {
            Step::User(pinned) => {
                let mut m = Message::text(Role::User, "please continue with the task");
                m.pinned = *pinned;
                stamp(&mut m);
                h.push(m);
            }
            Step::Tools(uses, anthropic, reversed) => {
                let mut calls = Vec::new();
                let mut results = Vec::new();
                for u in uses {
                    n += 1;
                    let id = format!("c{n}");
                    let name = TOOLS[u.tool];
                    calls.push(Part::ToolCall {
                        id: id.clone(),
                        name: name.into(),
                        input: json!({"path": format!("f{}", u.path), "n": n}),
                    });
                    results.push(Part::ToolResult {
                        id,
                        name: (!*anthropic).then(|| name.to_string()),
                        output: vec![Part::text("y".repeat(u.size))],
                        is_error: u.error,
                    });
                }
                if *reversed {
                    results.reverse();
                }
                let mut a = Message::new(Role::Assistant, calls);
                stamp(&mut a);
                h.push(a);
                if *anthropic {
                    let mut m = Message::new(Role::User, results);
                    stamp(&mut m);
                    h.push(m);
                } else {
                    for r in results {
                        let mut m = Message::new(Role::Tool, vec![r]);
                        stamp(&mut m);
                        h.push(m);
                    }
                }
            }
        }
    }
    h
}

fn history() -> impl Strategy<Value = Vec<Message>> {
    (
        any::<bool>(),
        prop::collection::vec(step(), 1..16),
        prop::collection::vec(prop::option::weighted(0.9, 0i64..200_000), 1..8),
    )
        .prop_map(|(s, steps, gaps)| build(s, &steps, &gaps))
}

fn total(h: &[Message]) -> usize {
    h.iter().flat_map(|m| &m.parts).map(cost).sum()
}

/// Result positions in history order.
fn results(h: &[Message]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (mi, m) in h.iter().enumerate() {
        for (pi, p) in m.parts.iter().enumerate() {
            if p.is_tool_result() {
                out.push((mi, pi));
            }
        }
    }
    out
}

/// The invariants every pruner keeps.
fn common(h: &[Message], actions: &[PruneAction]) -> Result<Vec<Message>, TestCaseError> {
    let targets: HashSet<(usize, usize)> = actions.iter().map(|a| (a.message, a.part)).collect();
    prop_assert_eq!(targets.len(), actions.len(), "a part pruned twice");
    prop_assert!(actions.iter().all(|a| a.tokens_freed > 0));
    let out = apply(h, actions);
    prop_assert_eq!(total_freed(actions), total(h) - total(&out));
    prop_assert_eq!(validate(&out), validate(h));
    prop_assert_eq!(out.len(), h.len());
    for (mi, (a, b)) in h.iter().zip(&out).enumerate() {
        prop_assert_eq!(
            (
                a.role,
                a.summary,
                a.pinned,
                a.timestamp,
                &a.original,
                a.parts.len()
            ),
            (
                b.role,
                b.summary,
                b.pinned,
                b.timestamp,
                &b.original,
                b.parts.len()
            )
        );
        if a.pinned || a.summary {
            prop_assert_eq!(a, b);
        }
        for (pi, (p, q)) in a.parts.iter().zip(&b.parts).enumerate() {
            if !targets.contains(&(mi, pi)) {
                prop_assert_eq!(p, q);
                continue;
            }
            match (p, q) {
                (
                    Part::ToolResult {
                        id, name, is_error, ..
                    },
                    Part::ToolResult {
                        id: i2,
                        name: n2,
                        is_error: e2,
                        output,
                    },
                ) => {
                    prop_assert_eq!((id, name, is_error), (i2, n2, e2));
                    prop_assert_eq!(output.len(), 1);
                }
                (
                    Part::ToolCall { id, name, .. },
                    Part::ToolCall {
                        id: i2, name: n2, ..
                    },
                ) => {
                    prop_assert_eq!((id, name), (i2, n2));
                }
                _ => prop_assert!(false, "changed a part that is not tool data"),
            }
        }
    }
    Ok(out)
}

fn name_of(p: &Part, h: &[Message]) -> Option<String> {
    let Part::ToolResult { id, name, .. } = p else {
        return None;
    };
    name.clone().or_else(|| {
        h.iter().flat_map(|m| &m.parts).find_map(|c| match c {
            Part::ToolCall { id: i, name, .. } if i == id => Some(name.clone()),
            _ => None,
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(300)))]

    #[test]
    fn opencode_invariants(h in history(), turns in 0usize..4, protect in 0usize..800, minimum in 0usize..600) {
        let o = OpenCodeOptions { protect_turns: turns, protect_tokens: protect, minimum, ..OpenCodeOptions::default() };
        let a = prune_opencode(&h, &o, &cost);
        common(&h, &a)?;
        prop_assert!(a.is_empty() || total_freed(&a) > minimum);
        // the last `turns` user turns are untouched
        let starts: Vec<usize> = h.iter().enumerate().filter(|(_, m)| m.is_user_turn_start()).map(|(i, _)| i).collect();
        if turns > 0 {
            let boundary = if starts.len() >= turns { starts[starts.len() - turns] } else { 0 };
            prop_assert!(a.iter().all(|x| x.message < boundary));
        }
        for x in &a {
            let p = &h[x.message].parts[x.part];
            let ok = matches!(p, Part::ToolResult { is_error: false, .. });
            prop_assert!(ok, "not a successful result");
            let n = name_of(p, &h);
            prop_assert_ne!(n.as_deref(), Some("skill"));
        }
        // the newest `protect` tokens of prunable output before the boundary stay: everything
        // pruned is older than a stretch of at least `protect` tokens of counted output
        if let Some(newest) = a.iter().map(|x| (x.message, x.part)).max() {
            let counted: usize = results(&h).into_iter()
                .filter(|r| *r > newest)
                .filter(|r| a.iter().all(|x| (x.message, x.part) != *r))
                .map(|(m, p)| cost(&h[m].parts[p]))
                .sum();
            prop_assert!(counted + cost(&h[newest.0].parts[newest.1]) > protect);
        }
    }

    #[test]
    fn anthropic_invariants(h in history(), keep in 0usize..5, at_least in 0usize..800, inputs in any::<bool>()) {
        let o = ClearToolUsesOptions {
            keep,
            clear_at_least: at_least,
            exclude_tools: vec!["memory".into()],
            clear_tool_inputs: if inputs { ClearToolInputs::All } else { ClearToolInputs::None },
            ..ClearToolUsesOptions::default()
        };
        let r = clear_tool_uses(&h, &o, &cost);
        common(&h, &r.actions)?;
        prop_assert_eq!(r.cleared_input_tokens, total_freed(&r.actions));
        prop_assert!(r.actions.is_empty() || r.cleared_input_tokens >= at_least);
        let all = results(&h);
        let kept: HashSet<_> = all.iter().rev().take(keep).collect();
        for x in &r.actions {
            let p = &h[x.message].parts[x.part];
            if matches!(x.kind, PruneKind::ReplaceOutput { .. }) {
                prop_assert!(!kept.contains(&(x.message, x.part)));
                let n = name_of(p, &h);
                prop_assert_ne!(n.as_deref(), Some("memory"));
            } else {
                let ok = inputs && matches!(p, Part::ToolCall { .. });
                prop_assert!(ok, "input cleared unasked");
            }
        }
    }

    #[test]
    fn ttl_invariants(h in history(), keep in 0usize..5, ttl in 0i64..500_000, now in 0i64..3_000_000) {
        let o = TtlOptions { ttl_ms: ttl, keep_recent: keep, ..TtlOptions::new(now) };
        let a = prune_ttl(&h, &o, &cost);
        common(&h, &a)?;
        let all = results(&h);
        let kept: HashSet<_> = all.iter().rev().take(keep).collect();
        for x in &a {
            prop_assert!(!kept.contains(&(x.message, x.part)));
            let ts = h[x.message].timestamp;
            prop_assert!(ts.is_some_and(|t| now - t > ttl));
        }
    }

    #[test]
    fn supersede_invariants(h in history()) {
        let a = prune_superseded(&h, &cost);
        common(&h, &a)?;
        // the latest successful read of each path is never pruned, and only reads are pruned
        let mut latest = std::collections::HashMap::new();
        for m in &h {
            for p in &m.parts {
                if let Part::ToolCall { id, name, input } = p {
                    if let Some(FileAccess::Read { path, .. }) = classify(name, input) {
                        latest.insert(path, id.clone());
                    }
                }
            }
        }
        for x in &a {
            let Part::ToolResult { id, .. } = &h[x.message].parts[x.part] else { panic!() };
            prop_assert!(!latest.values().any(|l| l == id), "latest read {} pruned", id);
            let call = h.iter().flat_map(|m| &m.parts).find_map(|c| match c {
                Part::ToolCall { id: i, name, input } if i == id => classify(name, input),
                _ => None,
            });
            let ok = matches!(call, Some(FileAccess::Read { .. }));
            prop_assert!(ok, "pruned a non-read");
        }
    }

    #[test]
    fn order_invariants(h in history(), which in 0usize..4, sup in any::<bool>()) {
        let style = match which {
            0 => Style::None,
            1 => Style::OpenCode(OpenCodeOptions { protect_tokens: 300, minimum: 100, ..OpenCodeOptions::default() }),
            2 => Style::Anthropic(ClearToolUsesOptions::default()),
            _ => Style::Ttl(TtlOptions::new(1_000_000)),
        };
        let a = order(&h, sup, &style, &cost);
        common(&h, &a)?;
        // supersession alone is a prefix of the combined actions
        let s = if sup { prune_superseded(&h, &cost) } else { Vec::new() };
        prop_assert_eq!(&a[..s.len()], &s[..]);
    }
}

/// The generator is not vacuous: each pruner acts on a good share of histories.
#[test]
fn every_pruner_acts_on_generated_histories() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let mut hits = [0usize; 4];
    for _ in 0..300 {
        let h = history().new_tree(&mut runner).unwrap().current();
        let oc = OpenCodeOptions {
            protect_tokens: 300,
            minimum: 100,
            protect_turns: 1,
            ..OpenCodeOptions::default()
        };
        hits[0] += usize::from(!prune_opencode(&h, &oc, &cost).is_empty());
        let cleared = clear_tool_uses(&h, &ClearToolUsesOptions::default(), &cost);
        hits[1] += usize::from(!cleared.actions.is_empty());
        hits[2] += usize::from(!prune_ttl(&h, &TtlOptions::new(1_000_000), &cost).is_empty());
        hits[3] += usize::from(!prune_superseded(&h, &cost).is_empty());
    }
    assert!(hits.iter().all(|n| *n > 30), "{hits:?}");
}
