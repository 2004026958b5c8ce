//! Calibration from the provider's reported usage (pi's rule, seed 000): the context of a
//! response is `input + output + cacheRead + cacheWrite` tokens; only the messages after that
//! response are estimated.

use serde_json::Value;

use crate::core::message::{Message, Role};

/// A provider's reported usage of one response, normalized so that the four numbers are
/// disjoint (pi's and Anthropic's convention: `input` excludes cached tokens).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Usage {
    /// Input tokens not read from or written to the cache.
    pub input: u64,
    /// Output tokens of the response (its text, reasoning and tool calls).
    pub output: u64,
    /// Input tokens read from the prompt cache.
    pub cache_read: u64,
    /// Input tokens written to the prompt cache.
    pub cache_write: u64,
}

impl Usage {
    /// `input + output + cache_read + cache_write` (saturating): the size of the context the
    /// response was given plus the response itself.
    pub fn total(&self) -> u64 {
        self.input
            .saturating_add(self.output)
            .saturating_add(self.cache_read)
            .saturating_add(self.cache_write)
    }

    /// `input + cache_read + cache_write` (saturating): the prompt the response was given, what
    /// self-calibration compares between two responses.
    pub fn prompt(&self) -> usize {
        let p = self
            .input
            .saturating_add(self.cache_read)
            .saturating_add(self.cache_write);
        usize::try_from(p).unwrap_or(usize::MAX)
    }

    /// [`Usage::from_value`], strictly: `INVALID_OPTIONS` at `path` when the value is not an
    /// object with at least one known count, or at `path.key` when a known count is not a whole
    /// number of tokens between 0 and 2^53 (a string, a negative or fractional number, 1e300).
    pub fn parse(value: &Value, path: &str) -> crate::core::error::Result<Usage> {
        use crate::core::error::Error;
        let obj = value.as_object().ok_or_else(|| {
            Error::invalid_option(path, "usage must be an object of token counts")
        })?;
        let check = |v: &Value, at: String| match v {
            Value::Null => Ok(()),
            v if v.as_u64().is_some_and(|n| n <= MAX_COUNT) => Ok(()),
            v => {
                let key = at.rsplit('.').next().unwrap_or_default().to_string();
                Err(Error::invalid_option(
                    at,
                    format!("{key} must be a whole number of tokens (0 to 2^53), got {v}"),
                ))
            }
        };
        for key in COUNT_KEYS {
            let Some(v) = obj.get(key) else { continue };
            match (v, NESTED.iter().find(|(k, _)| *k == key)) {
                (Value::Object(inner), Some((_, fields))) => {
                    for field in *fields {
                        if let Some(n) = inner.get(*field) {
                            check(n, format!("{path}.{key}.{field}"))?;
                        }
                    }
                }
                (v, _) => check(v, format!("{path}.{key}"))?,
            }
        }
        for (key, fields) in DETAILS {
            if let Some(Value::Object(inner)) = obj.get(key) {
                for field in fields {
                    if let Some(n) = inner.get(*field) {
                        check(n, format!("{path}.{key}.{field}"))?;
                    }
                }
            }
        }
        Usage::from_value(value).ok_or_else(|| {
            Error::invalid_option(
                path,
                "usage must hold token counts (input/output, OpenAI's prompt_tokens/completion_tokens, \
                 Anthropic's input_tokens/output_tokens or the AI SDK's inputTokens/outputTokens)",
            )
        })
    }

    /// Reads a usage object of a known shape, `None` when it has none of the known fields:
    /// - pi / this package: `{ input, output, cacheRead, cacheWrite }`;
    /// - Anthropic: `{ input_tokens, output_tokens, cache_read_input_tokens,
    ///   cache_creation_input_tokens }`;
    /// - OpenAI: `{ prompt_tokens, completion_tokens, prompt_tokens_details: { cached_tokens } }`
    ///   (cached tokens are part of `prompt_tokens`);
    /// - AI SDK 5: `{ inputTokens, outputTokens, cachedInputTokens }` (a part of `inputTokens`);
    /// - AI SDK 6 (`LanguageModelUsage`): `{ inputTokens, outputTokens, inputTokenDetails:
    ///   { noCacheTokens, cacheReadTokens, cacheWriteTokens } }`;
    /// - the AI SDK's provider usage (`LanguageModelV3Usage`): `{ inputTokens: { total, noCache,
    ///   cacheRead, cacheWrite }, outputTokens: { total } }`.
    ///
    /// The four numbers are made disjoint: `input` is what remains of the reported input once the
    /// cached tokens are taken out. Missing or non-numeric fields count 0.
    pub fn from_value(value: &Value) -> Option<Usage> {
        let obj = value.as_object()?;
        let num = |v: Option<&Value>| v.and_then(Value::as_u64);
        let pick = |keys: &[&str]| keys.iter().find_map(|k| num(obj.get(*k)));
        let inner = |key: &str, field: &str| num(obj.get(key).and_then(|v| v.get(field)));
        // Input given net of the cache (pi, Anthropic) or including it (OpenAI, the AI SDK).
        let net_input = pick(&["input", "input_tokens"]);
        let gross_input = pick(&["prompt_tokens", "inputTokens"]).or(inner("inputTokens", "total"));
        let output = pick(&[
            "output",
            "output_tokens",
            "completion_tokens",
            "outputTokens",
        ])
        .or(inner("outputTokens", "total"));
        let cache_read = pick(&["cacheRead", "cache_read_input_tokens", "cachedInputTokens"])
            .or(inner("inputTokens", "cacheRead"))
            .or(inner("inputTokenDetails", "cacheReadTokens"))
            .or(inner("prompt_tokens_details", "cached_tokens"));
        let cache_write = pick(&["cacheWrite", "cache_creation_input_tokens"])
            .or(inner("inputTokens", "cacheWrite"))
            .or(inner("inputTokenDetails", "cacheWriteTokens"));
        if net_input.is_none()
            && gross_input.is_none()
            && output.is_none()
            && cache_read.is_none()
            && cache_write.is_none()
        {
            return None;
        }
        let cache_read = cache_read.unwrap_or(0);
        let cache_write = cache_write.unwrap_or(0);
        let input = match (net_input, gross_input) {
            (Some(n), _) => n,
            (None, Some(g)) => g.saturating_sub(cache_read).saturating_sub(cache_write),
            (None, None) => 0,
        };
        Some(Usage {
            input,
            output: output.unwrap_or(0),
            cache_read,
            cache_write,
        })
    }
}

/// The largest token count accepted (2^53, the largest exact integer of a JS number).
const MAX_COUNT: u64 = 1 << 53;

/// The keys that hold a count (or, for the AI SDK's provider usage, an object of counts).
const COUNT_KEYS: [&str; 13] = [
    "input",
    "input_tokens",
    "prompt_tokens",
    "inputTokens",
    "output",
    "output_tokens",
    "completion_tokens",
    "outputTokens",
    "cacheRead",
    "cache_read_input_tokens",
    "cachedInputTokens",
    "cacheWrite",
    "cache_creation_input_tokens",
];

/// Count keys that may hold an object of counts instead (`LanguageModelV3Usage`).
const NESTED: [(&str, &[&str]); 2] = [
    (
        "inputTokens",
        &["total", "noCache", "cacheRead", "cacheWrite"],
    ),
    ("outputTokens", &["total", "text", "reasoning"]),
];

/// Objects of details whose counts are read.
const DETAILS: [(&str, &[&str]); 2] = [
    (
        "inputTokenDetails",
        &["cacheReadTokens", "cacheWriteTokens"],
    ),
    ("prompt_tokens_details", &["cached_tokens"]),
];

/// The result of calibrating an estimate with a usage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Calibration {
    /// The calibrated count of the whole context.
    pub total: usize,
    /// The index of the message the usage was attributed to (the last assistant message), or
    /// `None` when there is none and `total` is the plain estimate.
    pub anchor: Option<usize>,
    /// The reported part: `usage.total()` (0 without an anchor).
    pub measured: usize,
    /// The estimated part: the messages after the anchor (all messages without one).
    pub estimated: usize,
}

/// Calibrates with `usage`, attributed to the LAST assistant message of `messages` (summaries
/// included: the usage must be that of a response to the messages as given). Everything up to
/// and including that message is counted as `usage.total()` (which also covers the system
/// prompt and tool definitions the provider saw); the messages after it are counted with
/// `per_message` (index `i` prices `messages[i]`; a missing entry counts 0). Without an assistant
/// message the result is the plain sum of `per_message`. Saturating, never panics.
pub fn calibrate(messages: &[Message], per_message: &[usize], usage: &Usage) -> Calibration {
    let sum = |from: usize| {
        per_message
            .iter()
            .take(messages.len())
            .skip(from)
            .fold(0usize, |acc, &n| acc.saturating_add(n))
    };
    match messages.iter().rposition(|m| m.role == Role::Assistant) {
        Some(anchor) => {
            let measured = usize::try_from(usage.total()).unwrap_or(usize::MAX);
            let estimated = sum(anchor + 1);
            Calibration {
                total: measured.saturating_add(estimated),
                anchor: Some(anchor),
                measured,
                estimated,
            }
        }
        None => {
            let estimated = sum(0);
            Calibration {
                total: estimated,
                anchor: None,
                measured: 0,
                estimated,
            }
        }
    }
}

/// [`calibrate`]`(..).total`: the usage for everything up to the last assistant message plus the
/// estimates of the messages after it.
pub fn calibrated_total(messages: &[Message], per_message: &[usize], usage: &Usage) -> usize {
    calibrate(messages, per_message, usage).total
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::expect_used)]
mod tests {
    #[test]
    fn every_provider_shape_reads_to_the_same_total() {
        use serde_json::json;
        let shapes = [
            json!({ "input": 700, "output": 100, "cacheRead": 200, "cacheWrite": 0 }),
            json!({ "input_tokens": 700, "output_tokens": 100, "cache_read_input_tokens": 200 }),
            json!({ "prompt_tokens": 900, "completion_tokens": 100,
                    "prompt_tokens_details": { "cached_tokens": 200 } }),
            json!({ "inputTokens": 900, "outputTokens": 100, "cachedInputTokens": 200 }),
            json!({ "inputTokens": 900, "outputTokens": 100, "totalTokens": 1000,
                    "inputTokenDetails": { "noCacheTokens": 700, "cacheReadTokens": 200 } }),
            json!({ "inputTokens": { "total": 900, "noCache": 700, "cacheRead": 200 },
                    "outputTokens": { "total": 100, "text": 100 } }),
        ];
        for shape in shapes {
            let u = Usage::parse(&shape, "usage").expect("accepted");
            assert_eq!(u.total(), 1000, "{shape}");
            assert_eq!((u.input, u.cache_read), (700, 200), "{shape}");
        }
        let bad = json!({ "inputTokens": { "total": -1 } });
        let e = Usage::parse(&bad, "usage").expect_err("refused");
        assert_eq!(e.path.as_deref(), Some("usage.inputTokens.total"));
        let bad = json!({ "inputTokenDetails": { "cacheReadTokens": "5" }, "inputTokens": 9 });
        let e = Usage::parse(&bad, "usage").expect_err("refused");
        assert_eq!(
            e.path.as_deref(),
            Some("usage.inputTokenDetails.cacheReadTokens")
        );
    }

    use super::*;
    use serde_json::json;

    fn usage() -> Usage {
        Usage {
            input: 10,
            output: 200,
            cache_read: 1000,
            cache_write: 50,
        }
    }

    #[test]
    fn attributed_to_the_last_assistant_message() {
        let msgs = vec![
            Message::text(Role::User, "a"),
            Message::text(Role::Assistant, "b"),
            Message::text(Role::User, "c"),
            Message::text(Role::Assistant, "d"),
            Message::text(Role::Tool, "e"),
            Message::text(Role::User, "f"),
        ];
        let per = [1, 2, 3, 4, 5, 6];
        let c = calibrate(&msgs, &per, &usage());
        assert_eq!(c.anchor, Some(3));
        assert_eq!(c.measured, 1260);
        assert_eq!(c.estimated, 11);
        assert_eq!(c.total, 1271);
        assert_eq!(calibrated_total(&msgs, &per, &usage()), 1271);
        // ending with the assistant message: the usage alone
        assert_eq!(calibrated_total(&msgs[..4], &per[..4], &usage()), 1260);
    }

    #[test]
    fn without_assistant_message_falls_back_to_the_estimate() {
        let msgs = vec![
            Message::text(Role::System, "s"),
            Message::text(Role::User, "u"),
        ];
        let c = calibrate(&msgs, &[7, 8], &usage());
        assert_eq!((c.total, c.anchor, c.measured), (15, None, 0));
        assert_eq!(calibrated_total(&[], &[], &usage()), 0);
        // short per-message slices count missing entries as 0
        assert_eq!(calibrated_total(&msgs, &[7], &usage()), 7);
    }

    #[test]
    fn usage_shapes() {
        let pi = json!({"input": 10, "output": 215, "cacheRead": 0, "cacheWrite": 167753, "totalTokens": 1});
        assert_eq!(Usage::from_value(&pi).map(|u| u.total()), Some(167_978));
        let anthropic = json!({"input_tokens": 5, "output_tokens": 6, "cache_read_input_tokens": 7, "cache_creation_input_tokens": 8});
        assert_eq!(Usage::from_value(&anthropic).map(|u| u.total()), Some(26));
        let openai = json!({"prompt_tokens": 100, "completion_tokens": 20, "prompt_tokens_details": {"cached_tokens": 80}});
        assert_eq!(Usage::from_value(&openai).map(|u| u.total()), Some(120));
        let ai_sdk = json!({"inputTokens": 100, "outputTokens": 3, "cachedInputTokens": 50});
        assert_eq!(Usage::from_value(&ai_sdk).map(|u| u.total()), Some(103));
        assert_eq!(Usage::from_value(&json!({"foo": 1})), None);
        assert_eq!(Usage::from_value(&json!(3)), None);
        let max = Usage {
            input: u64::MAX,
            output: 1,
            ..Usage::default()
        };
        assert_eq!(max.total(), u64::MAX);
    }
}
