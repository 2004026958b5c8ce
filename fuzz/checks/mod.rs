//! The fuzz targets' bodies, shared by the coverage-guided targets (`fuzz/fuzz_targets/*.rs`, run
//! by `npm run fuzz` with cargo-fuzz on nightly) and by the stable smoke run in `npm test`
//! (`tests/fuzz_smoke.rs`). Each takes arbitrary bytes and panics only when an invariant breaks.
#![allow(
    dead_code,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::unwrap_used
)]

use std::collections::HashSet;

use context_compaction::core::error::ErrorCode;
use context_compaction::core::message::{Message, Part, Role};
use context_compaction::core::plan::{plan, Disposition, PlanInput, PlanOptions, Strategy};
use context_compaction::core::settings::Settings;
use context_compaction::core::tokens::{Encoding, EncodingName};
use context_compaction::core::validate::validate;
use context_compaction::formats::{
    claude_code::import_claude_code, detect, detect::detect_messages,
    pi_session::import_pi_session, Codec, Format,
};
use serde_json::{json, Value};

const FORMATS: [Format; 4] = [Format::AiSdk, Format::OpenAi, Format::Anthropic, Format::Pi];

/// Every importer on the bytes as JSON: never a panic; what imports exports and imports again to
/// the same messages; detection agrees with some importer. What `trimMessages` relies on to read a
/// message array on demand: detection gives the same answer from the shapes alone, and every tool
/// id an importer reads is a string under a key ending in `id` in the message it imports.
pub fn formats(data: &[u8]) {
    let Ok(value) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let detected = detect(&value);
    if let Some(items) = value.as_array() {
        let shapes: Vec<Value> = items.iter().map(message_shape).collect();
        let from_shapes = detect_messages(&shapes.iter().collect::<Vec<_>>());
        assert_eq!(
            from_shapes.as_ref().map_err(|e| (&e.path, &e.message)),
            detected.as_ref().map_err(|e| (&e.path, &e.message)),
            "detection from the shapes"
        );
    }
    for format in FORMATS.into_iter().chain([Format::LangChain]) {
        if let Ok(messages) = format.import(&value) {
            for (message, original) in messages.iter().zip(value.as_array().into_iter().flatten()) {
                let mut ids = Vec::new();
                id_strings(original, &mut ids);
                for id in message
                    .tool_call_ids()
                    .into_iter()
                    .chain(message.tool_result_ids())
                {
                    assert!(
                        ids.contains(&id),
                        "{}: tool id {id:?} not under an id key",
                        format.as_str()
                    );
                }
            }
        }
    }
    for format in FORMATS {
        if let Ok(messages) = format.import(&value) {
            let exported = format.export(&messages);
            let again = format
                .import(&Value::Array(exported))
                .unwrap_or_else(|e| panic!("{} re-import failed: {}", format.as_str(), e.message));
            assert_eq!(again.len(), messages.len(), "{}", format.as_str());
            for (a, b) in again.iter().zip(&messages) {
                assert_eq!(a.role, b.role, "{}", format.as_str());
                assert_eq!(a.parts, b.parts, "{}", format.as_str());
            }
            let _ = validate(&messages);
        }
    }
}

/// What `trimMessages` sends format detection of one message (the rule of `onDemand` in
/// `src/wasm/plain.rs`): its fields, with its `role` and `type` strings; the fields of the blocks of
/// its `content` array and of their own `content` blocks, with their `type` strings; every other
/// value as an empty value of its kind.
fn message_shape(message: &Value) -> Value {
    fn kind(v: &Value) -> Value {
        match v {
            Value::String(_) => json!(""),
            Value::Array(_) => json!([]),
            Value::Object(_) => json!({}),
            other => other.clone(),
        }
    }
    fn object(v: &Value, keep: &[&str], content: Option<&dyn Fn(&Value) -> Value>) -> Value {
        let Value::Object(fields) = v else {
            return kind(v);
        };
        let shaped = fields.iter().map(|(k, c)| {
            let c = match (c, content) {
                (Value::String(_), _) if keep.contains(&k.as_str()) => c.clone(),
                (Value::Array(items), Some(content)) if k == "content" => {
                    Value::Array(items.iter().map(content).collect())
                }
                _ => kind(c),
            };
            (k.clone(), c)
        });
        Value::Object(shaped.collect())
    }
    let inner = |b: &Value| object(b, &["type"], None);
    let block = |b: &Value| object(b, &["type"], Some(&inner));
    object(message, &["role", "type"], Some(&block))
}

/// Every string under a key ending in `id` (any case), at any depth.
fn id_strings<'v>(value: &'v Value, out: &mut Vec<&'v str>) {
    match value {
        Value::Object(fields) => {
            for (k, v) in fields {
                match v {
                    Value::String(s) if k.to_ascii_lowercase().ends_with("id") => out.push(s),
                    _ => id_strings(v, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| id_strings(v, out)),
        _ => {}
    }
}

/// pi's session importer: never a panic; the live context is a suffix-consistent view.
pub fn pi_session(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok(session) = import_pi_session(&text) {
        let context = session.context();
        assert!(context.len() <= session.messages.len() + session.compactions.len());
    }
}

/// Claude Code's session importer: never a panic.
pub fn claude_code(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok(session) = import_claude_code(&text) {
        let _ = session.context();
    }
}

/// Exact counting against tiktoken-rs: the same pieces as fancy-regex with tiktoken's patterns,
/// and the same counts as tiktoken-rs's `encode_ordinary`, for both encodings. (Native only: the
/// references are native dev-dependencies.)
#[cfg(not(target_arch = "wasm32"))]
pub fn exact_count(data: &[u8]) {
    use context_compaction::core::tokens::split::{pieces, Pattern};
    use std::sync::OnceLock;
    const CL100K: &str = r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s";
    static STATE: OnceLock<[(Encoding, Pattern, fancy_regex::Regex); 2]> = OnceLock::new();
    let state = STATE.get_or_init(|| {
        let load = |name, table: &[u8]| Encoding::parse(name, table).unwrap();
        [
            (
                load(
                    EncodingName::O200kBase,
                    include_bytes!("../../encodings/o200k_base.ranks"),
                ),
                Pattern::O200k,
                fancy_regex::Regex::new(tiktoken_rs::O200K_BASE_PAT_STR).unwrap(),
            ),
            (
                load(
                    EncodingName::Cl100kBase,
                    include_bytes!("../../encodings/cl100k_base.ranks"),
                ),
                Pattern::Cl100k,
                fancy_regex::Regex::new(CL100K).unwrap(),
            ),
        ]
    });
    let text: &str = &String::from_utf8_lossy(data);
    for (encoding, pattern, regex) in state {
        let Ok(expected) = regex
            .find_iter(text)
            .map(|m| m.map(|m| m.as_str()))
            .collect::<Result<Vec<&str>, _>>()
        else {
            continue; // fancy-regex gave up (backtracking limit): no reference to compare with
        };
        let got: Vec<&str> = pieces(*pattern, text).collect();
        assert_eq!(got, expected, "{pattern:?} pieces of {text:?}");
        let reference = match pattern {
            Pattern::O200k => tiktoken_rs::o200k_base_singleton(),
            Pattern::Cl100k => tiktoken_rs::cl100k_base_singleton(),
        };
        assert_eq!(
            encoding.count(text),
            reference.encode_ordinary(text).len(),
            "{pattern:?} count of {text:?}"
        );
    }
}

/// The rank-table loader: never a panic; a table it accepts counts any text.
pub fn encoding(data: &[u8]) {
    for name in EncodingName::ALL {
        if let Ok(encoding) = Encoding::parse(name, data) {
            let _ = encoding.count(&String::from_utf8_lossy(data));
        }
    }
}

/// The options parser: never a panic; accepted options validate.
pub fn options(data: &[u8]) {
    let Ok(value) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    for v in [
        value.clone(),
        json!({ "contextWindow": 100_000, "options": value }),
    ] {
        if let Ok(o) = context_compaction::core::options::parse(&v) {
            o.settings.validate().expect("accepted options validate");
        }
    }
    if let Value::Object(mut map) = value {
        map.insert("contextWindow".into(), json!(100_000));
        if let Ok(o) = context_compaction::core::options::parse(&Value::Object(map)) {
            o.settings.validate().expect("accepted options validate");
        }
    }
}

/// A history and plan options decoded from bytes: the first bytes choose the strategy and its
/// numbers, then each pair of bytes one message (kind, size).
fn decode(data: &[u8]) -> (Vec<Message>, Vec<usize>, PlanOptions, usize) {
    let byte = |i: usize| data.get(i).copied().unwrap_or(0) as usize;
    let mut settings = Settings::new(10_000).plan;
    settings.strategy = match byte(0) % 5 {
        0 => Strategy::RecentTokens { keep: byte(1) * 20 },
        1 => Strategy::LastMessages { keep: byte(1) % 20 },
        2 => Strategy::LastTurns { keep: byte(1) % 6 },
        3 => Strategy::TokenBudget { max: byte(1) * 20 },
        _ => Strategy::RecentUserMessages {
            max_tokens: byte(1) * 20,
        },
    };
    settings.boundary = if byte(2) % 2 == 0 {
        context_compaction::core::cut::TurnBoundary::Split
    } else {
        context_compaction::core::cut::TurnBoundary::Snap
    };
    settings.summarize = byte(2) % 3 != 0;
    settings.summary_tokens = 50 + byte(3);
    settings.prefix_summary_tokens = 20 + byte(3) / 2;
    let limit = 200 + byte(4) * 40;
    settings.limit = Some(limit);
    let mut messages = Vec::new();
    let mut tokens = Vec::new();
    let mut open: Vec<String> = Vec::new();
    let mut next = 0u32;
    for pair in data.get(5..).unwrap_or_default().chunks(2) {
        let kind = pair.first().copied().unwrap_or(0);
        let size = 1 + pair.get(1).copied().unwrap_or(0) as usize * 4;
        let m = match kind % 8 {
            0 if messages.is_empty() => Message::text(Role::System, "rules"),
            0 | 1 => Message::text(Role::User, "question"),
            2 => Message::text(Role::Assistant, "answer"),
            3 | 4 => {
                next += 1;
                let id = format!("c{next}");
                open.push(id.clone());
                Message::new(
                    Role::Assistant,
                    vec![Part::ToolCall {
                        id,
                        name: if kind % 2 == 0 { "read" } else { "bash" }.into(),
                        input: json!({ "path": format!("/f{}", kind % 3) }),
                    }],
                )
            }
            5 | 6 if !open.is_empty() => {
                let id = open.remove(0);
                Message::new(
                    Role::Tool,
                    vec![Part::ToolResult {
                        id,
                        name: None,
                        output: vec![Part::text("x".repeat(size.min(400)))],
                        is_error: kind % 7 == 0,
                    }],
                )
            }
            5 | 6 => Message::text(Role::User, "more"),
            _ => {
                let mut s = Message::text(Role::User, "summary of earlier work");
                s.summary = true;
                s
            }
        };
        messages.push(m);
        tokens.push(size);
    }
    (messages, tokens, settings, limit)
}

/// The planner on a decoded history: never a panic; every message gets one disposition; the
/// compacted context introduces no orphaned tool result and no unanswered call; it fits its limit
/// or the error is `CANNOT_COMPACT`.
pub fn planner(data: &[u8]) {
    let (messages, tokens, options, limit) = decode(data);
    let cost = |p: &Part| p.text_len() / 4 + 1;
    let input = PlanInput {
        messages: &messages,
        tokens: &tokens,
        part_cost: &cost,
    };
    let plan = match plan(&input, &options) {
        Ok(p) => p,
        Err(e) => {
            assert_eq!(e.code, ErrorCode::CannotCompact, "{}", e.message);
            return;
        }
    };
    assert_eq!(plan.dispositions.len(), messages.len());
    assert!(
        plan.tokens_after <= limit,
        "{} > {limit}",
        plan.tokens_after
    );
    let kept: Vec<Message> = plan
        .dispositions
        .iter()
        .zip(&messages)
        .filter(|(d, _)| {
            matches!(
                d,
                Disposition::System | Disposition::Keep | Disposition::Pinned
            )
        })
        .map(|(_, m)| m.clone())
        .collect();
    let before: HashSet<(String, Option<String>)> = validate(&messages)
        .into_iter()
        .map(|v| (v.kind.as_str().to_string(), v.id))
        .collect();
    for v in validate(&kept) {
        let key = (v.kind.as_str().to_string(), v.id.clone());
        assert!(
            before.contains(&key),
            "the plan introduced {} ({:?}) in {:?}: {:?}",
            key.0,
            v.id,
            messages
                .iter()
                .map(|m| format!("{:?}{}", m.role, if m.summary { "*" } else { "" }))
                .collect::<Vec<_>>(),
            plan.dispositions
        );
    }
}
