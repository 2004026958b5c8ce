//! Recognising a provider's "the prompt is longer than the context window" error, so that an agent
//! can force a compaction and retry once (seed 003's `retry_with_compaction`).
//!
//! The input is a JSON description of the error: the fields of the thrown object (message, name,
//! code, type, status, statusCode, responseBody, data, error, cause...), with nested provider bodies
//! and JSON strings (the AI SDK's `responseBody`) read as well. An error is an overflow when one of
//! its texts says so in a provider's words (OpenAI and compatible servers, Azure, Anthropic, Google,
//! AWS Bedrock, Mistral, OpenRouter, llama.cpp) and it is not a rate-limit, authentication or
//! permission error (429, 401, 403), whatever its text.

use serde_json::{Map, Value};

/// A recognised context-limit error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Overflow {
    /// The provider whose wording it is, when it can be told.
    pub provider: Option<&'static str>,
    /// The context window the provider reported, in tokens.
    pub limit: Option<u64>,
    /// The tokens the request needed, as reported.
    pub requested: Option<u64>,
}

/// The fields the binding reads from a thrown object besides its own enumerable ones (`message`,
/// `name` and `cause` of an `Error` are not enumerable).
pub const ERROR_FIELDS: [&str; 16] = [
    "name",
    "message",
    "code",
    "type",
    "status",
    "statusCode",
    "responseBody",
    "body",
    "data",
    "error",
    "errors",
    "cause",
    "url",
    "response",
    "errorMessage",
    "$metadata",
];

/// The bounds of the binding's reading of a thrown value into JSON (it never throws: a getter
/// that throws is skipped, and cycles end at the depth bound).
pub struct ReadBounds {
    /// The deepest nesting read.
    pub depth: usize,
    /// The most values read in all.
    pub nodes: usize,
    /// The longest text read from one string, in characters.
    pub text: usize,
    /// The most elements read from an array and own keys from an object.
    pub items: usize,
}

/// The bounds the binding reads thrown values within.
pub const READ: ReadBounds = ReadBounds {
    depth: 6,
    nodes: 300,
    text: 64 * 1024,
    items: 32,
};

/// A thrown value as the binding shows it to [`describe`].
pub enum Thrown<V> {
    Text(String),
    Number(f64),
    Bool(bool),
    /// An array's first elements (at most [`ReadBounds::items`]).
    Array(Vec<V>),
    /// An object, with its first own enumerable keys (at most [`ReadBounds::items`]).
    Object(Vec<String>),
    /// Anything else (`undefined`, `null`, a symbol, a BigInt...).
    Other,
}

/// A thrown value the binding reads for [`describe`], without ever throwing.
pub trait ThrownValue: Sized {
    /// What the value is; an array or object gives at most `items` elements or keys.
    fn read(&self, items: usize) -> Thrown<Self>;
    /// An object's field; `None` when it is absent, `null`, a function, or its getter threw.
    fn field(&self, key: &str) -> Option<Self>;
}

/// A JSON view of a thrown value, within [`READ`]: past the depth or node bound a value reads as
/// `null` (so cycles end), a text keeps its first [`ReadBounds::text`] characters, and an object
/// gives the [`ERROR_FIELDS`] then its own keys. The input of [`classify`].
pub fn describe<V: ThrownValue>(value: &V) -> Value {
    describe_within(value, 0, &mut 0)
}

/// [`classify`] of a thrown value as [`describe`] reads it: what `isContextOverflowError` and
/// `describeContextOverflow` answer for it.
pub fn overflow_of<V: ThrownValue>(thrown: &V) -> Option<Overflow> {
    classify(&describe(thrown))
}

fn describe_within<V: ThrownValue>(value: &V, depth: usize, nodes: &mut usize) -> Value {
    *nodes += 1;
    if depth > READ.depth || *nodes > READ.nodes {
        return Value::Null;
    }
    let keys = match value.read(READ.items) {
        Thrown::Text(s) => return Value::String(s.chars().take(READ.text).collect()),
        Thrown::Number(n) => {
            return serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number)
        }
        Thrown::Bool(b) => return Value::Bool(b),
        Thrown::Array(items) => {
            let read = items.iter().map(|v| describe_within(v, depth + 1, nodes));
            return Value::Array(read.collect());
        }
        Thrown::Other => return Value::Null,
        Thrown::Object(keys) => keys,
    };
    let mut out = Map::new();
    for key in ERROR_FIELDS.iter().map(|k| (*k).to_string()).chain(keys) {
        if out.contains_key(&key) {
            continue;
        }
        if let Some(v) = value.field(&key) {
            let read = describe_within(&v, depth + 1, nodes);
            out.insert(key, read);
        }
    }
    Value::Object(out)
}

/// The most nodes read from an error (its objects, arrays and values).
const MAX_NODES: usize = 400;
/// The deepest nesting read.
const MAX_DEPTH: usize = 8;
/// The longest text read from one string.
const MAX_TEXT: usize = 64 * 1024;

/// What was read from an error.
#[derive(Default)]
struct Facts {
    texts: Vec<String>,
    statuses: Vec<u64>,
    n_prompt_tokens: Option<u64>,
    n_ctx: Option<u64>,
    nodes: usize,
}

impl Facts {
    fn walk(&mut self, key: &str, value: &Value, depth: usize) {
        if depth > MAX_DEPTH || self.nodes >= MAX_NODES {
            return;
        }
        self.nodes += 1;
        match value {
            Value::String(s) => {
                let text: String = s.chars().take(MAX_TEXT).collect();
                let trimmed = text.trim_start();
                if trimmed.starts_with('{') || trimmed.starts_with('[') {
                    if let Ok(inner) = serde_json::from_str::<Value>(trimmed) {
                        self.walk(key, &inner, depth + 1);
                    }
                }
                if matches!(key, "status" | "statusCode" | "code") {
                    if let Ok(n) = text.trim().parse::<u64>() {
                        self.statuses.push(n);
                    }
                }
                self.texts.push(text.to_lowercase());
            }
            Value::Number(n) => {
                // JS numbers arrive as floats.
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                let n = n.as_u64().or_else(|| {
                    n.as_f64()
                        .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f < 9_007_199_254_740_992.0)
                        .map(|f| f as u64)
                });
                match key {
                    "status" | "statusCode" | "code" | "httpStatusCode" => self.statuses.extend(n),
                    "n_prompt_tokens" => self.n_prompt_tokens = n,
                    "n_ctx" => self.n_ctx = n,
                    _ => {}
                }
            }
            Value::Array(items) => {
                for item in items {
                    self.walk(key, item, depth + 1);
                }
            }
            Value::Object(obj) => {
                for (k, v) in obj {
                    self.walk(k, v, depth + 1);
                }
            }
            Value::Bool(_) | Value::Null => {}
        }
    }

    fn any(&self, needle: &str) -> bool {
        self.texts.iter().any(|t| t.contains(needle))
    }

    /// The first number after `needle` in any text (skipping a few non-digit characters).
    fn number_after(&self, needle: &str) -> Option<u64> {
        self.texts.iter().find_map(|t| {
            let at = t.find(needle)? + needle.len();
            number_at(t.get(at..)?)
        })
    }
}

/// The number starting within the first few characters of `s` (`,` separators allowed).
fn number_at(s: &str) -> Option<u64> {
    let start = s
        .char_indices()
        .take(4)
        .find(|(_, c)| c.is_ascii_digit())?
        .0;
    let digits: String = s
        .get(start..)?
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .filter(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// Phrases that mean "the prompt does not fit the context window", lower-case.
const OVERFLOW_PHRASES: &[&str] = &[
    "context_length_exceeded",
    "exceed_context_size_error",
    "prompt is too long",
    "maximum context length",
    "exceeds the context window",
    "exceeds the maximum number of tokens allowed",
    "input is too long for requested model",
    "exceed context limit",
    "request_too_large",
    "request exceeds the maximum allowed number of bytes",
    "exceeds the available context size",
    "context size exceeded",
    "too large for model with",
    "reduce the length of the messages",
    "prompt exceeds the context window",
    "input exceeds the context window",
    "model_context_window_exceeded",
];

/// Phrases of errors that a compaction does not fix, lower-case.
const OTHER_PHRASES: &[&str] = &[
    "rate limit",
    "rate_limit",
    "tokens per min",
    "insufficient_quota",
];

/// Classifies an error (see the module documentation); `None` when it is not a context-limit error.
pub fn classify(error: &Value) -> Option<Overflow> {
    let mut facts = Facts::default();
    facts.walk("", error, 0);
    if facts.statuses.iter().any(|s| matches!(s, 401 | 403 | 429))
        || OTHER_PHRASES.iter().any(|p| facts.any(p))
    {
        return None;
    }
    if !OVERFLOW_PHRASES.iter().any(|p| facts.any(p)) {
        return None;
    }
    Some(Overflow {
        provider: provider(&facts),
        limit: limit(&facts),
        requested: requested(&facts),
    })
}

fn provider(f: &Facts) -> Option<&'static str> {
    let rules: [(&str, &'static str); 12] = [
        ("exceed_context_size_error", "llama.cpp"),
        ("middle-out", "openrouter"),
        ("too large for model with", "mistral"),
        ("input is too long for requested model", "bedrock"),
        ("validationexception", "bedrock"),
        ("bedrock", "bedrock"),
        ("input token count", "google"),
        ("googleapis", "google"),
        ("prompt is too long", "anthropic"),
        ("exceed context limit", "anthropic"),
        ("request_too_large", "anthropic"),
        ("anthropic", "anthropic"),
    ];
    if let Some((_, name)) = rules.iter().find(|(needle, _)| f.any(needle)) {
        return Some(name);
    }
    if f.any("context_length_exceeded")
        || f.any("maximum context length")
        || f.any("exceeds the context window")
    {
        return Some("openai");
    }
    None
}

fn limit(f: &Facts) -> Option<u64> {
    f.n_ctx
        .or_else(|| f.number_after("maximum context length is"))
        .or_else(|| f.number_after("maximum number of tokens allowed"))
        .or_else(|| {
            // Anthropic: "prompt is too long: 208310 tokens > 200000 maximum".
            f.texts.iter().find_map(|t| {
                let rest = t.get(t.find("prompt is too long")?..)?;
                number_at(rest.get(rest.find('>')? + 1..)?)
            })
        })
        .or_else(|| {
            // Anthropic: "exceed context limit: 188240 + 21333 > 200000".
            f.texts.iter().find_map(|t| {
                let rest = t.get(t.find("exceed context limit")?..)?;
                number_at(rest.get(rest.find('>')? + 1..)?)
            })
        })
        .or_else(|| f.number_after("too large for model with"))
}

fn requested(f: &Facts) -> Option<u64> {
    f.n_prompt_tokens
        .or_else(|| f.number_after("your messages resulted in"))
        .or_else(|| f.number_after("you requested about"))
        .or_else(|| f.number_after("you requested"))
        .or_else(|| f.number_after("prompt is too long:"))
        .or_else(|| f.number_after("input token count"))
        .or_else(|| {
            f.texts.iter().find_map(|t| {
                let rest = t.get(t.find("exceed context limit:")? + 21..)?;
                let a = number_at(rest)?;
                let b = number_at(rest.get(rest.find('+')? + 1..)?)?;
                Some(a.saturating_add(b))
            })
        })
        .or_else(|| f.number_after("prompt contains"))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_numbers_with_separators_and_bounds_the_walk() {
        assert_eq!(number_at(" (1,200,293) exceeds"), Some(1_200_293));
        assert_eq!(number_at("abcdef 12"), None);
        let mut deep = json!("prompt is too long: 5 tokens > 4 maximum");
        for _ in 0..50 {
            deep = json!({ "error": deep });
        }
        assert!(
            classify(&deep).is_none(),
            "nesting past the bound is not read"
        );
        assert!(classify(
            &json!({"status": 429, "message": "maximum context length is 10 tokens"})
        )
        .is_none());
    }

    /// A thrown value as plain JSON (an object's `null` fields read as absent).
    impl ThrownValue for Value {
        fn read(&self, items: usize) -> Thrown<Value> {
            match self {
                Value::String(s) => Thrown::Text(s.clone()),
                Value::Number(n) => Thrown::Number(n.as_f64().unwrap()),
                Value::Bool(b) => Thrown::Bool(*b),
                Value::Array(a) => Thrown::Array(a.iter().take(items).cloned().collect()),
                Value::Object(o) => Thrown::Object(o.keys().take(items).cloned().collect()),
                Value::Null => Thrown::Other,
            }
        }
        fn field(&self, key: &str) -> Option<Value> {
            self.get(key).filter(|v| !v.is_null()).cloned()
        }
    }

    #[test]
    fn a_thrown_value_is_classified_as_it_reads() {
        let long = format!(
            "maximum context length is 8192 tokens{}",
            " ".repeat(READ.text)
        );
        let thrown = json!({"error": {"message": long}, "status": 400});
        assert_eq!(overflow_of(&thrown), classify(&describe(&thrown)));
        assert_eq!(overflow_of(&thrown).and_then(|o| o.limit), Some(8192));
        assert!(overflow_of(&json!({"status": 429, "message": long})).is_none());
        assert!(overflow_of(&json!("a string")).is_none());
    }

    #[test]
    fn a_thrown_value_is_read_within_the_bounds() {
        let long = "x".repeat(READ.text + 10);
        let thrown = json!({"zeta": 1, "message": long, "status": 413, "gone": null,
            "list": (0..100).collect::<Vec<_>>()});
        let read = describe(&thrown);
        // the error fields first, then the other own keys; null fields left out
        let keys: Vec<&str> = read
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ["message", "status", "zeta", "list"]);
        assert_eq!(read["message"].as_str().unwrap().len(), READ.text);
        assert_eq!(read["list"].as_array().unwrap().len(), READ.items);
        let mut deep = json!("bottom");
        for _ in 0..READ.depth + 1 {
            deep = json!({ "cause": deep });
        }
        let mut read = &describe(&deep);
        for _ in 0..READ.depth {
            read = &read["cause"];
        }
        assert_eq!(read, &json!({ "cause": null }));
        let wide = json!([(0..20)
            .map(|_| (0..20).collect::<Vec<_>>())
            .collect::<Vec<_>>()]);
        let read = describe(&wide);
        let rows = read[0].as_array().unwrap().iter();
        let numbers = rows.flat_map(|r| r.as_array().into_iter().flatten());
        let count = numbers.filter(|v| v.is_number()).count();
        // 422 values given: those past the node bound read as null
        assert!((250..READ.nodes).contains(&count), "{count} numbers read");
    }
}
