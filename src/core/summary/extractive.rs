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
//! ## Files modified          (a line `in <dir>/` first when every path shares that directory)
//! ## Files read
//! ## Commands run
//! ## Errors
//! ## Pending tasks
//! ## Last assistant message
//! ```
//!
//! Budget ([`budget`]): for what the replaced messages hold, at most [`MAX_TOKENS`] and a
//! [`RATIO`]th of what the summary replaces (never below [`MIN_TOKENS`]); the earlier summary,
//! which cannot be summarized again without a model, is carried on top of that; the whole never
//! more than the caller's `max_tokens`. It is spent by priority: the earlier summary, user
//! requests, errors, files modified, pending tasks, the last assistant message, commands, files
//! read. While the text is over the budget:
//! 1. sections are shortened, lowest priority first: list items cut to their first
//!    [`SHORT_CHARS`] characters ([`SHORT_ERROR_CHARS`] for errors) and repeats removed, the last
//!    assistant message to [`SHORT_MESSAGE_CHARS`] characters, the earlier summary to about half
//!    the budget; nothing is lost that the item's beginning names;
//! 2. then items are dropped, lowest priority first, a section emptied before the next one loses
//!    anything: the oldest items go (of the user requests, the first one, the task, stays);
//! 3. past that the whole text is cut on a character boundary.
//!
//! Files are listed with the directory every listed path shares stated once (each path keeps at
//! least its last two components).

use crate::core::message::{Message, Role};

use super::digest::Digest;
use super::transcript::truncate_plain;

/// The first line of every extractive summary.
pub const HEADER: &str =
    "(Extractive summary: written without a model from the messages it replaces.)";

/// Most tokens of an extractive summary.
pub const MAX_TOKENS: usize = 2_000;
/// The summary's budget is at most this fraction (1/RATIO) of the tokens it replaces...
pub const RATIO: usize = 10;
/// ...but never below this many tokens.
pub const MIN_TOKENS: usize = 600;
/// Most characters of the last assistant message.
const LAST_MESSAGE_CHARS: usize = 1_500;
/// Characters of the last assistant message once shortened.
pub const SHORT_MESSAGE_CHARS: usize = 300;
/// Characters of a shortened list item (a request, a command, a pending task).
pub const SHORT_CHARS: usize = 60;
/// Characters of a shortened error.
pub const SHORT_ERROR_CHARS: usize = 100;

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
    /// The caller's token budget (the summary's).
    pub max_tokens: usize,
    /// Tokens of what the summary replaces.
    pub replaced_tokens: usize,
    /// Counts the tokens of a text.
    pub estimate: &'a dyn Fn(&str) -> usize,
}

/// The token budget of an extractive summary of `replaced_tokens` with the caller's `max_tokens`
/// and an earlier summary of `earlier_tokens` (see the module documentation).
pub fn budget(max_tokens: usize, replaced_tokens: usize, earlier_tokens: usize) -> usize {
    (replaced_tokens / RATIO)
        .clamp(MIN_TOKENS, MAX_TOKENS)
        .saturating_add(earlier_tokens)
        .min(max_tokens)
        .max(1)
}

/// Which items a section loses first.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Oldness {
    /// The oldest first.
    Oldest,
    /// The oldest but the first.
    KeepFirst,
}

#[derive(Clone)]
struct Section {
    title: &'static str,
    /// A line under the title (the shared directory of a file list).
    note: Option<String>,
    /// Either a block of text or list items (newest last).
    text: Option<String>,
    items: Vec<String>,
    /// Characters of an item (or of the text) once shortened.
    short: usize,
    drop: Oldness,
}

impl Section {
    fn list(title: &'static str, items: &[String], short: usize, drop: Oldness) -> Section {
        Section {
            title,
            note: None,
            text: None,
            items: items.to_vec(),
            short,
            drop,
        }
    }

    fn text(title: &'static str, text: Option<String>, short: usize) -> Section {
        Section {
            title,
            note: None,
            text: text.filter(|t| !t.is_empty()),
            items: Vec::new(),
            short,
            drop: Oldness::Oldest,
        }
    }

    fn files(title: &'static str, items: &[String], root: &str) -> Section {
        let mut section = Section::list(title, items, usize::MAX, Oldness::Oldest);
        if !root.is_empty() {
            section.note = Some(format!("in {root}"));
            for item in &mut section.items {
                if let Some(rest) = item.strip_prefix(root) {
                    *item = rest.to_string();
                }
            }
        }
        section
    }

    fn is_empty(&self) -> bool {
        self.text.is_none() && self.items.is_empty()
    }

    fn render(&self, out: &mut String) {
        if self.is_empty() {
            return;
        }
        out.push_str("\n\n## ");
        out.push_str(self.title);
        for line in self.note.iter().chain(self.text.iter()) {
            out.push('\n');
            out.push_str(line);
        }
        for item in &self.items {
            out.push_str("\n- ");
            out.push_str(item);
        }
    }

    /// Cuts the text and every item to [`Section::short`] characters; items that become the
    /// same are listed once.
    fn shorten(&mut self) {
        if let Some(text) = &mut self.text {
            *text = truncate_plain(text, self.short);
        }
        let mut seen = std::collections::HashSet::new();
        let short = self.short;
        self.items = std::mem::take(&mut self.items)
            .into_iter()
            .map(|i| truncate_plain(&i, short))
            .filter(|i| seen.insert(i.clone()))
            .collect();
    }

    /// The section with only its `keep` newest items (see [`Oldness`]), or its text cut to `keep`
    /// characters.
    fn keep(&mut self, keep: usize) {
        if let Some(text) = &mut self.text {
            *text = truncate_plain(text, keep);
            if keep == 0 {
                self.text = None;
            }
            return;
        }
        let n = self.items.len();
        if keep >= n {
            return;
        }
        match (self.drop, keep) {
            (_, 0) => self.items.clear(),
            (Oldness::KeepFirst, _) => {
                self.items.drain(1..=(n - keep));
            }
            (Oldness::Oldest, _) => {
                self.items.drain(..(n - keep));
            }
        }
    }

    /// What [`Section::keep`] counts: items, or characters of the text.
    fn amount(&self) -> usize {
        self.text
            .as_ref()
            .map_or(self.items.len(), |t| t.chars().count())
    }
}

/// The extractive summary of `input` (see the module documentation).
pub fn summary(input: &Input<'_>) -> String {
    let d = input.digest;
    let earlier = input
        .previous_summary
        .map(str::trim)
        .filter(|s| !s.is_empty());
    let max_tokens = budget(
        input.max_tokens,
        input.replaced_tokens,
        earlier.map_or(0, input.estimate),
    );
    let last_assistant = input
        .indices
        .iter()
        .rev()
        .filter_map(|&i| input.messages.get(i))
        .filter(|m| m.role == Role::Assistant && !m.summary)
        .map(Message::plain_text)
        .find(|t| !t.trim().is_empty())
        .map(|t| truncate_plain(t.trim(), LAST_MESSAGE_CHARS));
    let root = shared_directory(d.files_modified.iter().chain(&d.files_read));
    // In the order they are shown.
    let mut sections = vec![
        Section::text(
            "Earlier summary",
            earlier.map(str::to_string),
            // About half the budget, at some four characters a token.
            max_tokens.saturating_mul(2),
        ),
        Section::list(
            "User requests",
            &d.user_requests,
            SHORT_CHARS,
            Oldness::KeepFirst,
        ),
        Section::files("Files modified", &d.files_modified, &root),
        Section::files("Files read", &d.files_read, &root),
        Section::list("Commands run", &d.commands, SHORT_CHARS, Oldness::Oldest),
        Section::list("Errors", &d.errors, SHORT_ERROR_CHARS, Oldness::Oldest),
        Section::list(
            "Pending tasks",
            &d.pending_tasks,
            SHORT_CHARS,
            Oldness::Oldest,
        ),
        Section::text(
            "Last assistant message",
            last_assistant,
            SHORT_MESSAGE_CHARS,
        ),
    ];
    // Section indices, lowest priority first: files read, commands, the last assistant message,
    // pending tasks, files modified, errors, user requests, the earlier summary.
    const SPEND_LAST_FIRST: [usize; 8] = [3, 4, 7, 6, 2, 5, 1, 0];
    let render = |sections: &[Section]| {
        let mut out = HEADER.to_string();
        for s in sections {
            s.render(&mut out);
        }
        out
    };
    let fits = |text: &str| (input.estimate)(text) <= max_tokens;
    let mut text = render(&sections);
    if fits(&text) {
        return text;
    }
    for &i in &SPEND_LAST_FIRST {
        if let Some(section) = sections.get_mut(i) {
            section.shorten();
        }
        text = render(&sections);
        if fits(&text) {
            return text;
        }
    }
    for &i in &SPEND_LAST_FIRST {
        // The most of section i that fits, by bisection (an empty section fits or nothing does).
        let Some(whole) = sections.get(i).map(Section::amount) else {
            continue;
        };
        let (mut lo, mut hi) = (0usize, whole);
        let full = sections.get(i).cloned();
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if let (Some(section), Some(full)) = (sections.get_mut(i), &full) {
                *section = full.clone();
                section.keep(mid);
            }
            if fits(&render(&sections)) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        if let (Some(section), Some(full)) = (sections.get_mut(i), &full) {
            *section = full.clone();
            section.keep(lo);
        }
        text = render(&sections);
        if fits(&text) {
            return text;
        }
    }
    // Still too long: cut the text itself until it fits.
    let mut chars = text.chars().count();
    while chars > 1 && !fits(&text) {
        chars /= 2;
        text = truncate_plain(&text, chars);
    }
    text
}

/// The directory (ending in `/`) that every path of `paths` lies in, such that each keeps at
/// least its last two components; empty when there is none or fewer than two paths.
fn shared_directory<'a>(paths: impl Iterator<Item = &'a String>) -> String {
    let paths: Vec<&String> = paths.collect();
    let (Some(first), true) = (paths.first(), paths.len() >= 2) else {
        return String::new();
    };
    let mut root: Vec<&str> = first.split('/').collect();
    root.pop();
    for path in &paths {
        let parts: Vec<&str> = path.split('/').collect();
        let same = root.iter().zip(&parts).take_while(|(a, b)| a == b).count();
        // Each path keeps its last two components.
        root.truncate(same.min(parts.len().saturating_sub(2)));
    }
    if root.iter().all(|c| c.is_empty()) {
        return String::new();
    }
    format!("{}/", root.join("/"))
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
            replaced_tokens: 100_000,
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

    #[test]
    fn the_budget_scales_with_the_history_and_is_spent_by_priority() {
        assert_eq!(budget(50_000, 100_000, 0), MAX_TOKENS);
        assert_eq!(budget(50_000, 10_000, 0), 1_000);
        assert_eq!(budget(50_000, 100, 0), MIN_TOKENS);
        assert_eq!(budget(300, 100_000, 0), 300);
        assert_eq!(
            budget(50_000, 10_000, 3_000),
            4_000,
            "the earlier summary on top"
        );
        assert_eq!(budget(3_500, 10_000, 3_000), 3_500);
        let messages = vec![
            Message::text(Role::User, "Fix the parser"),
            Message::text(Role::Assistant, "Done. ".repeat(200)),
        ];
        let long = |i: usize| {
            format!(
                "request {i}: {}",
                "please also do this other thing ".repeat(6)
            )
        };
        let digest = Digest {
            user_requests: (0..40).map(long).collect(),
            files_modified: (0..20)
                .map(|i| format!("/home/me/project/src/mod{i}.rs"))
                .collect(),
            files_read: (0..200)
                .map(|i| format!("/home/me/project/docs/page{i}.md"))
                .collect(),
            commands: (0..60)
                .map(|i| {
                    format!(
                        "cargo test --test suite{} -- --nocapture --test-threads 1 {}",
                        i % 30,
                        "x".repeat(i)
                    )
                })
                .collect(),
            errors: vec!["bash: error[E0425]: cannot find value `x` in this scope".into()],
            ..Digest::default()
        };
        let estimate = |t: &str| t.len().div_ceil(4);
        // 12,000 tokens replaced: a budget of 1,200, and the earlier summary's on top.
        let mut i = input(&messages, &[0, 1], &digest, 50_000, &estimate);
        i.replaced_tokens = 12_000;
        let text = summary(&i);
        let earlier = estimate("Earlier: built the parser.");
        assert!(estimate(&text) <= 1_200 + earlier, "{}", estimate(&text));
        assert!(text.contains("## Earlier summary\nEarlier: built the parser.\n\n## User requests"));
        // Every request is kept, shortened to its beginning, before any file read is given up.
        for r in 0..40 {
            assert!(
                text.contains(&format!("- request {r}: please also")),
                "request {r}: {text}"
            );
        }
        assert!(!text.contains(&long(0)), "shortened: {text}");
        // The error and every modified file stay; the shared directory is named once.
        assert!(text.contains("- bash: error[E0425]"));
        assert!(
            text.contains("## Files modified\nin /home/me/project/\n- src/mod0.rs"),
            "{text}"
        );
        assert_eq!(text.matches("/home/me/project/").count(), 1, "{text}");
        for f in 0..20 {
            assert!(text.contains(&format!("- src/mod{f}.rs\n")), "mod{f}");
        }
        // Commands shortened to the same text are listed once; what is dropped goes oldest first,
        // files read (the lowest priority) before commands.
        assert!(
            !text.contains("docs/page"),
            "the files read went first: {text}"
        );
        let shown: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("- cargo test"))
            .collect();
        assert!(!shown.is_empty() && shown.len() < 60, "{}", shown.len());
        assert!(text.contains("## Last assistant message\nDone. Done."));
    }
}
