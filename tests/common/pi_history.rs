//! A synthetic pi history and the options the Compactor's native tests build on it.
#![allow(dead_code, clippy::unwrap_used)]

use context_compaction::core::estimate::{Counter, Estimator};
use context_compaction::core::message::Message;
use context_compaction::core::options::{parse, Options};
use context_compaction::formats::pi::import_message;
use serde_json::json;

/// A pi history of `turns` turns: a request, one tool call with a result of `size` words, an
/// answer.
pub fn history(turns: usize, size: usize) -> Vec<Message> {
    let mut out = Vec::new();
    for t in 0..turns {
        let id = format!("call-{t}");
        out.push(json!({"role": "user", "content": [{"type": "text", "text": format!("ask {t} ").repeat(5)}]}));
        out.push(json!({"role": "assistant", "content": [{"type": "toolCall", "id": id, "name": "read", "arguments": {"path": format!("f{t}")}}]}));
        out.push(json!({"role": "toolResult", "toolCallId": id, "toolName": "read", "content": [{"type": "text", "text": format!("line{t} ").repeat(size)}], "isError": false}));
        out.push(json!({"role": "assistant", "content": [{"type": "text", "text": format!("done {t} ").repeat(5)}]}));
    }
    out.iter()
        .map(|v| import_message(v, "m").unwrap())
        .collect()
}

/// Extractive options at `window` tokens, with `extra`'s keys on top.
pub fn options_at(window: usize, extra: serde_json::Value) -> Options {
    let mut o = json!({"contextWindow": window, "summarize": "extractive"});
    if let (Some(o), Some(extra)) = (o.as_object_mut(), extra.as_object()) {
        o.extend(extra.clone());
    }
    parse(&o).unwrap()
}

/// The heuristic estimator.
pub fn estimator() -> Estimator {
    Estimator::new(Counter::Heuristic)
}
