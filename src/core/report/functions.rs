//! The JSON results of the package's free functions (`validateMessages`, `repairMessages`,
//! `factRetention`, `describeContextOverflow`), of a summarizer's request (without the caller's
//! messages) and of a compaction that changed nothing, with the field names the declarations in
//! `js/types/` give them (`importSession`'s compactions are
//! `formats::session::ImportedSession::compactions_json`). The binding only turns them into JS
//! values and adds the caller's own objects where a result holds them.

use serde_json::{json, Map, Value};

use crate::core::message::Message;
use crate::core::overflow::Overflow;
use crate::core::repair::RepairAction;
use crate::core::summary::job::PieceRequest;
use crate::core::summary::retention::Retention;
use crate::core::summary::Digest;
use crate::core::validate::Violation;

/// `validateMessages`: `[{ kind, path, message, part, id, detail }]`.
pub fn violations(list: &[Violation]) -> Value {
    list.iter()
        .map(|v| {
            json!({"kind": v.kind.as_str(), "path": v.path(), "message": v.message,
                   "part": v.part, "id": v.id, "detail": v.detail})
        })
        .collect()
}

/// `repairMessages`' `actions`: `[{ action, message | after, ... }]`.
pub fn repair_actions(actions: &[RepairAction]) -> Value {
    let one = |a: &RepairAction| match a {
        RepairAction::RemovedResult {
            message,
            id,
            reason,
            ..
        } => {
            json!({"action": "removed-result", "message": message, "id": id, "reason": reason.as_str()})
        }
        RepairAction::RemovedMessage { message } => {
            json!({"action": "removed-message", "message": message})
        }
        RepairAction::RenamedCall {
            message, from, to, ..
        } => json!({"action": "renamed-call", "message": message, "from": from, "to": to}),
        RepairAction::RenamedResult {
            message, from, to, ..
        } => json!({"action": "renamed-result", "message": message, "from": from, "to": to}),
        RepairAction::AddedResults {
            after_message, ids, ..
        } => json!({"action": "added-results", "after": after_message, "ids": ids}),
        RepairAction::ClearedSummary { message } => {
            json!({"action": "cleared-summary", "message": message})
        }
    };
    actions.iter().map(one).collect()
}

/// A retention as `{ total, kept, recall, kinds }`, each kind `{ total, kept, missing }` (a
/// compaction's `digest.retention` and `factRetention`'s result).
pub fn retention(r: &Retention) -> Value {
    let kinds: Map<String, Value> = r
        .kinds
        .iter()
        .map(|k| {
            let kept = k.total - k.missing.len();
            let kind = json!({"total": k.total, "kept": kept, "missing": k.missing});
            (k.kind.to_string(), kind)
        })
        .collect();
    json!({"total": r.total(), "kept": r.kept(), "recall": r.recall(), "kinds": kinds})
}

/// `factRetention`: what `summary` keeps of the facts of all of `messages`.
pub fn fact_retention(messages: &[Message], summary: &str) -> Value {
    let all: Vec<usize> = (0..messages.len()).collect();
    retention(&Retention::of(&Digest::extract(messages, &all), summary))
}

/// `describeContextOverflow`: `{ provider, limit, requested }`, or `null` for another error.
pub fn overflow(found: Option<&Overflow>) -> Value {
    found.map_or(
        Value::Null,
        |o| json!({"provider": o.provider, "limit": o.limit, "requested": o.requested}),
    )
}

/// The summarizer's request for `piece`, without the caller's `messages` (an empty array that the
/// binding fills) and the continuation mode: `state` is the workstream state shown to it, `memory`
/// says a memory block's request (no messages, always the transcript).
pub fn summary_request(piece: &PieceRequest, state: Option<&Value>, memory: bool) -> Value {
    let mut out = json!({"system": piece.system, "prompt": piece.prompt,
        "transcript": piece.transcript, "maxTokens": piece.max_tokens, "round": piece.round});
    let Some(fields) = out.as_object_mut() else {
        return out;
    };
    if memory {
        fields.insert("purpose".into(), "memory".into());
        fields.insert("messages".into(), json!([]));
        fields.insert("mode".into(), "transcript".into());
        return out;
    }
    if let Some(state) = state {
        fields.insert("state".into(), state.clone());
    }
    fields.insert("purpose".into(), piece.purpose.as_str().into());
    fields.insert("messages".into(), json!([]));
    for (key, value) in [
        ("previousSummary", &piece.previous_summary),
        ("instructions", &piece.instructions),
    ] {
        if let Some(v) = value {
            fields.insert(key.into(), v.as_str().into());
        }
    }
    out
}

/// The result of a compaction that changed nothing, as both handles return it (without
/// `messages` and `removed`, which are the caller's objects).
pub fn unchanged(tokens: usize, warning: &str) -> Value {
    json!({"compacted": false, "summary": null, "tokensBefore": tokens, "tokensAfter": tokens,
           "round": 0, "splitTurn": false, "digest": null, "warnings": [warning]})
}

/// [`unchanged`] as a `Compactor` returns it: with `continued`, whether its `messages` start with
/// the last automatic compaction's head in place of the messages it replaced.
pub fn unchanged_continued(tokens: usize, warning: &str, continued: bool) -> Value {
    let mut json = unchanged(tokens, warning);
    if let Some(fields) = json.as_object_mut() {
        fields.insert("continued".into(), continued.into());
    }
    json
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::core::message::{Part, Role};
    use crate::core::validate::ViolationKind;

    fn keys(v: &Value) -> Vec<&str> {
        let mut k: Vec<&str> = v
            .as_object()
            .map_or(vec![], |o| o.keys().map(String::as_str).collect());
        k.sort_unstable();
        k
    }

    #[test]
    fn violations_name_their_fields() {
        let v = Violation {
            kind: ViolationKind::OrphanResult,
            message: 3,
            part: Some(0),
            id: Some("c1".into()),
            detail: "no call".into(),
        };
        let out = violations(&[v]);
        assert_eq!(out[0]["kind"], "orphan-result");
        assert_eq!(out[0]["path"], "messages[3].content[0]");
        assert_eq!(
            keys(&out[0]),
            ["detail", "id", "kind", "message", "part", "path"]
        );
    }

    #[test]
    fn repair_actions_name_their_fields() {
        let out = repair_actions(&[
            RepairAction::AddedResults {
                after_message: 2,
                into_message: None,
                ids: vec!["a".into()],
            },
            RepairAction::RenamedCall {
                message: 1,
                part: 0,
                from: "x".into(),
                to: "x_2".into(),
            },
        ]);
        assert_eq!(
            out[0],
            json!({"action": "added-results", "after": 2, "ids": ["a"]})
        );
        assert_eq!(
            out[1],
            json!({"action": "renamed-call", "message": 1, "from": "x", "to": "x_2"})
        );
    }

    #[test]
    fn fact_retention_counts_what_the_summary_names() {
        let m = Message::new(Role::User, vec![Part::text("please edit src/main.rs")]);
        let none = fact_retention(std::slice::from_ref(&m), "nothing");
        assert_eq!(keys(&none), ["kept", "kinds", "recall", "total"]);
        let total = none["total"].as_u64().unwrap_or(0);
        assert!(total > 0);
        assert_eq!(none["kept"], 0);
        let all = fact_retention(&[m], "please edit src/main.rs");
        assert_eq!(all["kept"].as_u64(), Some(total));
    }

    #[test]
    fn summary_requests_name_their_fields() {
        use crate::core::summary::job::{PieceId, Purpose};
        let mut piece = PieceRequest {
            id: PieceId(0),
            purpose: Purpose::History,
            system: "s".into(),
            prompt: "p".into(),
            transcript: "t".into(),
            message_indices: vec![0],
            previous_summary: Some("before".into()),
            instructions: None,
            max_tokens: 100,
            round: 2,
        };
        let r = summary_request(&piece, Some(&json!({"goal": "x"})), false);
        assert_eq!(
            r.as_object().unwrap().keys().collect::<Vec<_>>(),
            [
                "system",
                "prompt",
                "transcript",
                "maxTokens",
                "round",
                "state",
                "purpose",
                "messages",
                "previousSummary"
            ]
        );
        assert_eq!(r["purpose"], "history");
        piece.previous_summary = None;
        let m = summary_request(&piece, None, true);
        assert_eq!(
            (&m["purpose"], &m["mode"]),
            (&json!("memory"), &json!("transcript"))
        );
        assert!(m.get("state").is_none());
    }

    #[test]
    fn overflow_and_unchanged_shapes() {
        assert_eq!(overflow(None), Value::Null);
        let o = Overflow {
            provider: Some("openai"),
            limit: Some(128_000),
            requested: None,
        };
        assert_eq!(
            overflow(Some(&o)),
            json!({"provider": "openai", "limit": 128_000, "requested": null})
        );
        let u = unchanged(42, "below the trigger");
        assert_eq!(u["tokensBefore"], 42);
        assert_eq!(u["tokensAfter"], 42);
        assert_eq!(u["warnings"], json!(["below the trigger"]));
        assert_eq!(u["compacted"], false);
        assert!(u.get("continued").is_none());
        let c = unchanged_continued(42, "below the trigger", true);
        assert_eq!(c["continued"], true);
        assert_eq!(c["tokensBefore"], 42);
        assert_eq!(unchanged_continued(7, "w", false)["continued"], false);
    }
}
