//! Summary messages: how a summary is written into its message ([`wrap`]) and how an earlier one is
//! recognized again ([`Recognizer`]), whoever wrote it, so that the next compaction folds it in and
//! continues its round numbering.
//!
//! A summary message is `prefix + body + [later-rounds note] + suffix` (see
//! [`SummaryStyle`]); `{round}` in the prefix or suffix is the round. A message is recognized as a
//! summary when, after leading whitespace, it starts with a known prefix, or ends with a known
//! suffix that carries the round, or when it answers a known summary question (OpenCode's "What did
//! we do so far?", seed 002's shadow prompt), the question itself included. Known are: the
//! configured style first, then every preset's, then the openings other agents use.
//!
//! Where a message is recognized: only at the head of an array ([`Recognizer::mark_leading`]),
//! where a compaction puts its summary, and in a Session only while its log holds nothing but
//! system messages; a Session's own summaries are its compaction entries.
//!
//! The round of a recognized summary ([`Recognizer::round`]) is read only where the package writes
//! it: a `{round}` slot of a known prefix or suffix, a round phrase in the first line
//! (`compaction round N`, seed 001's `Session Summary (Round N)` or `(Compaction Round N)`), or a
//! later-rounds note at the end ("incorporates context from N previous compaction rounds": round
//! N + 1); the largest number found wins.

use std::sync::OnceLock;

use crate::core::message::{Message, Part, Role};
use crate::core::preset::Preset;
use crate::core::settings::SummaryStyle;

use super::prompt::render;

/// Openings of summaries written by agents that no preset reproduces exactly (and older forms).
const OTHER_PREFIXES: &[&str] = &[
    // pi, without and with its <summary> tags, and its branch summaries
    "The conversation history before this point was compacted into the following summary",
    "The following is a summary of a branch that this conversation came back from",
    // Claude Code
    "This session is being continued from a previous conversation",
    // Codex
    "Another language model started to solve this problem and produced a summary",
    // LangChain
    "Here is a summary of the conversation to date:",
    // seed 001, any heading level and round form
    "## Session Summary",
    "### Session Summary",
    // seed 004
    "Compacted context summary:",
];

/// The prefixes, suffixes and questions by which summaries are recognized.
#[derive(Clone, Debug, Default)]
pub struct Recognizer {
    /// `(prefix, suffix)` templates, in order of preference.
    frames: Vec<(String, String)>,
    /// Later-rounds notes (templates with `{previous_rounds}`).
    notes: Vec<String>,
    /// Exact texts of summary questions.
    questions: Vec<String>,
}

impl Recognizer {
    /// Every preset's style and the other agents' openings.
    pub fn standard() -> &'static Recognizer {
        static STANDARD: OnceLock<Recognizer> = OnceLock::new();
        STANDARD.get_or_init(|| {
            let mut r = Recognizer::default();
            for preset in Preset::ALL {
                r.add(&preset.summary_style());
            }
            for prefix in OTHER_PREFIXES {
                r.frames.push(((*prefix).to_string(), String::new()));
            }
            r.add(&crate::core::settings::Settings::new(200_000).summary);
            r.questions
                .push(crate::core::settings::SHADOW_PROMPT.to_string());
            r
        })
    }

    /// `style` first, then [`Recognizer::standard`].
    pub fn with(style: &SummaryStyle) -> Recognizer {
        let standard = Recognizer::standard();
        let mut r = Recognizer::default();
        r.add(style);
        r.frames.extend(standard.frames.iter().cloned());
        r.notes.extend(standard.notes.iter().cloned());
        r.questions.extend(standard.questions.iter().cloned());
        r
    }

    fn add(&mut self, style: &SummaryStyle) {
        let frame = (style.prefix.clone(), style.suffix.clone());
        if !self.frames.contains(&frame) {
            self.frames.push(frame);
        }
        if let Some(note) = &style.later_rounds_note {
            if !self.notes.contains(note) {
                self.notes.push(note.clone());
            }
        }
        if let Some(q) = &style.question {
            let q = q.trim().to_string();
            if !q.is_empty() && !self.questions.contains(&q) {
                self.questions.push(q);
            }
        }
    }

    /// True when `text` is the opening or the closing of a known summary.
    pub fn is_summary_text(&self, text: &str) -> bool {
        self.frames.iter().any(|(prefix, suffix)| {
            (!prefix.trim().is_empty() && match_start(text, prefix).is_some())
                || (suffix.contains("{round}") && match_end(text, suffix).is_some())
        })
    }

    /// True when `text` is exactly a known summary question.
    pub fn is_question(&self, text: &str) -> bool {
        let t = text.trim();
        !t.is_empty() && self.questions.iter().any(|q| q == t)
    }

    /// Sets [`Message::summary`] on a user, assistant or system message without tool data whose
    /// text is a known summary or a known summary question.
    pub fn mark(&self, message: &mut Message) {
        if message.summary || !eligible(message) {
            return;
        }
        let text = message.plain_text();
        if self.is_summary_text(&text) || (message.role == Role::User && self.is_question(&text)) {
            message.summary = true;
        }
    }

    /// [`Recognizer::mark`] on every message, then marks the answer that follows a summary
    /// question (an assistant message without tool data).
    pub fn mark_all(&self, messages: &mut [Message]) {
        for m in messages.iter_mut() {
            self.mark(m);
        }
        self.pair_answers(messages);
    }

    /// Marks the summary a compaction put at the head of an array (position and framing): the
    /// first message after the leading system messages, or a system message among them (seed
    /// 004's system-role summary), when its text is a known summary; or a summary question there
    /// and the assistant answer right after it. Text anywhere else is never taken for a summary,
    /// whatever it looks like (issue 23: a user message that merely starts with a summary prefix
    /// swallowed everything before it). Marks already set (an agent file's own compaction
    /// records) stay.
    pub fn mark_leading(&self, messages: &mut [Message]) {
        let mut i = 0usize;
        while let Some(m) = messages.get_mut(i) {
            if !m.summary {
                if m.role == Role::System {
                    if eligible(m) && self.is_summary_text(&m.plain_text()) {
                        m.summary = true;
                    } else {
                        i += 1;
                        continue;
                    }
                } else {
                    self.mark(m);
                }
            }
            let asked = messages.get(i).is_some_and(|m| self.asks(m));
            if let Some(answer) = messages.get_mut(i + 1) {
                Recognizer::answer(asked, answer);
            }
            return;
        }
    }

    /// Marks the assistant message right after each summary question as a summary.
    pub fn pair_answers(&self, messages: &mut [Message]) {
        for i in 1..messages.len() {
            let asked = messages.get(i - 1).is_some_and(|q| self.asks(q));
            if let Some(answer) = messages.get_mut(i) {
                Recognizer::answer(asked, answer);
            }
        }
    }

    /// True when `message` is a summary question (a user message that asks for the summary).
    pub fn asks(&self, message: &Message) -> bool {
        message.summary && message.role == Role::User && self.is_question(&message.plain_text())
    }

    /// Marks `message` as a summary when it answers a summary question (`asked`: the message
    /// before it is one) and is an assistant message without tool data.
    pub fn answer(asked: bool, message: &mut Message) {
        if asked && message.role == Role::Assistant && eligible(message) {
            message.summary = true;
        }
    }

    /// The body of a summary text: without its prefix, suffix and later-rounds note.
    pub fn body(&self, text: &str) -> String {
        let mut t = text.trim();
        for (prefix, _) in &self.frames {
            if prefix.trim().is_empty() {
                continue;
            }
            if let Some((rest, _)) = match_start(t, prefix) {
                t = rest.trim();
                // Another agent's opening is matched by its first words only: the rest of its
                // line belongs to it too, not to the body.
                if OTHER_PREFIXES.contains(&prefix.as_str()) && !rest.starts_with(['\n', '\r']) {
                    if let Some((_, body)) = rest.split_once('\n') {
                        if !body.trim().is_empty() {
                            t = body.trim();
                        }
                    }
                }
                break;
            }
        }
        for (_, suffix) in &self.frames {
            if suffix.trim().is_empty() {
                continue;
            }
            if let Some((rest, _)) = match_end(t, suffix) {
                t = rest.trim();
                break;
            }
        }
        for note in &self.notes {
            let template = note.replace("{previous_rounds}", "{round}");
            if let Some((rest, _)) = match_end(t, &template) {
                t = rest.trim();
                break;
            }
        }
        t.to_string()
    }

    /// The round of a summary text, read only where the package writes it: a known frame's
    /// `{round}` slot at the start or the end, a round phrase in the first line (seed 001's
    /// heading), or a later-rounds note at the end (its previous rounds + 1). The body is never
    /// read (issue 23: a summary quoting "(compaction round 999)" made the next round 1000).
    /// `None` when none names one.
    pub fn round(&self, text: &str) -> Option<u32> {
        let slots = self.frames.iter().flat_map(|(prefix, suffix)| {
            let start = match_start(text, prefix).and_then(|(_, r)| r);
            let end = match_end(text, suffix).and_then(|(_, r)| r);
            [start, end]
        });
        let first_line = text.trim_start().lines().next().unwrap_or_default();
        let unframed = self.frames.iter().fold(text.trim(), |t, (_, suffix)| {
            match_end(t, suffix).map_or(t, |(rest, _)| rest.trim())
        });
        let notes = self.notes.iter().filter_map(|note| {
            let template = note.replace("{previous_rounds}", "{round}");
            match_end(unframed, &template).and_then(|(_, n)| n.map(|n| n.saturating_add(1)))
        });
        slots
            .flatten()
            .chain(round_of(first_line))
            .chain(notes)
            .max()
    }
}

/// A message that can be a summary: not a tool message, no tool calls or results.
fn eligible(message: &Message) -> bool {
    message.role != Role::Tool && !message.parts.iter().any(Part::is_tool_data)
}

/// The round named by a round phrase in `text` (see the module documentation); the largest wins.
pub fn round_of(text: &str) -> Option<u32> {
    let lower = text.to_ascii_lowercase();
    let mut best: Option<u32> = None;
    let mut found = |n: Option<u32>| {
        if let Some(n) = n {
            best = Some(best.map_or(n, |b| b.max(n)));
        }
    };
    for phrase in ["compaction round ", "summary (round "] {
        for (at, _) in lower.match_indices(phrase) {
            found(leading_number(
                lower.get(at + phrase.len()..).unwrap_or_default(),
            ));
        }
    }
    let phrase = "incorporates context from ";
    for (at, _) in lower.match_indices(phrase) {
        let rest = lower.get(at + phrase.len()..).unwrap_or_default();
        if let Some(n) = leading_number(rest) {
            let digits = n.to_string().len();
            if rest
                .get(digits..)
                .is_some_and(|r| r.trim_start().starts_with("previous compaction round"))
            {
                found(Some(n.saturating_add(1)));
            }
        }
    }
    best
}

fn leading_number(s: &str) -> Option<u32> {
    let digits: String = s.chars().take_while(char::is_ascii_digit).take(9).collect();
    digits.parse().ok()
}

/// Matches `template` (with an optional `{round}` slot) at the start of `text` (leading whitespace
/// of both ignored): the rest of the text and the round in the slot.
fn match_start<'t>(text: &'t str, template: &str) -> Option<(&'t str, Option<u32>)> {
    let template = template.trim_start();
    let text = text.trim_start();
    match template.split_once("{round}") {
        None => {
            let t = template.trim_end();
            text.strip_prefix(t).map(|rest| (rest, None))
        }
        Some((before, after)) => {
            let rest = text.strip_prefix(before)?;
            let n = leading_number(rest)?;
            let rest = rest.get(n.to_string().len()..)?;
            let after = after.trim_end();
            rest.strip_prefix(after).map(|r| (r, Some(n)))
        }
    }
}

/// Matches `template` (with an optional `{round}` slot) at the end of `text` (trailing whitespace
/// of both ignored): the text before it and the round in the slot.
fn match_end<'t>(text: &'t str, template: &str) -> Option<(&'t str, Option<u32>)> {
    let template = template.trim();
    let text = text.trim_end();
    if template.is_empty() {
        return None;
    }
    match template.split_once("{round}") {
        None => text.strip_suffix(template).map(|rest| (rest, None)),
        Some((before, after)) => {
            let rest = text.strip_suffix(after)?;
            let digits = rest.chars().rev().take_while(char::is_ascii_digit).count();
            let split = rest.len().checked_sub(digits)?;
            let n: u32 = rest.get(split..)?.parse().ok()?;
            rest.get(..split)?
                .strip_suffix(before)
                .map(|r| (r, Some(n)))
        }
    }
}

/// The text of the summary message for `body` in round `round`: the style's prefix, the body (its
/// first line dropped when it only repeats the prefix's heading), the later-rounds note from round
/// 2 on, and the suffix.
pub fn wrap(style: &SummaryStyle, body: &str, round: u32) -> String {
    let round_text = round.to_string();
    let vars = [("round", round_text.as_str())];
    let prefix = render(&style.prefix, &vars);
    let mut body = body.trim();
    if let (Some(heading), Some((first, rest))) = (prefix.lines().next(), body.split_once('\n')) {
        if same_heading(heading, first) {
            body = rest.trim_start();
        }
    }
    let mut out = String::with_capacity(prefix.len() + body.len() + style.suffix.len() + 80);
    out.push_str(&prefix);
    out.push_str(body);
    if let (true, Some(note)) = (round > 1, &style.later_rounds_note) {
        let previous = (round - 1).to_string();
        out.push_str("\n\n");
        out.push_str(&render(note, &[("previous_rounds", previous.as_str())]));
    }
    out.push_str(&render(&style.suffix, &vars));
    out
}

/// Two Markdown headings with the same words before any parenthesis (`## Session Summary (Round
/// 2)` and `### Session Summary (Compaction Round 2)`).
fn same_heading(a: &str, b: &str) -> bool {
    let key = |s: &str| -> Option<String> {
        let s = s.trim();
        if !s.starts_with('#') {
            return None;
        }
        let s = s.trim_start_matches('#');
        let s = s.split('(').next().unwrap_or_default().trim();
        (!s.is_empty()).then(|| s.to_lowercase())
    };
    matches!((key(a), key(b)), (Some(x), Some(y)) if x == y)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::core::settings::ROUND_MARKER;

    fn style(prefix: &str, suffix: &str) -> SummaryStyle {
        SummaryStyle {
            role: Role::User,
            prefix: prefix.into(),
            suffix: suffix.into(),
            later_rounds_note: None,
            question: None,
            continue_message: None,
            turn_context: crate::core::summary::prompt::default_turn_context(),
        }
    }

    #[test]
    fn wrapped_summaries_are_recognized_with_body_and_round() {
        let s = style("My summary ({round}):\n", ROUND_MARKER);
        let text = wrap(&s, "  the body \n", 3);
        assert_eq!(text, "My summary (3):\nthe body\n\n(compaction round 3)");
        let r = Recognizer::with(&s);
        assert!(r.is_summary_text(&text));
        assert_eq!(r.body(&text), "the body");
        assert_eq!(r.round(&text), Some(3));
        assert!(!Recognizer::standard().is_summary_text("My summary (3):\nthe body"));
    }

    #[test]
    fn seed_001_headings_and_notes() {
        let s = Preset::Seed001.summary_style();
        let text = wrap(
            &s,
            "### Session Summary (Compaction Round 4)\n### Original Task\nBuild it",
            4,
        );
        assert!(text.starts_with("## Session Summary (Compaction Round 4)\n\n### Original Task"));
        assert!(text.contains("incorporates context from 3 previous compaction rounds"));
        let r = Recognizer::standard();
        assert_eq!(r.round(&text), Some(4));
        assert_eq!(r.body(&text), "### Original Task\nBuild it");
        // The seed's own example heading.
        assert!(r.is_summary_text("## Session Summary (Round 3)\n..."));
        assert_eq!(r.round("## Session Summary (Round 3)\n..."), Some(3));
        assert_eq!(
            round_of("This summary incorporates context from 2 previous compaction rounds."),
            Some(3)
        );
    }

    #[test]
    fn questions_mark_their_answers() {
        let mut s = style("", "");
        s.question = Some("What happened?".into());
        let r = Recognizer::with(&s);
        let mut ms = vec![
            Message::text(Role::System, "sys"),
            Message::text(Role::User, "What happened?"),
            Message::text(Role::Assistant, "We did things."),
            Message::text(Role::User, "next"),
        ];
        r.mark_all(&mut ms);
        let flags: Vec<bool> = ms.iter().map(|m| m.summary).collect();
        assert_eq!(flags, [false, true, true, false]);
        assert!(Recognizer::standard().is_question("What did we do so far?"));
    }

    #[test]
    fn garbage_never_panics() {
        let r = Recognizer::standard();
        for t in [
            "",
            "{round}",
            "(compaction round 99999999999999)",
            "é(compaction round ",
            "9",
        ] {
            let _ = r.round(t);
            let _ = r.body(t);
            let _ = r.is_summary_text(t);
        }
        assert_eq!(match_end("x 12", "x {round}"), Some(("", Some(12))));
        assert_eq!(match_start("x 12 y", "x {round} y"), Some(("", Some(12))));
    }
}
