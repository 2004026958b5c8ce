//! The prompts of the presets that reproduce an agent's or a seed's own summary (placeholders as in
//! [`super::prompt`]). Where a source document gives the text, it is followed verbatim (seed 000's
//! plan and its quotes of Codex and OpenCode, seed 001, seed 004's input format and sections);
//! Claude Code's nine-section structure is written in our own words. A preset without its own
//! prompt uses the defaults.

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

fn appended(instructions: &str, system: &str) -> Templates {
    let history = format!("{CONVERSATION}\n\n{instructions}\n\n{INSTRUCTIONS_LINE}");
    let update = format!("{CONVERSATION_WITH_SUMMARY}\n\n{instructions}\n\n{INSTRUCTIONS_LINE}");
    Templates {
        system: system.to_string(),
        history,
        update,
        ..Templates::default()
    }
}

/// Claude Code's nine sections, in our words.
const CLAUDE_CODE_SECTIONS: &str = "Write a detailed summary of the conversation so far, paying \
close attention to what the user explicitly asked for and to what you did in response. It \
replaces the conversation: whatever it leaves out is lost. Use exactly these nine numbered \
sections:

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

Do not answer or continue the conversation; output only the summary, in at most {max_tokens} \
tokens.";

/// Claude Code: a nine-section summary.
pub fn claude_code() -> Templates {
    let history = format!("{CONVERSATION}\n\n{CLAUDE_CODE_SECTIONS}\n\n{INSTRUCTIONS_LINE}");
    let update =
        format!("{CONVERSATION_WITH_SUMMARY}\n\n{CLAUDE_CODE_SECTIONS}\n\n{INSTRUCTIONS_LINE}");
    Templates {
        system: HANDOFF_SYSTEM.to_string(),
        history,
        update,
        ..Templates::default()
    }
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
        ..Templates::default()
    }
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
