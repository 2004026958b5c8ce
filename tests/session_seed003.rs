//! Seed 003 on the stateful session: the compaction digest lists the hidden blocks of what it
//! summarizes with their replacement text ("digest includes hidden blocks").
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

#[path = "common/session_config.rs"]
mod session_config;

use context_compaction::core::message::Part;
use context_compaction::core::plan::{plan, PlanInput, Strategy};
use context_compaction::core::prune::{PruneAction, PruneKind};
use context_compaction::core::session::{Outcome, Session};
use context_compaction::formats::ai_sdk::import_message;
use serde_json::{json, Value};
use session_config::session_config;

fn message(v: Value) -> context_compaction::core::message::Message {
    import_message(&v, "m").unwrap()
}

#[test]
fn the_compaction_digest_lists_hidden_blocks_and_their_replacement_text() {
    let config = session_config(&json!({"preset": "block-pipeline", "contextWindow": 100_000}));
    let mut s = Session::new(config, "s".into(), "ai-sdk".into());
    let call = |id: &str| {
        message(json!({"role": "assistant", "content": [
            {"type": "tool-call", "toolCallId": id, "toolName": "grep", "input": {"pattern": id}}
        ]}))
    };
    let result = |id: &str| {
        message(json!({"role": "tool", "content": [
            {"type": "tool-result", "toolCallId": id, "toolName": "grep",
             "output": {"type": "text", "value": "match ".repeat(200)}}
        ]}))
    };
    let ids = s.append(vec![
        message(json!({"role": "user", "content": "find the bug"})),
        call("c1"),
        result("c1"),
        message(json!({"role": "user", "content": "and now?"})),
        call("c2"),
        result("c2"),
        message(json!({"role": "assistant", "content": "done"})),
    ]);
    // TTL pruning hides the first result behind a replacement text (seed 003's "hides blocks
    // with replacement text").
    s.hide(&[PruneAction {
        message: 2,
        part: 0,
        kind: PruneKind::ReplaceOutput {
            placeholder: "[expired: run grep again]".into(),
        },
        tokens_freed: 100,
    }])
    .unwrap();
    let snapshot = s.snapshot();
    let cost = |_: &Part| 1;
    let p = plan(
        &PlanInput {
            messages: &snapshot.messages,
            tokens: &snapshot.tokens,
            part_cost: &cost,
        },
        &context_compaction::core::plan::PlanOptions {
            strategy: Strategy::LastTurns { keep: 1 },
            ..s.config().settings.plan.clone()
        },
    )
    .unwrap();
    let outcome = Outcome {
        summary: Some("S".into()),
        tokens_after: 10,
        round: 1,
        digest: json!({"filesRead": [], "commands": []}),
        state: None,
        timestamp: None,
    };
    s.commit(&snapshot, &p, &outcome).unwrap();
    let last: Value = serde_json::from_str(s.to_jsonl().lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "compaction");
    assert_eq!(last["digest"]["commands"], json!([]));
    assert_eq!(
        last["digest"]["hidden"],
        json!([{"entryId": ids[2], "part": 0, "tool": "grep", "output": "[expired: run grep again]"}])
    );
}
