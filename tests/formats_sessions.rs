#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
//! Hand-made pi v2/v3 session files: the active branch of the entry tree, `firstKeptEntryId`,
//! `branch_summary` and `custom_message` entries.

use context_compaction::core::message::Role;
use context_compaction::formats::pi_session::import_pi_session;
use context_compaction::formats::session::ContextBeside;

const V3: &str = r#"{"type":"session","version":3,"id":"sess","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}
{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"first","timestamp":1}}
{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"old branch"}],"timestamp":2}}
{"type":"message","id":"b2","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"t","name":"read","arguments":{}}],"timestamp":3}}
{"type":"message","id":"b3","parentId":"b2","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"toolResult","toolCallId":"t","toolName":"read","content":[{"type":"text","text":"x"}],"isError":false,"timestamp":4}}
{"type":"label","id":"l1","parentId":"b3","targetId":"b2","label":"here"}
{"type":"compaction","id":"c1","parentId":"l1","timestamp":"2026-01-01T00:00:05.000Z","summary":"S","firstKeptEntryId":"b2","tokensBefore":50}
{"type":"branch_summary","id":"bs","parentId":"c1","timestamp":"2026-01-01T00:00:06.000Z","fromId":"a2","summary":"tried another way"}
{"type":"custom_message","id":"cm","parentId":"bs","timestamp":"2026-01-01T00:00:07.000Z","customType":"note","content":"remember X","display":true}
{"type":"message","id":"b4","parentId":"cm","timestamp":"2026-01-01T00:00:08.000Z","message":{"role":"user","content":"go on","timestamp":8}}
"#;

#[test]
fn v3_active_branch_and_compaction_by_id() {
    let s = import_pi_session(V3).unwrap();
    assert_eq!(s.version.as_deref(), Some("3"));
    let ids: Vec<_> = s.entries.iter().map(|e| e.id.as_deref().unwrap()).collect();
    // a2 is on an abandoned branch
    assert_eq!(ids, ["a1", "b2", "b3", "bs", "cm", "b4"]);
    assert_eq!(s.entries[1].parent_id.as_deref(), Some("a1"));
    assert_eq!(s.compactions.len(), 1);
    let c = &s.compactions[0];
    assert_eq!(c.first_kept_entry_id.as_deref(), Some("b2"));
    assert_eq!(
        (c.first_kept_message, c.at_message, c.tokens_before),
        (Some(1), 3, Some(50))
    );
    // importSession's `compactions`, field by field
    let json = s.compactions_json();
    assert_eq!(json[0]["firstKeptEntryId"], "b2");
    assert_eq!(
        (
            &json[0]["firstKeptIndex"],
            &json[0]["atMessage"],
            &json[0]["tokensBefore"]
        ),
        (
            &serde_json::json!(1),
            &serde_json::json!(3),
            &serde_json::json!(50)
        )
    );
    let mut keys: Vec<_> = json[0].as_object().unwrap().keys().cloned().collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "atMessage",
            "firstKeptEntryId",
            "firstKeptIndex",
            "id",
            "line",
            "summary",
            "summaryIndex",
            "tokensBefore",
            "trigger"
        ]
    );
    // branch summary and custom message become user messages, the branch summary a summary
    assert!(s.messages[3].summary && s.messages[3].plain_text().contains("tried another way"));
    assert_eq!(s.messages[4].role, Role::User);
    assert_eq!(s.messages[4].plain_text(), "remember X");
    assert!(!s.messages[4].summary);
    // the context: summary, kept b2 b3, then everything after the compaction
    let ctx = s.context();
    assert_eq!(ctx.len(), 1 + 5);
    assert!(ctx[0].summary && ctx[0].plain_text().contains("\nS\n"));
    assert_eq!(ctx[1].tool_call_ids(), vec!["t"]);
    assert_eq!(s.other_entries, vec![(6, "label".to_string())]);
    // beside the history, the context shares its messages from the first kept one on
    let ContextBeside::Shared { head, start } = s.context_beside_history(s.messages.len()) else {
        panic!("not shared");
    };
    assert_eq!(head, ctx[..1].to_vec());
    assert_eq!(s.messages[start..].to_vec(), ctx[1..].to_vec());
    // a history exported as more values than messages: the context is exported on its own
    let own = s.context_beside_history(s.messages.len() + 1);
    assert_eq!(own, ContextBeside::Own(ctx));
}

#[test]
fn v1_compaction_keeping_nothing_and_missing_summary() {
    let text = "{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":\"a\"}}\n{\"type\":\"compaction\",\"summary\":\"S\",\"firstKeptEntryIndex\":9,\"tokensBefore\":1}\n";
    let s = import_pi_session(text).unwrap();
    assert_eq!(s.compactions[0].first_kept_message, None);
    assert_eq!(s.context().len(), 1);
    // the summary made for the context, then nothing of the history (start at its end)
    let beside = s.context_beside_history(s.messages.len());
    let ContextBeside::Shared { head, start } = beside else {
        panic!("not shared");
    };
    assert_eq!((head.len(), start), (1, s.messages.len()));
    let err = import_pi_session("{\"type\":\"compaction\",\"tokensBefore\":1}").unwrap_err();
    assert_eq!(err.path.as_deref(), Some("line 1.entry.summary"));
    let err = import_pi_session("{\"message\":{}}").unwrap_err();
    assert_eq!(err.path.as_deref(), Some("line 1.entry.type"));
}
