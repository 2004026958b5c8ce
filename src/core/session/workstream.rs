//! Workstream state (seed 004): structured items a summarizer may return with its summary as a
//! delta, merged into the session's state after each compaction under fixed item limits, and
//! rendered into the summary message.
//!
//! A delta is a JSON object with any of the fields below, each an array of items (strings, or
//! objects shown as JSON); `"remove"` holds the same fields with items to drop. Items are merged
//! newest last and deduplicated; past its limit a field keeps its newest items.
//!
//! A summarizer gives the delta as `{ summary, state }`, or in its text after a
//! [`DELTA_MARKER`] line (what the `workstream` prompt asks for): [`split_delta`] takes it out
//! of the summary.

use serde_json::{Map, Value};

use crate::core::error::{Error, ErrorCode, Result};

/// The fields, their JSON names, headings and limits (seed 004's table).
pub const FIELDS: [(&str, &str, usize); 7] = [
    ("decisions", "Key decisions", 8),
    ("constraints", "Active constraints", 6),
    ("tasks", "Tasks", 10),
    ("openQuestions", "Open questions", 5),
    ("risks", "Risks", 5),
    ("artifacts", "Artifacts", 10),
    ("contributions", "Agent contributions", 6),
];

/// The line after which a summary's text gives the workstream state delta as one JSON object.
pub const DELTA_MARKER: &str = "WORKSTREAM STATE DELTA:";

/// Splits an answer into the summary before its last [`DELTA_MARKER`] line and the delta after it
/// (a JSON object, optionally in a ```` ``` ```` fence), validated. Without the marker, the answer
/// is the summary and there is no delta. Errors: `SUMMARIZER_FAILED` when what follows the marker
/// is not a valid delta.
pub fn split_delta(answer: &str) -> Result<(String, Option<Value>)> {
    let Some(at) = answer
        .match_indices(DELTA_MARKER)
        .map(|(i, _)| i)
        .filter(|&i| i == 0 || answer.get(..i).is_some_and(|b| b.ends_with('\n')))
        .last()
    else {
        return Ok((answer.to_string(), None));
    };
    let summary = answer.get(..at).unwrap_or_default().trim_end().to_string();
    let rest = answer
        .get(at + DELTA_MARKER.len()..)
        .unwrap_or_default()
        .trim();
    let rest = rest
        .strip_prefix("```json")
        .or_else(|| rest.strip_prefix("```"))
        .unwrap_or(rest);
    let rest = rest.trim().strip_suffix("```").unwrap_or(rest).trim();
    let failed = |why: String| {
        Error::new(
            ErrorCode::SummarizerFailed,
            format!("the workstream state delta after \"{DELTA_MARKER}\" {why}"),
        )
    };
    let delta: Value =
        serde_json::from_str(rest).map_err(|e| failed(format!("is not one JSON object: {e}")))?;
    validate_delta(&delta).map_err(|e| failed(format!("is invalid: {}", e.message)))?;
    Ok((summary, Some(delta)))
}

/// Reads a delta: an object whose known fields are arrays. Unknown fields are `INVALID_INPUT`
/// naming them (a misspelled field would otherwise be dropped silently).
pub fn validate_delta(delta: &Value) -> Result<()> {
    let obj = delta.as_object().ok_or_else(|| {
        Error::invalid_input("state", "the workstream state delta must be an object")
    })?;
    for (key, value) in obj {
        if key == "remove" {
            validate_delta(value).map_err(|e| {
                Error::invalid_input(
                    format!("state.remove.{}", e.path.unwrap_or_default()),
                    e.message,
                )
            })?;
            continue;
        }
        if !FIELDS.iter().any(|(name, _, _)| name == key) {
            return Err(Error::invalid_input(
                format!("state.{key}"),
                format!(
                    "unknown workstream field \"{key}\" (expected {})",
                    FIELDS.iter().map(|f| f.0).collect::<Vec<_>>().join(", ")
                ),
            ));
        }
        if !value.is_array() {
            return Err(Error::invalid_input(
                format!("state.{key}"),
                format!("{key} must be an array of items"),
            ));
        }
    }
    Ok(())
}

/// `state` (the previous state, or null) with `delta` merged in, limits enforced.
pub fn merge(state: Option<&Value>, delta: &Value) -> Value {
    let empty = Map::new();
    let old = state.and_then(Value::as_object).unwrap_or(&empty);
    let add = delta.as_object().unwrap_or(&empty);
    let remove = add
        .get("remove")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut out = Map::new();
    for (name, _, limit) in FIELDS {
        let items = |m: &Map<String, Value>| -> Vec<Value> {
            m.get(name)
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        };
        let dropped = items(remove);
        let mut merged: Vec<Value> = Vec::new();
        for item in items(old).into_iter().chain(items(add)) {
            if dropped.contains(&item) {
                continue;
            }
            merged.retain(|x| x != &item);
            merged.push(item);
        }
        let extra = merged.len().saturating_sub(limit);
        merged.drain(..extra);
        if !merged.is_empty() {
            out.insert(name.to_string(), Value::Array(merged));
        }
    }
    Value::Object(out)
}

/// The state as text for the summary message (nothing for an empty state).
pub fn render(state: &Value) -> Option<String> {
    let obj = state.as_object()?;
    let mut out = String::new();
    for (name, heading, _) in FIELDS {
        let Some(items) = obj.get(name).and_then(Value::as_array) else {
            continue;
        };
        if items.is_empty() {
            continue;
        }
        out.push_str(heading);
        out.push_str(":\n");
        for item in items {
            out.push_str("- ");
            match item {
                Value::String(s) => out.push_str(s),
                other => out.push_str(&other.to_string()),
            }
            out.push('\n');
        }
    }
    (!out.is_empty()).then(|| format!("WORKSTREAM STATE:\n{}", out.trim_end()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn merges_with_the_seed_limits_keeping_the_newest() {
        let delta = json!({"decisions": (0..12).map(|i| format!("d{i}")).collect::<Vec<_>>(), "risks": ["r1"]});
        let state = merge(None, &delta);
        let decisions = state["decisions"].as_array().unwrap();
        assert_eq!(decisions.len(), 8);
        assert_eq!(decisions[0], "d4");
        let next = merge(
            Some(&state),
            &json!({"risks": ["r2", "r1"], "remove": {"decisions": ["d11"]}}),
        );
        assert_eq!(next["risks"], json!(["r2", "r1"]));
        assert_eq!(next["decisions"].as_array().unwrap().len(), 7);
        let text = render(&next).unwrap();
        assert!(text.starts_with("WORKSTREAM STATE:\nKey decisions:\n- d4"));
        assert!(text.contains("Risks:\n- r2\n- r1"));
        assert!(render(&json!({})).is_none());
        for (name, _, limit) in FIELDS {
            let many: Vec<String> = (0..30).map(|i| format!("x{i}")).collect();
            let s = merge(None, &json!({ name: many }));
            assert_eq!(s[name].as_array().unwrap().len(), limit);
        }
    }

    #[test]
    fn a_delta_after_the_marker_leaves_the_summary() {
        let answer =
            "KEY FACTS:\n- a\n\nWORKSTREAM STATE DELTA:\n```json\n{\"tasks\": [\"t1\"]}\n```";
        let (summary, delta) = split_delta(answer).unwrap();
        assert_eq!(summary, "KEY FACTS:\n- a");
        assert_eq!(delta, Some(json!({"tasks": ["t1"]})));
        let (summary, delta) = split_delta("no delta here").unwrap();
        assert_eq!((summary.as_str(), delta), ("no delta here", None));
        let e = split_delta("S\nWORKSTREAM STATE DELTA:\n{\"decisons\": []}").unwrap_err();
        assert_eq!(e.code, ErrorCode::SummarizerFailed);
        assert!(split_delta("S\nWORKSTREAM STATE DELTA: not json").is_err());
        // Only a marker that starts a line counts.
        let (summary, delta) = split_delta("see the WORKSTREAM STATE DELTA: below").unwrap();
        assert_eq!(
            (summary.as_str(), delta),
            ("see the WORKSTREAM STATE DELTA: below", None)
        );
    }

    #[test]
    fn unknown_fields_are_errors_with_the_path() {
        assert!(validate_delta(&json!({"decisions": ["a"], "remove": {"tasks": []}})).is_ok());
        let e = validate_delta(&json!({"decisons": ["a"]})).unwrap_err();
        assert_eq!(e.path.as_deref(), Some("state.decisons"));
        assert!(validate_delta(&json!({"tasks": "a"})).is_err());
        assert!(validate_delta(&json!([1])).is_err());
    }
}
