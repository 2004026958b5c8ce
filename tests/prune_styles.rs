#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
//! Hand-made histories for each pruning style: OpenCode, Anthropic "clear tool uses", TTL,
//! superseded reads, and their combination.

use context_compaction::core::message::{Message, Part, Role};
use context_compaction::core::prune::anthropic::CLEARED_PLACEHOLDER;
use context_compaction::core::prune::{
    apply, classify, clear_tool_uses, order, prune_opencode, prune_superseded, prune_ttl,
    total_freed, ClearToolInputs, ClearToolUsesOptions, FileAccess, OpenCodeOptions, PruneAction,
    PruneKind, Style, TtlOptions, OPENCODE_PLACEHOLDER, TTL_REPLACEMENT,
};
use context_compaction::core::validate::validate;
use serde_json::{json, Value};

fn cost(p: &Part) -> usize {
    p.text_len().div_ceil(4)
}
fn call(id: &str, name: &str, input: Value) -> Part {
    Part::ToolCall {
        id: id.into(),
        name: name.into(),
        input,
    }
}
fn result(id: &str, chars: usize) -> Part {
    Part::ToolResult {
        id: id.into(),
        name: None,
        output: vec![Part::text("x".repeat(chars))],
        is_error: false,
    }
}
fn assistant(parts: Vec<Part>) -> Message {
    Message::new(Role::Assistant, parts)
}
fn tool(parts: Vec<Part>) -> Message {
    Message::new(Role::Tool, parts)
}
fn user(t: &str) -> Message {
    Message::text(Role::User, t)
}
fn targets(actions: &[PruneAction]) -> Vec<(usize, usize)> {
    actions.iter().map(|a| (a.message, a.part)).collect()
}
fn freed_by_apply(h: &[Message], actions: &[PruneAction]) -> usize {
    let total = |m: &[Message]| -> usize { m.iter().flat_map(|m| &m.parts).map(cost).sum() };
    total(h) - total(&apply(h, actions))
}

/// Three user turns, each one tool use of 400 chars (100 tokens) of `name`.
fn three_turns(names: [&str; 3]) -> Vec<Message> {
    let mut h = vec![Message::text(Role::System, "sys")];
    for (i, name) in names.iter().enumerate() {
        let id = format!("t{i}");
        h.push(user(&format!("turn {i}")));
        h.push(assistant(vec![call(&id, name, json!({"q": i}))]));
        h.push(tool(vec![result(&id, 400)]));
        h.push(Message::text(Role::Assistant, "ok"));
    }
    h
}

fn small_opencode() -> OpenCodeOptions {
    OpenCodeOptions {
        protect_turns: 1,
        protect_tokens: 100,
        minimum: 50,
        ..OpenCodeOptions::default()
    }
}

#[test]
fn opencode_protects_recent_turns_and_tokens() {
    let h = three_turns(["bash", "bash", "bash"]);
    // protect_turns 1: turn 2 skipped; walking back, turn 1's result fills the 100 protected
    // tokens exactly (not more), so only turn 0's result is pruned.
    let a = prune_opencode(&h, &small_opencode(), &cost);
    assert_eq!(targets(&a), vec![(3, 0)]);
    assert_eq!(
        a[0].kind,
        PruneKind::ReplaceOutput {
            placeholder: OPENCODE_PLACEHOLDER.into()
        }
    );
    assert_eq!(
        a[0].tokens_freed,
        100 - OPENCODE_PLACEHOLDER.len().div_ceil(4)
    );
    assert_eq!(total_freed(&a), freed_by_apply(&h, &a));
    // with the default two protected turns only turn 0 is a candidate, and nothing is over the
    // 100 protected tokens
    let two = OpenCodeOptions {
        protect_turns: 2,
        ..small_opencode()
    };
    assert!(prune_opencode(&h, &two, &cost).is_empty());
}

#[test]
fn opencode_minimum_protected_tools_errors_and_pinned() {
    let h = three_turns(["bash", "bash", "bash"]);
    let high = OpenCodeOptions {
        minimum: 100,
        ..small_opencode()
    };
    assert!(
        prune_opencode(&h, &high, &cost).is_empty(),
        "freed 91 <= 100"
    );

    let h = three_turns(["skill", "bash", "bash"]);
    assert!(prune_opencode(&h, &small_opencode(), &cost).is_empty());

    let mut h = three_turns(["bash", "bash", "bash"]);
    h[3].pinned = true;
    assert!(prune_opencode(&h, &small_opencode(), &cost).is_empty());

    let mut h = three_turns(["bash", "bash", "bash"]);
    if let Part::ToolResult { is_error, .. } = &mut h[3].parts[0] {
        *is_error = true;
    }
    assert!(prune_opencode(&h, &small_opencode(), &cost).is_empty());
}

#[test]
fn opencode_stops_at_a_pruned_result_and_at_a_summary() {
    let mut h = three_turns(["bash", "bash", "bash"]);
    h.insert(5, user("extra turn"));
    h.insert(6, assistant(vec![call("e", "bash", json!({}))]));
    h.insert(7, tool(vec![result("e", 400)]));
    // t0 (msg 3), e (msg 7), t1 (msg 10) protected, t2 in the last turn
    let a = prune_opencode(&h, &small_opencode(), &cost);
    assert_eq!(targets(&a), vec![(3, 0), (7, 0)]);
    // after applying, a second run finds the placeholder at once and prunes nothing
    let pruned = apply(&h, &a);
    assert!(prune_opencode(&pruned, &small_opencode(), &cost).is_empty());
    // a summary at message 4 hides message 3 from the walk: only e is prunable (92 > 50)
    let mut s = h.clone();
    s[4].summary = true;
    assert_eq!(
        targets(&prune_opencode(&s, &small_opencode(), &cost)),
        vec![(7, 0)]
    );
}

#[test]
fn anthropic_keeps_last_tool_uses_and_clears_oldest_first() {
    // five parallel tool uses, results in an Anthropic user message in reverse order
    let h = vec![
        user("go"),
        assistant(
            (0..5)
                .map(|i| {
                    call(
                        &format!("u{i}"),
                        if i == 1 { "memory" } else { "read" },
                        json!({"path": format!("f{i}")}),
                    )
                })
                .collect(),
        ),
        Message::new(
            Role::User,
            (0..5).rev().map(|i| result(&format!("u{i}"), 80)).collect(),
        ),
    ];
    let opts = ClearToolUsesOptions {
        keep: 2,
        exclude_tools: vec!["memory".into()],
        ..ClearToolUsesOptions::default()
    };
    // results in history order: u4 u3 u2 u1 u0; the last two (u1, u0) are kept
    let r = clear_tool_uses(&h, &opts, &cost);
    assert_eq!(targets(&r.actions), vec![(2, 0), (2, 1), (2, 2)]);
    assert_eq!(r.cleared_tool_uses, 3);
    assert_eq!(r.cleared_input_tokens, total_freed(&r.actions));
    assert_eq!(r.cleared_input_tokens, freed_by_apply(&h, &r.actions));
    let out = apply(&h, &r.actions);
    assert!(
        matches!(&out[2].parts[0], Part::ToolResult { output, id, .. }
        if id == "u4" && output == &vec![Part::text(CLEARED_PLACEHOLDER)])
    );
    assert_eq!(validate(&out), validate(&h));

    // excluded tools are never cleared even when old
    let keep0 = ClearToolUsesOptions {
        keep: 0,
        ..opts.clone()
    };
    let r = clear_tool_uses(&h, &keep0, &cost);
    assert_eq!(targets(&r.actions), vec![(2, 0), (2, 1), (2, 2), (2, 4)]);

    // inputs too
    let inputs = ClearToolUsesOptions {
        clear_tool_inputs: ClearToolInputs::All,
        ..opts.clone()
    };
    let r = clear_tool_uses(&h, &inputs, &cost);
    assert_eq!(
        targets(&r.actions),
        vec![(2, 0), (1, 4), (2, 1), (1, 3), (2, 2), (1, 2)]
    );
    assert_eq!(r.cleared_tool_uses, 3);
    let out = apply(&h, &r.actions);
    assert!(matches!(&out[1].parts[4], Part::ToolCall { input, .. } if *input == json!({})));

    // clear_at_least not reachable: nothing
    let much = ClearToolUsesOptions {
        clear_at_least: 1000,
        ..opts
    };
    assert!(clear_tool_uses(&h, &much, &cost).actions.is_empty());
}

#[test]
fn ttl_prunes_expired_results_with_timestamps_only() {
    let mut h = vec![user("go")];
    for i in 0..5 {
        h.push(assistant(vec![call(&format!("c{i}"), "bash", json!({}))]));
        let mut t = tool(vec![result(&format!("c{i}"), 200)]);
        t.timestamp = if i == 1 { None } else { Some(i * 100_000) };
        h.push(t);
    }
    let opts = TtlOptions {
        keep_recent: 1,
        ..TtlOptions::new(550_000)
    };
    // ages: c0 550s, c1 unknown, c2 350s, c3 250s (< 300s), c4 kept as the most recent
    let a = prune_ttl(&h, &opts, &cost);
    assert_eq!(targets(&a), vec![(2, 0), (6, 0)]);
    assert_eq!(
        a[0].kind,
        PruneKind::ReplaceOutput {
            placeholder: TTL_REPLACEMENT.into()
        }
    );
    let later = TtlOptions {
        keep_recent: 1,
        ..TtlOptions::new(10_000_000)
    };
    assert_eq!(
        targets(&prune_ttl(&h, &later, &cost)),
        vec![(2, 0), (6, 0), (8, 0)]
    );
}

#[test]
fn supersede_prunes_stale_reads_but_never_the_latest_read() {
    let h = vec![
        user("fix it"),
        assistant(vec![
            call("r1", "Read", json!({"file_path": "/a.rs"})),
            call("r2", "read_file", json!({"path": "./b.rs"})),
        ]),
        Message::new(Role::User, vec![result("r2", 300), result("r1", 300)]),
        assistant(vec![call(
            "e1",
            "Edit",
            json!({"file_path": "/a.rs", "old_string": "x"}),
        )]),
        Message::new(Role::User, vec![result("e1", 10)]),
        assistant(vec![call("r3", "view", json!({"path": "/a.rs"}))]),
        tool(vec![result("r3", 300)]),
    ];
    let a = prune_superseded(&h, &cost);
    assert_eq!(targets(&a), vec![(2, 1)]);
    let PruneKind::ReplaceOutput { placeholder } = &a[0].kind else {
        panic!()
    };
    assert!(
        placeholder.contains("/a.rs was changed later by Edit (call e1)"),
        "{placeholder}"
    );
    assert_eq!(total_freed(&a), freed_by_apply(&h, &a));

    // the edit alone does not prune the only read of a path
    assert!(prune_superseded(&h[..5], &cost).is_empty());
}

#[test]
fn supersede_respects_ranges_and_failures() {
    let read = |id: &str, input: Value| assistant(vec![call(id, "read", input)]);
    let h = vec![
        user("look"),
        read("a", json!({"path": "f", "offset": 1, "limit": 10})),
        tool(vec![result("a", 200)]),
        read("b", json!({"path": "f", "offset": 100, "limit": 10})),
        tool(vec![result("b", 200)]),
    ];
    assert!(prune_superseded(&h, &cost).is_empty(), "different ranges");
    let mut same = h.clone();
    same.push(read("c", json!({"path": "f", "offset": 1, "limit": 10})));
    same.push(tool(vec![result("c", 200)]));
    let a = prune_superseded(&same, &cost);
    assert_eq!(targets(&a), vec![(2, 0)]);
    let PruneKind::ReplaceOutput { placeholder } = &a[0].kind else {
        panic!()
    };
    assert!(placeholder.contains("read again later by read (call c)"));
    // a failed later read supersedes nothing
    let mut failed = h.clone();
    failed.push(read("d", json!({"path": "f"})));
    failed.push(tool(vec![Part::ToolResult {
        id: "d".into(),
        name: None,
        output: vec![Part::text("ENOENT")],
        is_error: true,
    }]));
    assert!(prune_superseded(&failed, &cost).is_empty());
    // a full read supersedes both ranges
    let mut full = h;
    full.push(read("e", json!({"path": "f"})));
    full.push(tool(vec![result("e", 200)]));
    assert_eq!(
        targets(&prune_superseded(&full, &cost)),
        vec![(2, 0), (4, 0)]
    );
}

#[test]
fn classify_table() {
    let read = |p: &str| {
        Some(FileAccess::Read {
            path: p.into(),
            partial: false,
        })
    };
    let write = |p: &[&str]| {
        Some(FileAccess::Write {
            paths: p.iter().map(|s| s.to_string()).collect(),
        })
    };
    assert_eq!(classify("Read", &json!({"file_path": "/x"})), read("/x"));
    assert_eq!(classify("readFile", &json!({"filePath": "x"})), read("x"));
    assert_eq!(
        classify("mcp__fs__read_text_file", &json!({"path": "x"})),
        read("x")
    );
    assert_eq!(
        classify("read", &json!({"path": "x", "limit": 5})),
        Some(FileAccess::Read {
            path: "x".into(),
            partial: true
        })
    );
    assert_eq!(
        classify("MultiEdit", &json!({"file_path": "/x", "edits": []})),
        write(&["/x"])
    );
    assert_eq!(
        classify("write_to_file", &json!({"path": "x"})),
        write(&["x"])
    );
    assert_eq!(
        classify(
            "str_replace_editor",
            &json!({"command": "view", "path": "/x"})
        ),
        read("/x")
    );
    assert_eq!(
        classify(
            "str_replace_based_edit_tool",
            &json!({"command": "str_replace", "path": "/x"})
        ),
        write(&["/x"])
    );
    let patch = "*** Begin Patch\n*** Update File: src/a.rs\n@@\n-x\n+y\n*** Add File: src/b.rs\n+z\n*** End Patch";
    assert_eq!(
        classify("apply_patch", &json!({"input": patch})),
        write(&["src/a.rs", "src/b.rs"])
    );
    assert_eq!(
        classify("apply_patch", &json!(patch)),
        write(&["src/a.rs", "src/b.rs"])
    );
    assert_eq!(classify("bash", &json!({"command": "cat x"})), None);
    assert_eq!(classify("read", &json!({"pattern": "x"})), None);
}

#[test]
fn order_runs_supersession_first_without_double_pruning() {
    let mut h = vec![Message::text(Role::System, "sys")];
    for i in 0..4 {
        h.push(user(&format!("turn {i}")));
        h.push(assistant(vec![call(
            &format!("r{i}"),
            "read",
            json!({"path": "same"}),
        )]));
        h.push(tool(vec![result(&format!("r{i}"), 400)]));
    }
    let style = Style::OpenCode(OpenCodeOptions {
        protect_turns: 1,
        protect_tokens: 10,
        minimum: 1,
        ..OpenCodeOptions::default()
    });
    let a = order(&h, true, &style, &cost);
    let t = targets(&a);
    // supersession takes r0, r1, r2; OpenCode finds nothing else outside the last turn
    assert_eq!(t, vec![(3, 0), (6, 0), (9, 0)]);
    assert!(a.iter().all(|x| matches!(&x.kind, PruneKind::ReplaceOutput { placeholder } if placeholder.starts_with("[Superseded"))));
    // without supersession OpenCode takes r0..r2 itself
    let b = order(&h, false, &style, &cost);
    assert_eq!(targets(&b), vec![(3, 0), (6, 0), (9, 0)]);
    assert!(b.iter().all(|x| x.kind
        == PruneKind::ReplaceOutput {
            placeholder: OPENCODE_PLACEHOLDER.into()
        }));
    assert_eq!(total_freed(&a), freed_by_apply(&h, &a));
    // Anthropic style after supersession: the kept tool uses count superseded ones too
    let anth = order(
        &h,
        true,
        &Style::Anthropic(ClearToolUsesOptions {
            keep: 1,
            ..ClearToolUsesOptions::default()
        }),
        &cost,
    );
    assert_eq!(targets(&anth), vec![(3, 0), (6, 0), (9, 0)]);
}
