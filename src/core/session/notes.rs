//! The session's memory block (seed 004): notes accumulate; when there are
//! [`NOTES_TRIGGER`] of them, the oldest [`NOTES_COMPACTED`] are condensed into the block's summary
//! (the previous summary blended in), and only the rest stay as raw notes. The session's side is
//! here too: adding a note, recording a condensing, and the block's place in the rendered context
//! ([`Session::memory`]).

use super::entry::{Entry, EntryKind};
use super::Session;
use crate::core::message::{Message, Role};

/// Notes that start a compaction of the memory block.
pub const NOTES_TRIGGER: usize = 15;
/// The oldest notes condensed by one compaction of the memory block.
pub const NOTES_COMPACTED: usize = 10;

/// The system prompt of a memory-block compaction.
pub const NOTES_SYSTEM: &str = "You maintain the memory block of a long-running agent conversation. Blend the previous memory summary and the new notes into one concise summary that keeps every fact, decision, preference and open item still relevant. Answer with the summary only.";

/// The user prompt of a memory-block compaction of `notes`, blending `previous`.
pub fn notes_prompt(previous: Option<&str>, notes: &[String]) -> String {
    let mut out = String::from("<memory-block-compaction>\n<previous-summary>\n");
    out.push_str(previous.unwrap_or("(none)"));
    out.push_str("\n</previous-summary>\n<notes>\n");
    for (i, n) in notes.iter().enumerate() {
        out.push_str(&format!("{}. {n}\n", i + 1));
    }
    out.push_str("</notes>\n</memory-block-compaction>");
    out
}

/// The memory block's summary without a model (`summarize: "extractive"`): the previous summary,
/// then each condensed note as a line, newest kept first when they do not fit `max_chars`.
pub fn extractive_summary(previous: Option<&str>, notes: &[String], max_chars: usize) -> String {
    let mut lines: Vec<String> = previous
        .map(|p| p.lines().map(str::to_string).collect())
        .unwrap_or_default();
    lines.extend(notes.iter().map(|n| format!("- {}", n.trim())));
    let mut out: Vec<&str> = Vec::new();
    let mut used = 0usize;
    for line in lines.iter().rev() {
        let cost = line.chars().count() + 1;
        if used + cost > max_chars && !out.is_empty() {
            break;
        }
        used += cost;
        out.push(line);
    }
    out.reverse();
    out.join("\n")
}

/// The memory block with the entry ids of its notes, borrowed from the log.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LiveNotes<'a> {
    /// The summary of the condensed notes.
    pub summary: Option<&'a str>,
    /// The latest `notesCompacted` entry.
    pub compacted: Option<&'a str>,
    /// The notes not condensed yet, oldest first, with their entry ids.
    pub notes: Vec<(&'a str, &'a str)>,
}

/// Reads the memory block of `log`. A `notesCompacted` entry condenses the notes up to its
/// `through` note (none, when that note is not in `log`: a log read from its live lines holds only
/// notes after it), or, in logs written before `through`, its `notes` oldest.
pub fn live_notes(log: &[Entry]) -> LiveNotes<'_> {
    let mut block = LiveNotes::default();
    for entry in log {
        match &entry.kind {
            EntryKind::Note(text) => block.notes.push((&entry.id, text)),
            EntryKind::NotesCompacted {
                summary,
                notes,
                through,
            } => {
                let n = match through {
                    Some(id) => block
                        .notes
                        .iter()
                        .position(|(note, _)| note == id)
                        .map_or(0, |i| i + 1),
                    None => (*notes).min(block.notes.len()),
                };
                block.notes.drain(..n);
                block.summary = Some(summary);
                block.compacted = Some(&entry.id);
            }
            _ => {}
        }
    }
    block
}

/// The memory block as the log holds it now.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryBlock {
    /// The summary of the condensed notes.
    pub summary: Option<String>,
    /// The notes not condensed yet, oldest first.
    pub notes: Vec<String>,
}

impl MemoryBlock {
    /// Reads the block from the log.
    pub fn of(log: &[Entry]) -> MemoryBlock {
        let live = live_notes(log);
        MemoryBlock {
            summary: live.summary.map(str::to_string),
            notes: live
                .notes
                .iter()
                .map(|(_, text)| text.to_string())
                .collect(),
        }
    }

    /// The notes to condense now (the oldest [`NOTES_COMPACTED`] once there are
    /// [`NOTES_TRIGGER`]), or `None`.
    pub fn due(&self) -> Option<&[String]> {
        (self.notes.len() >= NOTES_TRIGGER)
            .then(|| self.notes.get(..NOTES_COMPACTED))
            .flatten()
    }

    /// The block as text for the model: the summary, then the raw notes.
    pub fn text(&self) -> Option<String> {
        if self.summary.is_none() && self.notes.is_empty() {
            return None;
        }
        let mut out = String::new();
        if let Some(s) = &self.summary {
            out.push_str("Memory summary:\n");
            out.push_str(s);
            out.push('\n');
        }
        if !self.notes.is_empty() {
            out.push_str("Memory notes:\n");
            for n in &self.notes {
                out.push_str("- ");
                out.push_str(n);
                out.push('\n');
            }
        }
        Some(out.trim_end().to_string())
    }
}

impl Session {
    /// Appends a note to the memory block.
    pub fn add_note(&mut self, text: String) -> String {
        let id = self.next_id();
        self.push(id.clone(), EntryKind::Note(text));
        self.refresh_memory();
        id
    }

    /// Records that the oldest `notes` notes were condensed into `summary`.
    pub fn compact_notes(&mut self, summary: String, notes: usize) -> String {
        let through = notes.checked_sub(1).and_then(|i| {
            live_notes(&self.log)
                .notes
                .get(i)
                .map(|(id, _)| id.to_string())
        });
        let id = self.next_id();
        self.push(
            id.clone(),
            EntryKind::NotesCompacted {
                summary,
                notes,
                through,
            },
        );
        self.refresh_memory();
        id
    }

    /// The memory block's oldest notes when they are due (seed 004: 10 of 15): the user prompt
    /// of their summary request and how many they are.
    pub fn notes_due(&self) -> Option<(String, usize)> {
        let block = self.notes();
        let due = block.due()?;
        Some((notes_prompt(block.summary.as_deref(), due), due.len()))
    }

    /// The memory block's notes when due, as `prepare()` takes them: condensed now without a
    /// model when `by_model` is false (within 4 characters a token of `summary_tokens`: `None`),
    /// or the summary request's user prompt and the count of notes it summarizes.
    pub fn notes_request(
        &mut self,
        summary_tokens: usize,
        by_model: bool,
    ) -> Option<(String, usize)> {
        let (prompt, count) = self.notes_due()?;
        if !by_model {
            self.condense_notes(count, summary_tokens.saturating_mul(4));
            return None;
        }
        Some((prompt, count))
    }

    /// Condenses the oldest `count` notes without a model: the notes themselves after the
    /// previous summary, within `max_chars` ([`extractive_summary`]).
    pub fn condense_notes(&mut self, count: usize, max_chars: usize) {
        let block = self.notes();
        let notes = block.notes.get(..count).unwrap_or_default();
        let summary = extractive_summary(block.summary.as_deref(), notes, max_chars);
        self.compact_notes(summary, count);
    }

    /// The memory block: its summary and the notes it does not cover.
    pub fn notes(&self) -> MemoryBlock {
        MemoryBlock::of(&self.log)
    }

    /// Reads the memory block again (after a note, a condensing, or a rebuild).
    pub(super) fn refresh_memory(&mut self) {
        self.memory = MemoryBlock::of(&self.log).text().map(|text| {
            let message = Message::text(Role::System, text);
            let tokens = self.config.estimator.estimate_message(&message).total();
            (message, tokens)
        });
    }

    /// The memory block as the system message rendered with the context, and its index there:
    /// after the leading system messages and the summary (a system-role summary is one of them).
    /// `None` while the block is empty.
    pub fn memory(&self) -> Option<(usize, &Message)> {
        let (message, _) = self.memory.as_ref()?;
        let messages = self.messages();
        let mut at = messages
            .iter()
            .position(|m| m.role != Role::System)
            .unwrap_or(messages.len());
        if let Some(s) = self.summary_index().filter(|&s| s >= at) {
            at = s + 1;
        }
        Some((at, message))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extractive_memory_summary_keeps_the_newest_lines_that_fit() {
        let notes: Vec<String> = (1..=3).map(|i| format!("note {i}")).collect();
        assert_eq!(
            extractive_summary(Some("- old"), &notes, 1000),
            "- old\n- note 1\n- note 2\n- note 3"
        );
        assert_eq!(extractive_summary(None, &notes, 18), "- note 2\n- note 3");
        assert_eq!(extractive_summary(None, &notes, 17), "- note 3");
    }
}
