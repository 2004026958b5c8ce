//! The prompts of the presets that reproduce an agent's or a seed's own summary (placeholders as in
//! [`super::prompt`]). Where a source document gives the text, it is followed verbatim (seed 000's
//! plan and its quotes of Codex and OpenCode, seed 001, seed 004's input format and sections);
//! Claude Code's prompt opens with the sentence seed 000 quotes and gives the rest of its structure
//! (no tools, `<analysis>` then `<summary>`, nine sections, an example) in our own words. A preset's
//! chunk and rollup templates keep its own prompt, so a transcript cut into chunks is still
//! summarized in the preset's structure. A preset without its own prompt uses the defaults.

use super::prompt::Templates;

/// Seed 000's summarization prompt ("based on Codex, enhanced").
const SEED_000_INSTRUCTIONS: &str = "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary for another LLM that will resume the task.

Include:
- Current progress and key decisions made
- Important context, constraints, or user preferences
- Absolute file paths of any relevant files that were read or modified
- What remains to be done (clear next steps)
- Any critical data, examples, or references needed to continue

Be concise, structured, and focused on helping the next LLM seamlessly continue the work.";

/// Codex's `templates/compact/prompt.md`, as quoted by seed 000.
const CODEX_INSTRUCTIONS: &str = "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary for another LLM that will resume the task.

Include:
- Current progress and key decisions made
- Important context, constraints, or user preferences
- What remains to be done (clear next steps)
- Any critical data, examples, or references needed to continue

Be concise, structured, and focused on helping the next LLM seamlessly continue the work.";

/// OpenCode's `session/prompt/compaction.txt`, as quoted by seed 000.
const OPENCODE_SYSTEM: &str = "You are a helpful AI assistant tasked with summarizing conversations.
When asked to summarize, provide a detailed but concise summary of the conversation.
Focus on information that would be helpful for continuing the conversation, including:
- What was done
- What is currently being worked on
- Which files are being modified
- What needs to be done next
- Key user requests, constraints, or preferences that should persist
- Important technical decisions and why they were made
Your summary should be comprehensive enough to provide context but concise enough to be quickly understood.";

/// OpenCode's final user message of a compaction request, as quoted by seed 000.
const OPENCODE_FINAL: &str = "Summarize our conversation above. This summary will be the only context available when the conversation continues, so preserve critical information including: what was accomplished, current work in progress, files involved, next steps, and any key user requests or constraints. Be concise but detailed enough that work can continue seamlessly.";

/// A system prompt for the presets whose source gives only the user prompt.
const HANDOFF_SYSTEM: &str = "You summarize a conversation between a user and an AI agent so that \
another agent can take over the work from the summary alone. Output only the summary.";

/// The conversation with an earlier summary in front (for prompts that send "the whole history").
const CONVERSATION_WITH_SUMMARY: &str = "<conversation>
[EARLIER SUMMARY]:
{previous_summary}

{transcript}
</conversation>";

const CONVERSATION: &str = "<conversation>
{transcript}
</conversation>";

const INSTRUCTIONS_LINE: &str = "Additional instructions from the user: {instructions}";

/// Seed 000 (pi's plan): the conversation, then the enhanced Codex prompt.
pub fn seed_000() -> Templates {
    appended(SEED_000_INSTRUCTIONS, HANDOFF_SYSTEM)
}

/// Codex: the conversation, then its compaction prompt.
pub fn codex() -> Templates {
    appended(CODEX_INSTRUCTIONS, HANDOFF_SYSTEM)
}

/// OpenCode: its compaction system prompt; the conversation, then its final user message.
pub fn opencode() -> Templates {
    appended(OPENCODE_FINAL, OPENCODE_SYSTEM)
}

/// A preset whose prompt follows the conversation: the same prompt ends every request, whole,
/// chunked or rolled up, so the preset's structure never gives way to the default one.
fn appended(instructions: &str, system: &str) -> Templates {
    let history = format!("{CONVERSATION}\n\n{instructions}\n\n{INSTRUCTIONS_LINE}");
    let update = format!("{CONVERSATION_WITH_SUMMARY}\n\n{instructions}\n\n{INSTRUCTIONS_LINE}");
    let chunk = format!("{CONVERSATION_PART}\n\n{instructions}\n\n{INSTRUCTIONS_LINE}");
    Templates {
        system: system.to_string(),
        history,
        update,
        chunk,
        rollup: rollup(instructions),
        ..Templates::default()
    }
}

/// One part of a conversation too long for one request, after the summary of the parts before it.
const CONVERSATION_PART: &str = "The conversation is too long for one request, so it comes in \
{parts} parts; this is part {part}. The summary so far covers everything before this part: write \
one summary of the whole conversation up to the end of this part, keeping what still holds.

<summary-so-far>
{previous_summary}
</summary-so-far>

<conversation part=\"{part}\" of=\"{parts}\">
{transcript}
</conversation>";

/// Condensing an over-long summary while keeping the structure `instructions` ask for.
fn rollup(instructions: &str) -> String {
    let user = if instructions.contains("{instructions}") {
        String::new()
    } else {
        format!("\n\n{INSTRUCTIONS_LINE}")
    };
    format!(
        "The summary below came out too long. Rewrite it in at most {{max_tokens}} tokens, in the \
structure these instructions ask for, keeping user requirements, open tasks, full file paths and \
unresolved errors and shortening the rest.

<instructions>
{instructions}
</instructions>

<summary-to-condense>
{{previous_summary}}
</summary-to-condense>{user}"
    )
}

/// Claude Code's compaction prompt: its opening sentence as seed 000 quotes it, then its structure
/// in our words: no tools, an `<analysis>` scratchpad before a `<summary>` (the scratchpad is
/// dropped from the stored summary, see [`super::answer`]), the nine sections, an example of the
/// output's shape, and the user's own compact instructions.
const CLAUDE_CODE_INSTRUCTIONS: &str = "Your task is to create a detailed summary of the \
conversation so far, paying close attention to the user's explicit requests and your previous \
actions. It replaces the conversation: whatever it leaves out is lost to the work that follows.

Answer with text only. Do not call any tool: tools are not available for this task, and a tool \
call would end it without a summary.

First think it through inside <analysis> tags: go through the conversation in order and, for \
each part of it, note what the user asked and meant, what you did in response, the decisions \
and code that mattered (file names, signatures, edits), the errors and how they were fixed, and \
any feedback the user gave, above all where they asked you to do something differently. Then \
check what you noted for accuracy and for gaps.

Then write the summary inside <summary> tags, with exactly these nine numbered sections:

1. Primary Request and Intent: everything the user asked for, in detail, including how their \
requests changed.
2. Key Technical Concepts: the technologies, frameworks and ideas the work relies on.
3. Files and Code Sections: each file examined, changed or created, why it matters, and the \
important snippets (full paths).
4. Errors and fixes: every error met, how it was fixed, and any feedback the user gave about it.
5. Problem Solving: problems solved and investigations still under way.
6. All user messages: every message the user wrote that is not a tool result, listed in order.
7. Pending Tasks: what the user asked for that is not done yet.
8. Current Work: precisely what was being worked on right before this summary, with file names \
and snippets.
9. Optional Next Step: the next step, only if it follows directly from the user's latest \
request; quote the latest exchange so that the task is not misread.

The shape of the answer, for example:

<example>
<analysis>
[your walk through the conversation, and the check of what you noted]
</analysis>

<summary>
1. Primary Request and Intent:
   [what the user asked for]

2. Key Technical Concepts:
   - [concept]

3. Files and Code Sections:
   - [full path of a file]
      - [why it matters and what changed]
      - [the important snippet]

4. Errors and fixes:
   - [the error]: [how it was fixed; what the user said about it]

5. Problem Solving:
   [solved problems and open investigations]

6. All user messages:
   - [each user message, in order]

7. Pending Tasks:
   - [task]

8. Current Work:
   [what was being done right before the summary]

9. Optional Next Step:
   [the next step, with the quote it follows from]
</summary>
</example>

The conversation may also hold the user's own instructions for this summary (for example a \
\"Compact Instructions\" section in a project's instructions); follow them as well. Output only \
the analysis and the summary, in at most {max_tokens} tokens.";

/// Claude Code's system prompt, in our words.
const CLAUDE_CODE_SYSTEM: &str = "You are an AI assistant whose only task here is to summarize \
a conversation so that the work can go on from the summary alone.";

/// Claude Code: the conversation, then its compaction prompt; chunks and the rollup keep it.
pub fn claude_code() -> Templates {
    appended(CLAUDE_CODE_INSTRUCTIONS, CLAUDE_CODE_SYSTEM)
}

/// Seed 001's system prompt.
const SEED_001_SYSTEM: &str = "You are summarizing a coding agent's conversation history.
Your summary will replace the compacted messages, so preserve ALL information 
needed to continue the task successfully.

CRITICAL: Be thorough but concise. Missing information cannot be recovered.";

/// Seed 001's user prompt after its previous-summary section.
const SEED_001_BODY: &str = "## Original User Task
{original_task}

## Messages to Summarize
{transcript}

## Instructions
Create a summary with these EXACT sections:

### Session Summary (Compaction Round {round})

#### Original Task
[Preserve the user's original request verbatim]

#### Completed Work
| File/Component | Action | Description |
|----------------|--------|-------------|
[List each file touched with what was done]

#### Key Technical Decisions
- [Bullet list of choices that affect future work]
- [Include dependencies installed, patterns used, etc.]

#### Current State
- Working on: [what's in progress]
- Last completed: [most recent accomplishment]

#### Pending Work
- [ ] [Remaining items as checklist]

#### Errors & Resolutions
[Only include if errors were encountered. Format: error → resolution]

## Constraints
- Maximum 800 tokens
- Use tables and bullet points for density
- Include exact file paths
- No code blocks unless absolutely critical
- If previous summary exists, INTEGRATE (don't duplicate) its content

## Additional Instructions
{instructions}";

/// Seed 001: its system prompt and its structured template, round header included.
pub fn seed_001() -> Templates {
    Templates {
        system: SEED_001_SYSTEM.to_string(),
        history: format!(
            "## Previous Summary\nNone - this is the first compaction round.\n\n{SEED_001_BODY}"
        ),
        update: format!("## Previous Summary\n{{previous_summary}}\n\n{SEED_001_BODY}"),
        chunk: format!(
            "## Previous Summary\n{{previous_summary}}\n\n{SEED_001_PART}\n\n{SEED_001_BODY}"
        ),
        rollup: rollup(seed_001_instructions()),
        ..Templates::default()
    }
}

/// Where a chunk of seed 001's messages stands (the seed does not chunk; this says which part the
/// messages are when the transcript does not fit the summarizer).
const SEED_001_PART: &str = "The messages to summarize are too many for one request: these are \
part {part} of {parts}, and the previous summary covers the parts before them. Integrate them \
into it.";

/// Seed 001's instructions and constraints (its template from `## Instructions` on).
fn seed_001_instructions() -> &'static str {
    SEED_001_BODY
        .find("## Instructions")
        .and_then(|at| SEED_001_BODY.get(at..))
        .unwrap_or(SEED_001_BODY)
}

/// What the context compacter of seed 004 is.
const SEED_004_SYSTEM: &str = "You are the context compacter of an agent runtime. You receive \
the summary of the conversation so far, the workstream state, and the messages that are being \
compacted. You produce the replacement summary that the agent will see instead of those \
messages, and the workstream state delta: the changes those messages make to the workstream \
state. Output only the summary and the delta.";

/// Seed 004's sections and what goes into them.
const SEED_004_SECTIONS: &str = "Write one replacement summary that merges the previous summary \
with the new messages, in plain text with exactly these three sections:

KEY FACTS:
- durable facts, decisions, constraints and preferences, with exact names, identifiers and numbers

CONVERSATION FLOW:
- what happened, in order, most recent last

OPEN THREADS:
- questions, tasks and promises that are still open

Keep every fact from the previous summary that still holds. At most {max_tokens} tokens.

Then write the workstream state delta: a line WORKSTREAM STATE DELTA: followed by one JSON object \
with only the fields that change, each an array of short strings: \"decisions\" (key decisions), \
\"constraints\" (active constraints), \"tasks\", \"openQuestions\", \"risks\", \"artifacts\" and \
\"contributions\" (what each agent contributed) for items to add, and \"remove\" (an object with \
the same fields) for items of the existing workstream state that no longer hold. Write {} when \
nothing changes.

Additional instructions: {instructions}";

/// Seed 004's input format.
const SEED_004_INPUT: &str = "<context-compaction-input>
<previous-summary>
{previous_summary}
</previous-summary>
<existing-workstream-state>
{state}
</existing-workstream-state>
<new-messages>
{transcript}
</new-messages>
</context-compaction-input>";

/// Seed 004: the XML-tagged input, the KEY FACTS / CONVERSATION FLOW / OPEN THREADS sections and
/// the workstream state delta after a `WORKSTREAM STATE DELTA:` line (the fields and limits of
/// [`crate::core::session::workstream`]); every chunk uses the same input, building on the summary
/// so far.
pub fn seed_004() -> Templates {
    let prompt = format!("{SEED_004_INPUT}\n\n{SEED_004_SECTIONS}");
    Templates {
        system: SEED_004_SYSTEM.to_string(),
        history: prompt.clone(),
        update: prompt.clone(),
        chunk: prompt,
        rollup: "The summary below is too long. Condense it to at most {max_tokens} tokens, \
keeping its three sections KEY FACTS:, CONVERSATION FLOW: and OPEN THREADS:, every open thread \
and every fact that still matters.\n\n<previous-summary>\n{previous_summary}\n</previous-summary>\n\n\
Additional instructions: {instructions}"
            .to_string(),
        ..Templates::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_keeps_its_placeholders() {
        for t in [
            seed_000(),
            codex(),
            opencode(),
            claude_code(),
            seed_001(),
            seed_004(),
        ] {
            assert!(t.history.contains("{transcript}"));
            assert!(t.update.contains("{transcript}"));
            assert!(t.update.contains("{previous_summary}"));
            assert!(t.history.contains("{instructions}"));
            assert!(t.update.contains("{instructions}"));
        }
        assert!(seed_001().history.contains("{original_task}"));
    }

    #[test]
    fn chunks_and_rollups_keep_the_presets_structure() {
        let cases = [
            (seed_000(), "Absolute file paths of any relevant files"),
            (codex(), "CONTEXT CHECKPOINT COMPACTION"),
            (opencode(), "Summarize our conversation above."),
            (claude_code(), "9. Optional Next Step"),
            (seed_001(), "### Session Summary (Compaction Round {round})"),
        ];
        for (t, marker) in cases {
            for (name, template) in [
                ("history", &t.history),
                ("chunk", &t.chunk),
                ("rollup", &t.rollup),
            ] {
                assert!(template.contains(marker), "{name} lacks {marker}");
            }
            assert!(t.chunk.contains("{part}") && t.chunk.contains("{parts}"));
            assert!(t.chunk.contains("{transcript}") && t.chunk.contains("{previous_summary}"));
            assert!(t.rollup.contains("{previous_summary}") && t.rollup.contains("{max_tokens}"));
            assert_eq!(t.rollup.matches("{instructions}").count(), 1);
            assert_ne!(t.chunk, Templates::default().chunk);
        }
        let claude = claude_code().history;
        for part in [
            "<analysis>",
            "<summary>",
            "<example>",
            "Do not call any tool",
        ] {
            assert!(claude.contains(part), "{part}");
        }
        assert!(seed_004().history.contains("{state}"));
    }

    #[test]
    fn seed_004_asks_for_the_state_delta_the_merge_reads() {
        use crate::core::session::workstream::{DELTA_MARKER, FIELDS};
        for prompt in [seed_004().history, seed_004().update, seed_004().chunk] {
            assert!(prompt.contains(&format!("a line {DELTA_MARKER} followed by")));
            for (name, _, _) in FIELDS {
                assert!(prompt.contains(&format!("\"{name}\"")), "{name}");
            }
            assert!(prompt.contains("\"remove\""));
        }
        assert!(seed_004().system.contains("workstream state delta"));
    }
}
