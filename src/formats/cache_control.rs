//! Anthropic prompt-cache breakpoints: `cache_control` markers on content blocks. A request may
//! carry at most [`MAX_CACHE_BREAKPOINTS`] of them (system prompt and tools included), and thinking
//! blocks cannot carry one.

use serde_json::{json, Map, Value};

/// The most `cache_control` breakpoints Anthropic accepts in one request.
pub const MAX_CACHE_BREAKPOINTS: usize = 4;

/// Breakpoints already present anywhere in `message` (nested tool-result content included).
pub fn count_cache_markers(message: &Value) -> usize {
    match message {
        Value::Object(obj) => {
            let own = usize::from(obj.get("cache_control").is_some_and(|v| !v.is_null()));
            own + obj
                .iter()
                .filter(|(k, _)| k.as_str() != "cache_control")
                .map(|(_, v)| count_cache_markers(v))
                .sum::<usize>()
        }
        Value::Array(items) => items.iter().map(count_cache_markers).sum(),
        _ => 0,
    }
}

fn can_carry(block: &Value) -> bool {
    !matches!(
        block.get("type").and_then(Value::as_str),
        Some("thinking" | "redacted_thinking")
    )
}

/// `message` with an ephemeral `cache_control` marker on its last block that may carry one (a
/// string content becomes one text block). Unchanged when that block already has a marker or no
/// block can carry one.
pub fn with_cache_marker(message: &Value) -> Value {
    let mut out = message.clone();
    let Some(obj) = out.as_object_mut() else {
        return out;
    };
    let marker = json!({"type": "ephemeral"});
    match obj.get_mut("content") {
        Some(Value::String(text)) => {
            let mut block = Map::new();
            block.insert("type".into(), Value::String("text".into()));
            block.insert("text".into(), Value::String(std::mem::take(text)));
            block.insert("cache_control".into(), marker);
            obj.insert("content".into(), Value::Array(vec![Value::Object(block)]));
        }
        Some(Value::Array(blocks)) => {
            if let Some(block) = blocks.iter_mut().rev().find(|b| can_carry(b)) {
                if let Some(b) = block.as_object_mut() {
                    b.entry("cache_control").or_insert(marker);
                }
            }
        }
        _ => {}
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn marks_the_last_block_that_may_carry_one() {
        let m = json!({"role": "user", "content": "hi"});
        let marked = with_cache_marker(&m);
        assert_eq!(marked["content"][0]["cache_control"]["type"], "ephemeral");
        assert_eq!(marked["content"][0]["text"], "hi");
        assert_eq!(count_cache_markers(&marked), 1);
        let a = json!({"role": "assistant", "content": [{"type": "text", "text": "x"}, {"type": "thinking", "thinking": "t", "signature": "s"}]});
        let marked = with_cache_marker(&a);
        assert!(marked["content"][1].get("cache_control").is_none());
        assert_eq!(marked["content"][0]["cache_control"]["type"], "ephemeral");
        // Idempotent.
        assert_eq!(with_cache_marker(&marked), marked);
        let nested = json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": [{"type": "text", "text": "r", "cache_control": {"type": "ephemeral"}}]}]});
        assert_eq!(count_cache_markers(&nested), 1);
    }
}
