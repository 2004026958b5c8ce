//! Cutting a transcript into chunks a summarizer can read, and how many tokens a chunk may hold
//! when chunking by the summarizer's window ([`WindowCapacity`]).
//!
//! Entries (serialized messages) are packed greedily, in order, into chunks of at most
//! `char_limit` characters and, when a token limit is set, at most that many tokens, counted as
//! the sum of the entries' and separators' estimates (an upper bound for `ceil(chars / n)`
//! estimates, close for the heuristic). An entry that does not fit alone is cut on character
//! boundaries into pieces that do; pieces after the first start with `(continued)`. Every entry
//! lands in exactly one chunk (or, cut, in consecutive chunks), in order.

use std::collections::HashSet;

use crate::core::settings::Settings;

use super::prompt::Templates;
use super::transcript::Entry;

/// The marker opening every piece of a cut entry but the first.
pub const CONTINUED: &str = "(continued)\n";

/// One chunk: its transcript, its messages and the tokens of the messages it replaces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// The entries joined by the separator.
    pub transcript: String,
    /// Indices of the messages in the chunk, in order, without repeats.
    pub indices: Vec<usize>,
    /// Estimated tokens of the chunk's entries that are not overlap messages.
    pub replaced_tokens: usize,
}

/// What a summarizer request must hold besides the transcript, to chunk by the summarizer's
/// window (`chunkChars: "window"`) rather than by characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowCapacity {
    /// The summarizer's context window in tokens.
    pub window: usize,
    /// The answer's budget (`maxTokens`).
    pub answer: usize,
    /// The system prompt, the longest template, the instructions and the original task.
    pub fixed: usize,
    /// The earlier summary the first request builds on.
    pub previous: usize,
}

impl WindowCapacity {
    /// The capacity of requests rendered from `templates` for a summarizer with the window of
    /// `settings` and an answer of its summary budget: `fixed` counts the system prompt, the
    /// longest template and the `extra` texts (the instructions; the original task when the
    /// history template asks for it), `previous` the earlier summary.
    pub fn of(
        settings: &Settings,
        templates: &Templates,
        extra: [Option<&str>; 2],
        previous: Option<&str>,
        estimate: &dyn Fn(&str) -> usize,
    ) -> WindowCapacity {
        let [instructions, original_task] = extra;
        let longest = [
            &templates.history,
            &templates.update,
            &templates.chunk,
            &templates.turn_prefix,
        ]
        .into_iter()
        .map(|t| estimate(t))
        .max()
        .unwrap_or(0);
        let task = original_task.filter(|_| templates.history.contains("{original_task}"));
        WindowCapacity {
            window: settings.budget.context_window,
            answer: settings.plan.summary_tokens,
            fixed: longest
                + estimate(&templates.system)
                + instructions.map_or(0, estimate)
                + task.map_or(0, estimate),
            previous: previous.map_or(0, estimate),
        }
    }

    /// [`WindowCapacity::token_limit`] for a transcript of these entries.
    pub fn token_limit_for(
        &self,
        entries: &[Entry],
        separator: &str,
        estimate: &dyn Fn(&str) -> usize,
    ) -> usize {
        let whole: Vec<&str> = entries.iter().map(|e| e.text.as_str()).collect();
        self.token_limit(estimate(&whole.join(separator)))
    }

    /// The most tokens of transcript per request for a transcript of `whole` tokens: when it fits
    /// one request (window − answer − fixed − previous summary) that room, so it is sent whole;
    /// otherwise the room of a chunk, which carries a summary so far of up to the answer's budget.
    /// Never below a quarter of the window, so that a window too small for its own settings still
    /// ends in a bounded number of chunks.
    pub fn token_limit(&self, whole: usize) -> usize {
        let floor = (self.window / 4).max(1);
        let room = |carry: usize| {
            self.window
                .saturating_sub(self.answer + self.fixed + carry)
                .max(floor)
        };
        let single = room(self.previous);
        if whole <= single {
            single
        } else {
            room(self.previous.max(self.answer))
        }
    }
}

/// Packs entries into chunks (see the module documentation).
pub struct Chunker<'a> {
    /// Counts the tokens of a text.
    pub estimate: &'a dyn Fn(&str) -> usize,
    /// Most characters of a chunk (at least 1 is used).
    pub char_limit: usize,
    /// Most tokens of a chunk, when set.
    pub token_limit: Option<usize>,
    /// Messages shown for continuity but not replaced by the summary.
    pub overlap: &'a HashSet<usize>,
    /// What joins two entries ([`super::transcript::separator`]).
    pub separator: &'a str,
}

impl Chunker<'_> {
    fn fits(&self, chars: usize, tokens: usize) -> bool {
        chars <= self.char_limit.max(1) && self.token_limit.is_none_or(|t| tokens <= t)
    }

    fn tokens(&self, text: &str) -> usize {
        self.token_limit.map_or(0, |_| (self.estimate)(text))
    }

    /// The chunks of `entries`; none for no entries.
    pub fn chunks(&self, entries: Vec<Entry>) -> Vec<Chunk> {
        let sep_chars = self.separator.chars().count();
        let sep_tokens = self.tokens(self.separator);
        let mut out: Vec<Vec<Entry>> = Vec::new();
        let mut current: Vec<Entry> = Vec::new();
        let (mut chars, mut tokens) = (0usize, 0usize);
        for entry in entries {
            let e_chars = entry.text.chars().count();
            let e_tokens = self.tokens(&entry.text);
            if !current.is_empty() {
                let c = chars + sep_chars + e_chars;
                let t = tokens + sep_tokens + e_tokens;
                if self.fits(c, t) {
                    (chars, tokens) = (c, t);
                    current.push(entry);
                    continue;
                }
                out.push(std::mem::take(&mut current));
            }
            if self.fits(e_chars, e_tokens) {
                (chars, tokens) = (e_chars, e_tokens);
                current.push(entry);
            } else {
                for piece in self.cut(&entry.text) {
                    out.push(vec![Entry {
                        index: entry.index,
                        text: piece,
                    }]);
                }
            }
        }
        if !current.is_empty() {
            out.push(current);
        }
        out.into_iter().map(|c| self.chunk(c)).collect()
    }

    fn chunk(&self, entries: Vec<Entry>) -> Chunk {
        let replaced: Vec<&str> = entries
            .iter()
            .filter(|e| !self.overlap.contains(&e.index))
            .map(|e| e.text.as_str())
            .collect();
        let replaced_tokens = (self.estimate)(&replaced.join(self.separator));
        let mut indices: Vec<usize> = Vec::new();
        for e in &entries {
            if indices.last() != Some(&e.index) {
                indices.push(e.index);
            }
        }
        let texts: Vec<&str> = entries.iter().map(|e| e.text.as_str()).collect();
        Chunk {
            transcript: texts.join(self.separator),
            indices,
            replaced_tokens,
        }
    }

    /// Cuts one oversized entry on character boundaries into pieces that fit (a piece of one
    /// character is accepted even when it does not, so that cutting always ends).
    fn cut(&self, text: &str) -> Vec<String> {
        let chars: Vec<(usize, char)> = text.char_indices().collect();
        let mut out = Vec::new();
        let mut start = 0usize;
        while start < chars.len() {
            let lead = if out.is_empty() { "" } else { CONTINUED };
            let room = self.char_limit.saturating_sub(lead.len()).max(1);
            let mut take = room.min(chars.len() - start);
            loop {
                let candidate = format!("{lead}{}", slice(text, &chars, start, start + take));
                let tokens = self.tokens(&candidate);
                if take <= 1 || self.fits(candidate.chars().count(), tokens) {
                    out.push(candidate);
                    break;
                }
                // Over the token limit: shrink in proportion, by at least one character.
                let limit = self.token_limit.unwrap_or(0);
                let scaled = take.saturating_mul(limit) / tokens.max(1);
                take = scaled.clamp(1, take - 1);
            }
            start += take;
        }
        out
    }
}

/// `text` from char `from` to char `to` (exclusive), by the char table of `text`.
fn slice<'t>(text: &'t str, chars: &[(usize, char)], from: usize, to: usize) -> &'t str {
    let byte = |i: usize| chars.get(i).map_or(text.len(), |(b, _)| *b);
    text.get(byte(from)..byte(to)).unwrap_or_default()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::core::summary::transcript::ENTRY_SEPARATOR;

    fn entry(index: usize, len: usize) -> Entry {
        Entry {
            index,
            text: "é".repeat(len),
        }
    }

    #[test]
    fn packs_in_order_and_cuts_what_does_not_fit() {
        let count = |s: &str| s.chars().count();
        let none = HashSet::new();
        let c = Chunker {
            estimate: &count,
            char_limit: 50,
            token_limit: None,
            overlap: &none,
            separator: ENTRY_SEPARATOR,
        };
        let chunks = c.chunks(vec![
            entry(0, 20),
            entry(1, 20),
            entry(2, 20),
            entry(3, 120),
        ]);
        let indices: Vec<Vec<usize>> = chunks.iter().map(|c| c.indices.clone()).collect();
        assert_eq!(
            indices,
            vec![vec![0, 1], vec![2], vec![3], vec![3], vec![3]]
        );
        assert!(chunks.iter().all(|c| c.transcript.chars().count() <= 50));
        assert!(chunks[3].transcript.starts_with(CONTINUED));
        let rebuilt: String = chunks[2..]
            .iter()
            .map(|c| c.transcript.trim_start_matches(CONTINUED))
            .collect();
        assert_eq!(rebuilt, "é".repeat(120));
        assert!(c.chunks(vec![]).is_empty());
    }

    #[test]
    fn window_capacity_sends_whole_what_fits_and_chunks_past_it() {
        let c = WindowCapacity {
            window: 100_000,
            answer: 10_000,
            fixed: 2_000,
            previous: 1_000,
        };
        assert_eq!(c.token_limit(87_000), 87_000, "fits in one request");
        assert_eq!(
            c.token_limit(87_001),
            78_000,
            "chunks carry a summary of the answer's budget"
        );
        let tiny = WindowCapacity {
            window: 8_000,
            answer: 10_000,
            fixed: 0,
            previous: 0,
        };
        assert_eq!(
            tiny.token_limit(1_000_000),
            2_000,
            "never below a quarter of the window"
        );
    }

    #[test]
    fn token_limit_and_overlap() {
        let count = |s: &str| s.chars().count().div_ceil(4);
        let overlap: HashSet<usize> = [1].into_iter().collect();
        let c = Chunker {
            estimate: &count,
            char_limit: 10_000,
            token_limit: Some(10),
            overlap: &overlap,
            separator: ENTRY_SEPARATOR,
        };
        let chunks = c.chunks(vec![entry(0, 20), entry(1, 20), entry(2, 100)]);
        assert!(chunks.iter().all(|c| count(&c.transcript) <= 10));
        assert_eq!(chunks[0].indices, vec![0]);
        assert_eq!(chunks[0].replaced_tokens, 5);
        assert_eq!(chunks[1].indices, vec![1]);
        assert_eq!(chunks[1].replaced_tokens, 0);
        assert!(chunks.len() >= 2 + 100 / 40);
    }
}
