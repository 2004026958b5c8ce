//! The results, as plain data, of the free functions that return messages exported in a message
//! format: `importSession` (its two message arrays, the live context sharing the history's values
//! where it can, [`ImportedSession::context_beside_history`], so that the binding converts each
//! value once) and `repairMessages`. The fields are named as the declarations in `js/types/` name
//! them; the binding only builds the JS arrays and puts them in.

use serde_json::{json, Value};

use super::session::{ContextBeside, ImportedSession};
use super::{Codec, Format};
use crate::core::message::Message;
use crate::core::repair::repair;
use crate::core::report::repair_actions;

/// `importSession`'s result, its message arrays apart.
#[derive(Debug, PartialEq)]
pub struct ImportResult {
    /// `{ format, messages: null, history: null, compactions, warnings }` (the binding puts the
    /// two arrays in).
    pub fields: Value,
    /// `history`: every message of the file.
    pub history: Vec<Value>,
    /// The first values of `messages` (the live context): all of them when `shared_from` is
    /// `None`.
    pub head: Vec<Value>,
    /// `messages` goes on with the history's own values from this index on.
    pub shared_from: Option<usize>,
}

/// `importSession`'s result for an imported session file.
pub fn import_result(session: &ImportedSession) -> ImportResult {
    let format = session.format;
    let history = format.export(&session.messages);
    let (head, shared_from) = match session.context_beside_history(history.len()) {
        ContextBeside::Shared { head, start } => (format.export(&head), Some(start)),
        ContextBeside::Own(context) => (format.export(&context), None),
    };
    let fields = json!({"format": format.as_str(), "messages": null, "history": null,
        "compactions": session.compactions_json(), "warnings": session.warnings});
    ImportResult {
        fields,
        history,
        head,
        shared_from,
    }
}

/// `repairMessages`' result, its messages apart.
#[derive(Debug, PartialEq)]
pub struct RepairResult {
    /// `{ actions }` (the binding puts `messages` in).
    pub fields: Value,
    /// The repaired messages, exported in `format`.
    pub messages: Vec<Value>,
}

/// `repairMessages`: `messages` (in `format`) repaired ([`repair`]), with the actions taken.
pub fn repair_result(format: Format, messages: Vec<Message>) -> RepairResult {
    let repaired = repair(messages);
    RepairResult {
        fields: json!({ "actions": repair_actions(&repaired.actions) }),
        messages: format.export(&repaired.messages),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::formats::session_file::{import_text, ReadOptions};

    #[test]
    fn the_context_shares_the_history_after_its_own_summary() {
        let text = concat!(
            "{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":\"a\"}}\n",
            "{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":\"b\"}}\n",
            "{\"type\":\"compaction\",\"summary\":\"S\",\"firstKeptEntryIndex\":1,\"tokensBefore\":1}\n",
            "{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":\"c\"}}\n",
            "{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\""
        );
        let session = import_text(text, "pi", "kind", ReadOptions::default()).unwrap();
        let result = import_result(&session);
        assert_eq!(result.fields["format"], "pi");
        assert_eq!(
            (
                result.fields["messages"].is_null(),
                result.fields["history"].is_null()
            ),
            (true, true)
        );
        assert_eq!(result.fields["compactions"], session.compactions_json());
        assert_eq!(result.fields["warnings"].as_array().map(Vec::len), Some(1));
        let content: Vec<&Value> = result.history.iter().map(|m| &m["content"]).collect();
        assert_eq!(content, ["a", "b", "c"]);
        assert_eq!(result.head.len(), 1);
        assert_eq!(result.head[0]["role"], "compactionSummary");
        assert_eq!(
            result.shared_from,
            Some(1),
            "the kept message and what follows"
        );
    }

    #[test]
    fn a_repair_gives_the_messages_in_their_format_and_the_actions() {
        let messages = json!([
            {"role": "user", "content": "hi"},
            {"role": "tool", "tool_call_id": "orphan", "content": "x"},
        ]);
        let imported = Format::OpenAi.import(&messages).unwrap();
        let result = repair_result(Format::OpenAi, imported.clone());
        assert_eq!(result.messages, [json!({"role": "user", "content": "hi"})]);
        let actions = repair_actions(&repair(imported).actions);
        assert_eq!(result.fields, json!({ "actions": actions }));
        assert_eq!(actions[0]["action"], "removed-result");
    }
}
