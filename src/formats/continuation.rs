//! The messages of a summary request that continues the conversation, in the caller's format: the
//! conversation as the model last saw it, then the summary instruction as the final user message.
//! For Anthropic messages, cache markers are placed by the core's rule
//! ([`cache_marks`](crate::core::summary::continuation::cache_marks)): the caller's markers stay
//! when its messages carry any; otherwise the message before the model's latest answer (the last
//! message of its previous request) gets one. The instruction lands after the last cached block.

use serde_json::Value;

use crate::core::message::{Message, Role};
use crate::core::summary::continuation::cache_marks;

use super::cache_control::{count_cache_markers, with_cache_marker, MAX_CACHE_BREAKPOINTS};
use super::{Codec, Format};

/// The caller's `messages` (in `format`) as a continuing request's conversation sends them: `None`
/// for a message sent as the caller's own object, the changed message (an Anthropic message that
/// gains the cache marker [`continuing_messages`] places) otherwise. The instruction is left out:
/// each request has its own.
pub fn conversation_changes(messages: &[Value], format: Format) -> Vec<Option<Value>> {
    let out = continuing_messages(messages, format, "", 0);
    messages
        .iter()
        .zip(out)
        .map(|(before, after)| (*before != after).then_some(after))
        .collect()
}

/// The conversation of a continuing request over the caller's `values` (in `format`): each value
/// as it is, but for those [`conversation_changes`] changes, made by `value_of` from the changed
/// JSON. `json_of` reads a value's JSON; `None` when one cannot be read (the transcript then).
pub fn conversation<V>(
    values: Vec<V>,
    json_of: impl Fn(&V) -> Option<Value>,
    value_of: impl Fn(&Value) -> V,
    format: Format,
) -> Option<Vec<V>> {
    let json = values.iter().map(json_of).collect::<Option<Vec<_>>>()?;
    let changes = conversation_changes(&json, format);
    let one = |(value, changed): (V, Option<Value>)| changed.map_or(value, |m| value_of(&m));
    Some(values.into_iter().zip(changes).map(one).collect())
}

/// `messages` (the rendered conversation, in `format`) with the instruction appended as a user
/// message of that format; `reserved`: markers on the caller's system prompt and tools. The input
/// is not changed; messages that need no change are equal copies.
pub fn continuing_messages(
    messages: &[Value],
    format: Format,
    instruction: &str,
    reserved: usize,
) -> Vec<Value> {
    let mut out: Vec<Value> = messages.to_vec();
    if format == Format::Anthropic {
        let marked: Vec<usize> = (0..out.len())
            .filter(|&i| out.get(i).is_some_and(|m| count_cache_markers(m) > 0))
            .collect();
        let tail = out
            .iter()
            .rposition(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
            .and_then(|i| i.checked_sub(1));
        let marks = cache_marks(&marked, tail, reserved, MAX_CACHE_BREAKPOINTS);
        for (i, message) in out.iter_mut().enumerate() {
            if marks.contains(&i) && !marked.contains(&i) {
                *message = with_cache_marker(message);
            } else if marked.contains(&i) && !marks.contains(&i) {
                strip_markers(message);
            }
        }
    }
    let question = format.export(&[Message::text(Role::User, instruction)]);
    out.extend(question);
    out
}

fn strip_markers(value: &mut Value) {
    match value {
        Value::Object(obj) => {
            obj.remove("cache_control");
            obj.values_mut().for_each(strip_markers);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_markers),
        _ => {}
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn anthropic_conversations_end_on_a_cached_block_then_the_instruction() {
        let messages = vec![
            json!({"role": "user", "content": [{"type": "text", "text": "task", "cache_control": {"type": "ephemeral"}}]}),
            json!({"role": "assistant", "content": "working", "x-extra": 1}),
            json!({"role": "user", "content": "more"}),
        ];
        // The caller's marker stays; no other is added.
        let out = continuing_messages(&messages, Format::Anthropic, "Summarize.", 1);
        assert_eq!(out.len(), 4);
        assert_eq!(out[..3], messages[..]);
        assert_eq!(out[3]["role"], "user");
        assert_eq!(count_cache_markers(&out[3]), 0);
        assert!(out[3].to_string().contains("Summarize."));
        // Unmarked: the message before the latest answer gets one (the previous request's tail).
        let plain: Vec<Value> = messages
            .iter()
            .map(|m| {
                let mut m = m.clone();
                strip_markers(&mut m);
                m
            })
            .collect();
        let changes = conversation_changes(&plain, Format::Anthropic);
        assert_eq!(
            changes.iter().map(Option::is_some).collect::<Vec<_>>(),
            [true, false, false]
        );
        assert_eq!(changes[0].as_ref().map(count_cache_markers), Some(1));
        let out = continuing_messages(&plain, Format::Anthropic, "S", 0);
        let counts: Vec<usize> = out.iter().map(count_cache_markers).collect();
        assert_eq!(counts, vec![1, 0, 0, 0]);
        // Four markers already, one on the system prompt: the earliest gives way.
        let marked: Vec<Value> = (0..4).map(|i| with_cache_marker(&json!({"role": if i % 2 == 0 {"user"} else {"assistant"}, "content": format!("m{i}")}))).collect();
        let out = continuing_messages(&marked, Format::Anthropic, "S", 1);
        let counts: Vec<usize> = out.iter().map(count_cache_markers).collect();
        assert_eq!(counts, vec![0, 1, 1, 1, 0]);
    }

    #[test]
    fn other_formats_only_append_the_instruction_in_their_shape() {
        let messages = vec![json!({"role": "user", "content": "hi", "name": "kept"})];
        let out = continuing_messages(&messages, Format::OpenAi, "Summarize.", 0);
        assert_eq!(out[0], messages[0]);
        assert_eq!(out[1]["role"], "user");
        assert!(out[1].to_string().contains("Summarize."));
        let out = continuing_messages(&messages, Format::AiSdk, "Summarize.", 0);
        assert_eq!(out[1]["role"], "user");
        assert_eq!(conversation_changes(&messages, Format::OpenAi), [None]);
    }

    #[test]
    fn the_conversation_keeps_the_callers_values_but_the_changed_ones() {
        // Values are (name, JSON): unchanged ones come back as they were, by name.
        let values: Vec<(String, Value)> = vec![
            ("task".into(), json!({"role": "user", "content": "task"})),
            (
                "answer".into(),
                json!({"role": "assistant", "content": "working"}),
            ),
            ("more".into(), json!({"role": "user", "content": "more"})),
        ];
        let json_of = |v: &(String, Value)| Some(v.1.clone());
        let value_of = |m: &Value| ("changed".to_string(), m.clone());
        let out = conversation(values.clone(), json_of, value_of, Format::Anthropic).unwrap();
        let names: Vec<&str> = out.iter().map(|v| v.0.as_str()).collect();
        assert_eq!(names, ["changed", "answer", "more"]);
        assert_eq!(count_cache_markers(&out[0].1), 1);
        let out = conversation(values.clone(), json_of, value_of, Format::OpenAi).unwrap();
        assert_eq!(out, values);
        // A value without JSON: no conversation (the transcript is sent).
        let unread = |v: &(String, Value)| (v.0 != "more").then(|| v.1.clone());
        assert!(conversation(values, unread, value_of, Format::OpenAi).is_none());
    }
}
