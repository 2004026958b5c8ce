//! The summarizer's prompts: default templates and their rendering.
//!
//! Every template is a plain string with placeholders replaced by [`render`]:
//!
//! | placeholder | value |
//! |---|---|
//! | `{transcript}` | the serialized messages of the piece |
//! | `{previous_summary}` | the summary being updated, continued or condensed (`(none)` when absent) |
//! | `{instructions}` | the caller's instructions, e.g. the text after `/compact` (`(none)` when absent) |
//! | `{max_tokens}` | the token budget of the answer |
//! | `{round}` | the compaction round (1 for the first compaction of a conversation) |
//! | `{part}` / `{parts}` | the piece's position in a chunked transcript (1 / 1 when not chunked) |
//!
//! Which template a piece uses: `history` for a single-piece history without an earlier summary,
//! `update` when one exists, `chunk` for every piece of a transcript cut into chunks, `turn_prefix`
//! for the beginning of a split turn, `rollup` to condense an over-long summary. `system` is the
//! system prompt of every piece.

/// The sections of a structured summary, shared by the default history, update and chunk templates.
macro_rules! summary_sections {
    () => {
        "Write the summary in Markdown with exactly these sections, in this order:

## Goal and constraints
What the user wants, in the user's own words where possible. Quote every explicit requirement, \
preference and restriction verbatim; these must never be lost.

## Progress
What has been completed so far, and what is in progress.

## Key decisions
Technical choices made and the reason for each.

## Files read and modified
Absolute paths of the files that were read, created, modified or deleted, each with a few words on \
what happened to it.

## Current state
Where the work stands right now: what was being done when the conversation was cut.

## Next steps
The open tasks, in order, as a checklist.

## Errors and fixes
Errors that occurred (commands, messages) and how each was resolved, or that it is still open.

Leave a section out only when there is nothing to put in it. Prefer exact names, paths, commands, \
identifiers and numbers over paraphrase. Do not continue the conversation or answer questions from \
it: output only the summary, in at most {max_tokens} tokens."
    };
}

/// The default system prompt.
pub const DEFAULT_SYSTEM: &str = "You write handoff summaries of conversations between a user and \
an AI agent that works with tools. Another agent will continue the work from your summary alone: \
the conversation itself will be gone. Keep everything that agent needs to carry on without asking \
again or redoing finished work, and nothing it does not need. Be factual and dense; never invent \
anything that is not in the material you are given.";

/// The default prompt for a history summarized in one piece, without an earlier summary.
pub const DEFAULT_HISTORY: &str = concat!(
    "Summarize the conversation transcript below (compaction round {round}).\n\n",
    "<transcript>\n{transcript}\n</transcript>\n\n",
    "Additional instructions from the user: {instructions}\n\n",
    summary_sections!()
);

/// The default prompt merging new messages into the summary of an earlier compaction.
pub const DEFAULT_UPDATE: &str = concat!(
    "An earlier part of this conversation was already summarized. Produce one updated summary that ",
    "covers both the earlier summary and the new messages (compaction round {round}).\n\n",
    "<previous-summary>\n{previous_summary}\n</previous-summary>\n\n",
    "<new-messages>\n{transcript}\n</new-messages>\n\n",
    "Merge, do not append: keep everything from the earlier summary that still holds, update what ",
    "the new messages changed (tasks done, decisions revised, files touched again), and add what is ",
    "new. Never drop a user requirement, constraint or open task unless the new messages show it was ",
    "withdrawn or completed.\n\n",
    "Additional instructions from the user: {instructions}\n\n",
    summary_sections!()
);

/// Seed 002's recursive strategy: the prior synthetic summary is fed back "as === PRIOR SUMMARY ===
/// context", so each summary builds on its predecessors.
pub const RECURSIVE_UPDATE: &str = concat!(
    "Summarize the conversation so far, building on the prior summary (compaction round {round}).\n\n",
    "=== PRIOR SUMMARY ===\n{previous_summary}\n\n",
    "=== CONVERSATION ===\n{transcript}\n\n",
    "Produce one summary that covers both: keep everything from the prior summary that still holds ",
    "and add what the conversation changed.\n\n",
    "Additional instructions from the user: {instructions}\n\n",
    summary_sections!()
);

/// The default prompt for one chunk of a transcript too large for a single request.
pub const DEFAULT_CHUNK: &str = concat!(
    "The transcript of this conversation is too long to read at once, so it is summarized in parts. ",
    "This is part {part} of {parts} (compaction round {round}). The summary so far covers ",
    "everything before this part.\n\n",
    "<summary-so-far>\n{previous_summary}\n</summary-so-far>\n\n",
    "<transcript-part>\n{transcript}\n</transcript-part>\n\n",
    "Continue from the summary so far: produce one summary covering it and this part. Keep what ",
    "still holds, update what this part changed, and never drop a user requirement, constraint or ",
    "open task.\n\n",
    "Additional instructions from the user: {instructions}\n\n",
    summary_sections!()
);

/// The default prompt for the beginning of a turn whose end is kept verbatim.
pub const DEFAULT_TURN_PREFIX: &str = concat!(
    "The messages below are the beginning of the turn that is still in progress; the rest of the ",
    "turn follows them verbatim in the conversation, so the next agent sees how it continues. ",
    "Summarize only this beginning, for a section titled \"Turn Context (split turn)\" ",
    "(part {part} of {parts}).\n\n",
    "<summary-so-far>\n{previous_summary}\n</summary-so-far>\n\n",
    "<turn-beginning>\n{transcript}\n</turn-beginning>\n\n",
    "State the user's request of this turn (quote it verbatim when short), what was done so far in ",
    "the turn and what was learned (files, results, errors), so that the kept messages make sense. ",
    "When there is a summary so far, extend it rather than repeat it. Output only the summary, ",
    "without a heading, in at most {max_tokens} tokens.\n\n",
    "Additional instructions from the user: {instructions}"
);

/// The default prompt condensing a summary that came out longer than its limit.
pub const DEFAULT_ROLLUP: &str = concat!(
    "The summary below is too long. Condense it to at most {max_tokens} tokens (compaction round ",
    "{round}).\n\n",
    "<summary>\n{previous_summary}\n</summary>\n\n",
    "Keep its section structure. Keep verbatim user requirements and constraints, open tasks, ",
    "absolute file paths, and unresolved errors; shorten descriptions of finished work, merge ",
    "repetitive items and drop detail that no longer matters. Output only the condensed summary.\n\n",
    "Additional instructions from the user: {instructions}"
);

/// The text put in place of an absent value (no previous summary, no instructions).
pub const NONE: &str = "(none)";

/// The prompt templates of a compaction; every field can be replaced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Templates {
    /// The system prompt of every piece.
    pub system: String,
    /// A history in one piece, no earlier summary.
    pub history: String,
    /// A history in one piece merged into an earlier summary.
    pub update: String,
    /// The beginning of a split turn.
    pub turn_prefix: String,
    /// One chunk of a chunked history, continuing the summary so far.
    pub chunk: String,
    /// Condensing an over-long summary.
    pub rollup: String,
}

impl Default for Templates {
    /// The default templates of this module.
    fn default() -> Self {
        Templates {
            system: DEFAULT_SYSTEM.to_string(),
            history: DEFAULT_HISTORY.to_string(),
            update: DEFAULT_UPDATE.to_string(),
            turn_prefix: DEFAULT_TURN_PREFIX.to_string(),
            chunk: DEFAULT_CHUNK.to_string(),
            rollup: DEFAULT_ROLLUP.to_string(),
        }
    }
}

/// Replaces each `{name}` of `template` whose `name` is a key of `vars` by its value, in one pass:
/// text coming from a value is never scanned again (a transcript containing `{round}` stays as it
/// is), and braces that do not form a known placeholder are kept verbatim.
pub fn render(template: &str, vars: &[(&str, &str)]) -> String {
    let mut out =
        String::with_capacity(template.len() + vars.iter().map(|(_, v)| v.len()).sum::<usize>());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let (before, from_brace) = rest.split_at(open);
        out.push_str(before);
        let after = from_brace.get(1..).unwrap_or_default();
        let replaced = after.find('}').and_then(|close| {
            let name = after.get(..close)?;
            let value = vars.iter().find(|(k, _)| *k == name).map(|(_, v)| *v)?;
            Some((value, after.get(close + 1..).unwrap_or_default()))
        });
        match replaced {
            Some((value, tail)) => {
                out.push_str(value);
                rest = tail;
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The heading of the split-turn section of the finished summary (ours).
pub const TURN_CONTEXT_HEADING: &str = "## Turn Context (split turn)";

/// What joins the history summary and the split-turn section by default: [`TURN_CONTEXT_HEADING`]
/// between blank lines.
pub fn default_turn_context() -> String {
    format!("\n\n{TURN_CONTEXT_HEADING}\n\n")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn render_replaces_known_placeholders_once() {
        let out = render("a {x} b {y} {unknown} {", &[("x", "{y}"), ("y", "2")]);
        assert_eq!(out, "a {y} b 2 {unknown} {");
        assert_eq!(render("", &[]), "");
        assert_eq!(render("{x}{x}", &[("x", "é")]), "éé");
    }

    #[test]
    fn defaults_have_their_placeholders_and_sections() {
        let t = Templates::default();
        for s in [&t.history, &t.update, &t.chunk, &t.turn_prefix] {
            assert!(s.contains("{transcript}"));
            assert!(s.contains("{instructions}"));
            assert!(s.contains("{max_tokens}"));
        }
        for s in [&t.update, &t.chunk, &t.rollup, &t.turn_prefix] {
            assert!(s.contains("{previous_summary}"));
        }
        assert!(!t.history.contains("{previous_summary}"));
        for section in [
            "## Goal and constraints",
            "## Progress",
            "## Key decisions",
            "## Files read and modified",
            "## Current state",
            "## Next steps",
            "## Errors and fixes",
        ] {
            assert!(t.history.contains(section), "{section}");
            assert!(t.update.contains(section), "{section}");
            assert!(t.chunk.contains(section), "{section}");
        }
        assert!(t.turn_prefix.contains("Turn Context (split turn)"));
        assert!(t.chunk.contains("{part}") && t.chunk.contains("{parts}"));
    }
}
