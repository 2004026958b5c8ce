//! Pricing parts and messages.

use std::hash::{Hash, Hasher};

use rustc_hash::FxHasher;
use serde_json::Value;

use super::{Counter, Estimate, Factors, ImageRule, Kind, KindTokens};
use crate::core::message::{ImageSize, Message, Part, Role};

/// Default tokens of a message's role and framing (`<|start|>assistant<|message|>...<|end|>`).
pub const DEFAULT_MESSAGE_OVERHEAD: usize = 4;
/// Default tokens of a tool call's framing beyond its name and input (id, block markers).
pub const DEFAULT_TOOL_CALL_OVERHEAD: usize = 8;
/// Default tokens of a tool result's framing beyond its output (id, block markers).
pub const DEFAULT_TOOL_RESULT_OVERHEAD: usize = 8;
/// Default tokens of a file without inline text (a PDF, audio...): about one PDF page.
pub const DEFAULT_FILE_TOKENS: usize = 1600;

/// Prices messages. Deterministic: the same configuration gives the same numbers for the same
/// message, whether or not a cache is used. Never panics.
///
/// What counts where:
/// - text parts: [`Kind::Text`], or [`Kind::System`] in a system message (summaries count like
///   any other text of their role);
/// - reasoning (also redacted, whose opaque payload is counted as text): [`Kind::Reasoning`];
/// - tool calls: the name and the input serialized as compact JSON (a string input as itself),
///   plus `tool_call_overhead`: [`Kind::ToolCalls`];
/// - tool results: their text output plus `tool_result_overhead`: [`Kind::ToolResults`]; images
///   and files inside a result: [`Kind::Images`];
/// - images by `image_rule`; files: their inline text when they have it, an `image/*` file as an
///   image of unknown size, any other file `file_tokens`: all [`Kind::Images`];
/// - unknown blocks ([`Part::Other`]): their JSON, as tool results when the block's type
///   contains `result` or `output`, tool calls when it contains `tool_use` or `call`, text
///   otherwise.
///
/// Each message adds `message_overhead` to its main kind: the kind holding most of its tokens
/// (ties broken in the order of [`Kind::ALL`]); an empty message adds it to the kind of its role
/// (system → system, tool → tool results, others → text).
#[derive(Clone, Debug)]
pub struct Estimator {
    /// Counts text.
    pub counter: Counter,
    /// Prices images.
    pub image_rule: ImageRule,
    /// Tokens per message for its role and framing.
    pub message_overhead: usize,
    /// Tokens per tool call beyond its name and input.
    pub tool_call_overhead: usize,
    /// Tokens per tool result beyond its output.
    pub tool_result_overhead: usize,
    /// Tokens of a file that has no inline text and is not an image.
    pub file_tokens: usize,
    /// What each part's content is multiplied by, per kind (the model's [`super::Profile`]);
    /// the message, tool call and tool result overheads are not scaled.
    pub factors: Factors,
}

impl Default for Estimator {
    fn default() -> Self {
        Estimator::new(Counter::Heuristic)
    }
}

impl Estimator {
    /// An estimator with `counter` and the default rule and overheads.
    pub fn new(counter: Counter) -> Self {
        Estimator {
            counter,
            image_rule: ImageRule::default(),
            message_overhead: DEFAULT_MESSAGE_OVERHEAD,
            tool_call_overhead: DEFAULT_TOOL_CALL_OVERHEAD,
            tool_result_overhead: DEFAULT_TOOL_RESULT_OVERHEAD,
            file_tokens: DEFAULT_FILE_TOKENS,
            factors: Factors::ONE,
        }
    }

    /// The same estimator aiming at another provider's count (see [`super::Profile`]).
    pub fn with_factors(mut self, factors: Factors) -> Self {
        self.factors = factors;
        self
    }

    /// The same estimator with another image rule.
    pub fn with_image_rule(mut self, rule: ImageRule) -> Self {
        self.image_rule = rule;
        self
    }

    /// Tokens of one part, without the message overhead. `part_tokens(p)` equals the total of
    /// the part's share of [`Estimator::estimate_message`], so replacing a part by another
    /// changes the message's estimate by the difference of their `part_tokens` (the main kind
    /// aside, which only moves the overhead between kinds).
    pub fn part_tokens(&self, part: &Part) -> usize {
        self.part_kinds(part, Role::User).total()
    }

    /// Tokens of one part by kind; `role` decides whether text is [`Kind::Text`] or
    /// [`Kind::System`]. The content is scaled by [`Estimator::factors`]; the fixed framing of
    /// tool calls and results (`tool_call_overhead`, `tool_result_overhead`) is not.
    pub fn part_kinds(&self, part: &Part, role: Role) -> KindTokens {
        let (content, framing) = self.base_part_kinds(part, role);
        self.factors.apply(&content) + framing
    }

    /// [`Estimator::part_kinds`] before scaling, as (content, fixed framing).
    fn base_part_kinds(&self, part: &Part, role: Role) -> (KindTokens, KindTokens) {
        let content = match part {
            Part::Text { text } => {
                let kind = if role == Role::System {
                    Kind::System
                } else {
                    Kind::Text
                };
                KindTokens::of(kind, self.counter.count(text))
            }
            Part::Reasoning { text, .. } => {
                KindTokens::of(Kind::Reasoning, self.counter.count(text))
            }
            Part::ToolCall { name, input, .. } => {
                let tokens = self
                    .counter
                    .count(name)
                    .saturating_add(self.json_tokens(input));
                return (
                    KindTokens::of(Kind::ToolCalls, tokens),
                    KindTokens::of(Kind::ToolCalls, self.tool_call_overhead),
                );
            }
            Part::ToolResult { output, .. } => {
                let mut content = KindTokens::default();
                let mut framing = KindTokens::of(Kind::ToolResults, self.tool_result_overhead);
                for inner in output {
                    let (c, f) = self.base_part_kinds(inner, Role::Tool);
                    for (into, inner) in [(&mut content, c), (&mut framing, f)] {
                        into.add_kind(Kind::Images, inner.images);
                        into.add_kind(
                            Kind::ToolResults,
                            inner.total().saturating_sub(inner.images),
                        );
                    }
                }
                return (content, framing);
            }
            Part::Image {
                width,
                height,
                detail,
                ..
            } => {
                let size = match (width, height) {
                    (Some(width), Some(height)) => Some(ImageSize {
                        width: *width,
                        height: *height,
                    }),
                    _ => None,
                };
                KindTokens::of(
                    Kind::Images,
                    self.image_rule.tokens(size, detail.as_deref()),
                )
            }
            Part::File {
                text, media_type, ..
            } => {
                let tokens = match text {
                    Some(text) => self.counter.count(text),
                    None if media_type
                        .as_deref()
                        .is_some_and(|m| m.to_ascii_lowercase().starts_with("image/")) =>
                    {
                        self.image_rule.default_tokens()
                    }
                    None => self.file_tokens,
                };
                KindTokens::of(Kind::Images, tokens)
            }
            Part::Other { kind, value } => {
                let k = kind.to_ascii_lowercase();
                let kind = if k.contains("result") || k.contains("output") {
                    Kind::ToolResults
                } else if k.contains("tool_use") || k.contains("call") {
                    Kind::ToolCalls
                } else if role == Role::System {
                    Kind::System
                } else {
                    Kind::Text
                };
                KindTokens::of(kind, self.json_tokens(value))
            }
        };
        (content, KindTokens::default())
    }

    /// Tokens of one message by kind, the message overhead included (see the type's doc).
    pub fn estimate_message(&self, message: &Message) -> KindTokens {
        let mut k: KindTokens = message
            .parts
            .iter()
            .map(|p| self.part_kinds(p, message.role))
            .sum();
        let main = k.dominant().unwrap_or(match message.role {
            Role::System => Kind::System,
            Role::Tool => Kind::ToolResults,
            Role::User | Role::Assistant => Kind::Text,
        });
        k.add_kind(main, self.message_overhead);
        k
    }

    /// Tokens of every message, by message and by kind (see [`Estimate`] for the guarantees).
    pub fn estimate_all(&self, messages: &[Message]) -> Estimate {
        Estimate::from_kinds(messages.iter().map(|m| self.estimate_message(m)).collect())
    }

    /// Tokens of every message, summed.
    pub fn total(&self, messages: &[Message]) -> usize {
        messages.iter().fold(0usize, |acc, m| {
            acc.saturating_add(self.estimate_message(m).total())
        })
    }

    /// A hash of everything that changes the numbers (the counter's encoding, the image rule,
    /// the overheads). Caches use it to drop results of another configuration.
    pub fn fingerprint(&self) -> u64 {
        let mut h = FxHasher::default();
        self.counter.identity().hash(&mut h);
        self.image_rule.hash(&mut h);
        self.message_overhead.hash(&mut h);
        self.tool_call_overhead.hash(&mut h);
        self.tool_result_overhead.hash(&mut h);
        self.file_tokens.hash(&mut h);
        self.factors.bits().hash(&mut h);
        h.finish()
    }

    /// Tokens of a JSON value as compact JSON; a string counts as itself.
    fn json_tokens(&self, value: &Value) -> usize {
        match value {
            Value::String(s) => self.counter.count(s),
            Value::Null => 0,
            other => self.counter.count(&other.to_string()),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::core::message::ImageSource;
    use crate::core::tokens::heuristic::estimate;
    use serde_json::json;

    fn est() -> Estimator {
        Estimator::default()
    }

    #[test]
    fn text_and_system_kinds_with_overhead() {
        let e = est();
        let user = Message::text(Role::User, "hello there, how are you?");
        let k = e.estimate_message(&user);
        assert_eq!(k.text, estimate("hello there, how are you?") + 4);
        assert_eq!(k.total(), k.text);
        let sys = Message::text(Role::System, "You are helpful.");
        let k = e.estimate_message(&sys);
        assert_eq!(k.system, estimate("You are helpful.") + 4);
        assert_eq!(k.text, 0);
        // summaries count like other text of their role
        let mut summary = Message::text(Role::User, "hello there, how are you?");
        summary.summary = true;
        assert_eq!(e.estimate_message(&summary), e.estimate_message(&user));
    }

    #[test]
    fn tool_call_counts_name_and_compact_json() {
        let e = est();
        let input = json!({"path": "/src/main.rs", "limit": 20});
        let m = Message::new(
            Role::Assistant,
            vec![Part::ToolCall {
                id: "call_1".into(),
                name: "read_file".into(),
                input: input.clone(),
            }],
        );
        let k = e.estimate_message(&m);
        let expected = estimate("read_file") + estimate(&input.to_string()) + 8;
        assert_eq!(k.tool_calls, expected + 4);
        assert_eq!(k.total(), expected + 4);
        // a string input counts as itself, not quoted
        let p = Part::ToolCall {
            id: "c".into(),
            name: "bash".into(),
            input: json!("ls -la"),
        };
        assert_eq!(e.part_tokens(&p), estimate("bash") + estimate("ls -la") + 8);
    }

    #[test]
    fn tool_result_text_and_images_split() {
        let e = est();
        let result = Part::ToolResult {
            id: "c".into(),
            name: Some("screenshot".into()),
            output: vec![
                Part::text("captured"),
                Part::Image {
                    media_type: Some("image/png".into()),
                    source: ImageSource::Base64 { len: 5_000_000 },
                    width: Some(1000),
                    height: Some(1000),
                    detail: None,
                },
            ],
            is_error: false,
        };
        let k = e.part_kinds(&result, Role::Tool);
        assert_eq!(k.images, 1334);
        assert_eq!(k.tool_results, estimate("captured") + 8);
        assert_eq!(e.part_tokens(&result), k.total());
        let m = Message::new(Role::Tool, vec![result]);
        let mk = e.estimate_message(&m);
        // the image dominates: the overhead goes to images
        assert_eq!(mk.images, 1334 + 4);
    }

    #[test]
    fn factors_scale_content_not_overheads() {
        let f = Factors::uniform(2.0);
        let e = est().with_factors(f);
        let call = Part::ToolCall {
            id: "c".into(),
            name: "bash".into(),
            input: json!("ls -la"),
        };
        let content = estimate("bash") + estimate("ls -la");
        assert_eq!(e.part_tokens(&call), 2 * content + 8);
        let result = Part::ToolResult {
            id: "c".into(),
            name: None,
            output: vec![Part::text("file.txt")],
            is_error: false,
        };
        assert_eq!(e.part_tokens(&result), 2 * estimate("file.txt") + 8);
        let m = Message::new(Role::Tool, vec![result]);
        assert_eq!(
            e.estimate_message(&m).tool_results,
            2 * estimate("file.txt") + 8 + 4
        );
    }

    #[test]
    fn base64_length_is_never_the_price() {
        let e = est().with_image_rule(ImageRule::OpenAi);
        let img = Part::Image {
            media_type: None,
            source: ImageSource::Base64 { len: 10_000_000 },
            width: None,
            height: None,
            detail: Some("low".into()),
        };
        assert_eq!(e.part_tokens(&img), 85);
    }

    #[test]
    fn files_and_other_blocks() {
        let e = est();
        let doc = Part::File {
            media_type: Some("text/plain".into()),
            name: None,
            source: ImageSource::Unknown,
            text: Some("a small document".into()),
        };
        assert_eq!(
            e.part_kinds(&doc, Role::User).images,
            estimate("a small document")
        );
        let pdf = Part::File {
            media_type: Some("application/pdf".into()),
            name: None,
            source: ImageSource::FileId("f".into()),
            text: None,
        };
        assert_eq!(e.part_tokens(&pdf), DEFAULT_FILE_TOKENS);
        let img_file = Part::File {
            media_type: Some("image/PNG".into()),
            name: None,
            source: ImageSource::Unknown,
            text: None,
        };
        assert_eq!(e.part_tokens(&img_file), 1600);
        let value = json!({"type": "web_search_tool_result", "content": [1, 2]});
        let other = Part::Other {
            kind: "web_search_tool_result".into(),
            value: value.clone(),
        };
        let k = e.part_kinds(&other, Role::Assistant);
        assert_eq!(k.tool_results, estimate(&value.to_string()));
        let call = Part::Other {
            kind: "server_tool_use".into(),
            value: json!({"x": 1}),
        };
        assert!(e.part_kinds(&call, Role::Assistant).tool_calls > 0);
    }

    #[test]
    fn reasoning_and_empty_messages() {
        let e = est();
        let m = Message::new(
            Role::Assistant,
            vec![
                Part::Reasoning {
                    text: "Let me think about the problem carefully first.".into(),
                    redacted: false,
                },
                Part::text("ok"),
            ],
        );
        let k = e.estimate_message(&m);
        assert_eq!(
            k.reasoning,
            estimate("Let me think about the problem carefully first.") + 4
        );
        assert_eq!(k.text, estimate("ok"));
        let empty_tool = Message::new(Role::Tool, vec![]);
        assert_eq!(e.estimate_message(&empty_tool).tool_results, 4);
        let empty_sys = Message::new(Role::System, vec![]);
        assert_eq!(e.estimate_message(&empty_sys).system, 4);
    }

    #[test]
    fn estimate_all_is_consistent() {
        let e = est();
        let msgs = vec![
            Message::text(Role::System, "sys"),
            Message::text(Role::User, "do it"),
            Message::new(
                Role::Assistant,
                vec![Part::ToolCall {
                    id: "1".into(),
                    name: "ls".into(),
                    input: json!({}),
                }],
            ),
        ];
        let all = e.estimate_all(&msgs);
        assert_eq!(all.per_message.len(), 3);
        assert_eq!(all.total, all.per_message.iter().sum::<usize>());
        assert_eq!(all.total, all.by_kind.total());
        assert_eq!(all.total, e.total(&msgs));
        assert_eq!(all.per_message[0], all.by_kind.system);
    }

    #[test]
    fn fingerprint_changes_with_configuration() {
        let a = est();
        let b = est().with_image_rule(ImageRule::Gemini);
        let mut c = est();
        c.message_overhead = 5;
        let d = est().with_factors(crate::core::estimate::Profile::ANTHROPIC.factors);
        assert_eq!(a.fingerprint(), est().fingerprint());
        assert_ne!(a.fingerprint(), b.fingerprint());
        assert_ne!(a.fingerprint(), d.fingerprint());
        assert_ne!(a.fingerprint(), c.fingerprint());
    }
}
