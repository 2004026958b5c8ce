//! The provider's own count of what each turn added, read from the usage recorded in the real
//! sessions of `tests/fixtures` (seed 000's method): the prompt of a request is `input +
//! cacheRead + cacheWrite`; between two consecutive requests of the same model it grows by the
//! tokens of the messages from the first request's assistant message (as sent back) up to the
//! second request's assistant message (excluded). Turns that span a compaction, a model change
//! or a prompt that did not grow (a provider-side truncation, a retried request) are left out.
#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use serde_json::Value;

use context_compaction::core::estimate::Usage;
use context_compaction::core::message::{Message, Role};
use context_compaction::formats::claude_code::import_claude_code;
use context_compaction::formats::pi_session::import_pi_session;

use super::fixtures;

/// The sessions whose usage fits the Anthropic factors; every other session is held out for
/// checking only.
pub const FIT: [&str; 2] = [
    "claude-code/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl",
    "pi/before-compaction.jsonl",
];

/// One request with its usage: the index of its assistant message and the prompt's size.
#[derive(Clone, Debug)]
pub struct Request {
    pub assistant: usize,
    pub prompt: u64,
    pub usage: Usage,
    pub model: String,
}

/// One turn between two requests: messages `from..to` were added, the provider counted `added`.
#[derive(Clone, Copy, Debug)]
pub struct Turn {
    pub from: usize,
    pub to: usize,
    pub added: u64,
    /// The usage of the request at `from` and of the one at `to`.
    pub before: Usage,
    pub after: Usage,
}

/// A session with its requests and turns.
pub struct Replay {
    pub name: String,
    pub fit: bool,
    pub messages: Vec<Message>,
    pub requests: Vec<Request>,
    pub turns: Vec<Turn>,
}

fn prompt(u: &Usage) -> u64 {
    u.input + u.cache_read + u.cache_write
}

/// Every session of `tests/fixtures` with usage numbers.
pub fn sessions() -> Vec<Replay> {
    let mut out = Vec::new();
    for sub in ["claude-code", "pi"] {
        for file in fixtures::files(sub) {
            let name = format!("{sub}/{}", file.file_name().unwrap().to_string_lossy());
            let text = std::fs::read_to_string(&file).unwrap();
            let replay = if sub == "pi" {
                pi(&name, &text)
            } else {
                claude_code(&name, &text)
            };
            if !replay.turns.is_empty() {
                out.push(replay);
            }
        }
    }
    assert!(out.len() >= 4, "expected sessions with usage");
    out
}

/// The request that produced assistant message `assistant`, from the message's recorded usage and
/// model (none when it records no usage or a zero prompt).
fn request(assistant: usize, message: &Value) -> Option<Request> {
    let usage = Usage::from_value(message.get("usage")?)?;
    let model = message.get("model").and_then(Value::as_str)?.to_string();
    (prompt(&usage) > 0).then(|| Request {
        assistant,
        prompt: prompt(&usage),
        usage,
        model,
    })
}

fn claude_code(name: &str, text: &str) -> Replay {
    let session = import_claude_code(text).unwrap_or_else(|e| panic!("{name}: {e}"));
    let lines: Vec<&str> = text.lines().collect();
    let mut requests = Vec::new();
    for (i, (m, entry)) in session.messages.iter().zip(&session.entries).enumerate() {
        if m.role != Role::Assistant {
            continue;
        }
        let Some(&last) = entry.lines.last() else {
            continue;
        };
        let line: Value = serde_json::from_str(lines[last - 1]).unwrap();
        requests.extend(line.get("message").and_then(|m| request(i, m)));
    }
    let cuts: Vec<usize> = session.compactions.iter().map(|c| c.at_message).collect();
    build(name, session.messages, requests, &cuts)
}

fn pi(name: &str, text: &str) -> Replay {
    let session = import_pi_session(text).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut requests = Vec::new();
    for (i, m) in session.messages.iter().enumerate() {
        if m.role != Role::Assistant {
            continue;
        }
        requests.extend(m.original.as_ref().and_then(|o| request(i, &o.to_value())));
    }
    let cuts: Vec<usize> = session.compactions.iter().map(|c| c.at_message).collect();
    build(name, session.messages, requests, &cuts)
}

fn build(name: &str, messages: Vec<Message>, requests: Vec<Request>, cuts: &[usize]) -> Replay {
    let mut turns = Vec::new();
    for pair in requests.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        let crosses = cuts.iter().any(|&c| c > a.assistant && c <= b.assistant);
        let summary = messages[a.assistant..b.assistant].iter().any(|m| m.summary);
        if a.model != b.model || crosses || summary || b.prompt <= a.prompt {
            continue;
        }
        turns.push(Turn {
            from: a.assistant,
            to: b.assistant,
            added: b.prompt - a.prompt,
            before: a.usage,
            after: b.usage,
        });
    }
    Replay {
        name: name.to_string(),
        fit: FIT.contains(&name),
        messages,
        requests,
        turns,
    }
}

/// The `q`-quantile (0..=1) of `values` (sorted copy, nearest rank).
pub fn quantile(values: &[f64], q: f64) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        return f64::NAN;
    }
    let at = ((v.len() - 1) as f64 * q).round() as usize;
    v[at.min(v.len() - 1)]
}
