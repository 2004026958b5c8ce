//! Truncating oversized tool outputs in the kept tail, the last resort before keeping nothing.

use crate::core::message::{Message, Part};

/// Cut one tool result's text output down to about `keep_tokens`, with a marker in the middle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Truncation {
    /// Index of the message.
    pub message: usize,
    /// Index of the tool-result part in the message.
    pub part: usize,
    /// Tokens of the part before.
    pub tokens_before: usize,
    /// Tokens kept.
    pub keep_tokens: usize,
}

impl Truncation {
    /// Tokens this truncation frees.
    pub fn tokens_freed(&self) -> usize {
        self.tokens_before.saturating_sub(self.keep_tokens)
    }
}

/// Never truncate an output below this many tokens.
pub const MIN_KEEP_TOKENS: usize = 256;

/// Chooses truncations among the tool results of `kept` messages, largest first, until `excess`
/// tokens are freed. Returns the truncations and the tokens still missing (0 when it fits).
pub fn plan_truncations(
    messages: &[Message],
    kept: &[usize],
    part_cost: &dyn Fn(&Part) -> usize,
    excess: usize,
) -> (Vec<Truncation>, usize) {
    let mut outputs: Vec<(usize, usize, usize)> = kept
        .iter()
        .filter_map(|&i| messages.get(i).map(|m| (i, m)))
        .flat_map(|(i, m)| {
            m.parts
                .iter()
                .enumerate()
                .filter(|(_, p)| p.is_tool_result())
                .map(move |(j, p)| (i, j, part_cost(p)))
        })
        .filter(|&(_, _, cost)| cost > MIN_KEEP_TOKENS)
        .collect();
    outputs.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(&b.0)));
    let mut missing = excess;
    let mut chosen = Vec::new();
    for (message, part, cost) in outputs {
        if missing == 0 {
            break;
        }
        let keep_tokens = cost.saturating_sub(missing).max(MIN_KEEP_TOKENS);
        let truncation = Truncation {
            message,
            part,
            tokens_before: cost,
            keep_tokens,
        };
        missing = missing.saturating_sub(truncation.tokens_freed());
        chosen.push(truncation);
    }
    (chosen, missing)
}

/// Text reduced to about `keep / total` of its characters: two thirds from the head, one third
/// from the tail, and a marker saying how much was cut. Cuts on character boundaries.
pub fn truncate_text(text: &str, total_tokens: usize, keep_tokens: usize) -> String {
    let chars = text.chars().count();
    if total_tokens == 0 || keep_tokens >= total_tokens {
        return text.to_string();
    }
    let keep_chars = chars.saturating_mul(keep_tokens) / total_tokens;
    let head = keep_chars * 2 / 3;
    let tail = keep_chars - head;
    let cut = total_tokens - keep_tokens;
    let head_text: String = text.chars().take(head).collect();
    let tail_text: String = text.chars().skip(chars.saturating_sub(tail)).collect();
    format!("{head_text}\n[… about {cut} tokens of this tool output were truncated to fit the context window …]\n{tail_text}")
}

/// Applies a truncation to a part: the text of a tool result's output becomes one truncated text.
pub fn truncate_part(part: &Part, truncation: &Truncation) -> Part {
    match part {
        Part::ToolResult {
            id,
            name,
            output,
            is_error,
        } => {
            let text: Vec<String> = output
                .iter()
                .filter_map(|p| match p {
                    Part::Text { text } => Some(text.clone()),
                    _ => None,
                })
                .collect();
            let joined = text.join("\n");
            Part::ToolResult {
                id: id.clone(),
                name: name.clone(),
                output: vec![Part::text(truncate_text(
                    &joined,
                    truncation.tokens_before,
                    truncation.keep_tokens,
                ))],
                is_error: *is_error,
            }
        }
        other => other.clone(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn truncated_text_keeps_head_and_tail_with_a_marker() {
        let text: String = (0..1000)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        let out = truncate_text(&text, 1000, 100);
        assert!(out.starts_with(&text[..66]));
        assert!(out.ends_with(&text[1000 - 34..]));
        assert!(out.contains("about 900 tokens"));
        assert!(out.chars().count() < 200);
        assert_eq!(truncate_text("short", 10, 10), "short");
        // Multi-byte text never splits a character.
        let cjk = "上下文压缩".repeat(100);
        assert!(truncate_text(&cjk, 500, 50).contains("truncated"));
    }
}
