//! The extractive summary: a deterministic summary built without a model, from the earlier summary,
//! the digest of the summarized messages (user requests, files, commands, errors, pending tasks) and the last thing
//! the assistant said in them. It is what `summarize: "extractive"` writes, and what `maybeCompact`
//! falls back to when the summarizer fails, so that the context still shrinks.
//!
//! Layout (a section is left out when it has nothing):
//!
//! ```text
//! (Extractive summary: written without a model from the messages it replaces.)
//!
//! ## Earlier summary
//! ## User requests
//! ## Files modified
//! ## Files read
//! ## Commands run
//! ## Errors
//! ## Pending tasks
//! ## Last assistant message
//! ```
//!
//! Fitting: while the text exceeds `max_tokens`, the longest section is cut to half its length
//! (items are kept whole where possible; the newest items of lists are kept); past that the
//! whole text is cut on a character boundary.

use crate::core::message::{Message, Role};

use super::digest::Digest;
use super::transcript::truncate_plain;

/// The first line of every extractive summary.
pub const HEADER: &str =
    "(Extractive summary: written without a model from the messages it replaces.)";

/// Most characters of the last assistant message.
const LAST_MESSAGE_CHARS: usize = 1_500;

/// What an extractive summary is built from.
pub struct Input<'a> {
    /// All messages of the compaction.
    pub messages: &'a [Message],
    /// The messages the summary replaces.
    pub indices: &'a [usize],
    /// The earlier summary folded in.
    pub previous_summary: Option<&'a str>,
    /// The digest of the replaced messages (already limited to allowed tools).
    pub digest: &'a Digest,
    /// The token budget.
    pub max_tokens: usize,
    /// Counts the tokens of a text.
    pub estimate: &'a dyn Fn(&str) -> usize,
}

struct Section {
    title: &'static str,
    /// Either a block of text or list items (newest last).
    text: Option<String>,
    items: Vec<String>,
}

impl Section {
    fn render(&self, out: &mut String) {
        if self.text.as_deref().is_none_or(str::is_empty) && self.items.is_empty() {
            return;
        }
        out.push_str("\n\n## ");
        out.push_str(self.title);
        if let Some(text) = &self.text {
            out.push('\n');
            out.push_str(text);
        }
        for item in &self.items {
            out.push_str("\n- ");
            out.push_str(item);
        }
    }

    fn size(&self) -> usize {
        self.text.as_ref().map_or(0, |t| t.chars().count())
            + self
                .items
                .iter()
                .map(|i| i.chars().count() + 3)
                .sum::<usize>()
    }

    /// Halves the section: a text is cut to half its characters, a list loses its older half.
    fn halve(&mut self) {
        if let Some(text) = &mut self.text {
            let keep = text.chars().count() / 2;
            *text = truncate_plain(text, keep);
        }
        let drop = self.items.len().div_ceil(2);
        self.items.drain(..drop);
    }
}

/// The extractive summary of `input` (see the module documentation).
pub fn summary(input: &Input<'_>) -> String {
    let d = input.digest;
    let last_assistant = input
        .indices
        .iter()
        .rev()
        .filter_map(|&i| input.messages.get(i))
        .filter(|m| m.role == Role::Assistant && !m.summary)
        .map(Message::plain_text)
        .find(|t| !t.trim().is_empty())
        .map(|t| truncate_plain(t.trim(), LAST_MESSAGE_CHARS));
    let mut sections = vec![
        Section {
            title: "Earlier summary",
            text: input.previous_summary.map(|s| s.trim().to_string()),
            items: Vec::new(),
        },
        list("User requests", &d.user_requests),
        list("Files modified", &d.files_modified),
        list("Files read", &d.files_read),
        list("Commands run", &d.commands),
        list("Errors", &d.errors),
        list("Pending tasks", &d.pending_tasks),
        Section {
            title: "Last assistant message",
            text: last_assistant,
            items: Vec::new(),
        },
    ];
    let render = |sections: &[Section]| {
        let mut out = HEADER.to_string();
        for s in sections {
            s.render(&mut out);
        }
        out
    };
    let mut text = render(&sections);
    for _ in 0..64 {
        if (input.estimate)(&text) <= input.max_tokens {
            return text;
        }
        let Some(longest) = sections
            .iter_mut()
            .filter(|s| s.size() > 40)
            .max_by_key(|s| s.size())
        else {
            break;
        };
        longest.halve();
        text = render(&sections);
    }
    // Still too long: cut the text itself until it fits.
    let mut chars = text.chars().count();
    while chars > 1 && (input.estimate)(&text) > input.max_tokens {
        chars /= 2;
        text = truncate_plain(&text, chars);
    }
    text
}

fn list(title: &'static str, items: &[String]) -> Section {
    Section {
        title,
        text: None,
        items: items.to_vec(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn input<'a>(
        messages: &'a [Message],
        indices: &'a [usize],
        digest: &'a Digest,
        max_tokens: usize,
        estimate: &'a dyn Fn(&str) -> usize,
    ) -> Input<'a> {
        Input {
            messages,
            indices,
            previous_summary: Some("Earlier: built the parser."),
            digest,
            max_tokens,
            estimate,
        }
    }

    #[test]
    fn lists_everything_and_fits_its_budget() {
        let messages = vec![
            Message::text(Role::User, "Fix the parser"),
            Message::text(Role::Assistant, "Fixed the parser in src/parse.rs."),
        ];
        let digest = Digest {
            files_modified: vec!["src/parse.rs".into()],
            commands: vec!["cargo test".into()],
            user_requests: vec!["Fix the parser".into()],
            ..Digest::default()
        };
        let estimate = |t: &str| t.len().div_ceil(4);
        let text = summary(&input(&messages, &[0, 1], &digest, 10_000, &estimate));
        assert!(text.starts_with(HEADER));
        for needle in [
            "## Earlier summary\nEarlier: built the parser.",
            "## User requests\n- Fix the parser",
            "## Files modified\n- src/parse.rs",
            "## Commands run\n- cargo test",
            "## Last assistant message\nFixed the parser in src/parse.rs.",
        ] {
            assert!(text.contains(needle), "{needle} in {text}");
        }
        assert!(!text.contains("## Errors"));
        // A small budget is met.
        let big = Digest {
            files_read: (0..500).map(|i| format!("src/file{i}.rs")).collect(),
            ..digest
        };
        let text = summary(&input(&messages, &[0, 1], &big, 200, &estimate));
        assert!(estimate(&text) <= 200, "{}", estimate(&text));
        assert!(text.contains("src/file499.rs"), "the newest items stay");
    }
}
