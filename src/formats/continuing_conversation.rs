//! The conversation of a compaction's continuing summary requests ([`Continuing`]), built once per
//! compaction from the caller's message values (kept as the host's values: [`conversation`] changes
//! only what the cache marker rule changes), and the fields each request gets from it: its mode,
//! and for a continuing one the instruction sent after the conversation
//! ([`piece_mode`] decides both).

use serde_json::Value;

use super::continuation::conversation;
use super::Format;
use crate::core::settings::Settings;
use crate::core::summary::continuation::{piece_mode, SummaryMode};
use crate::core::summary::job::PieceRequest;

/// The conversation of a compaction's continuing requests, in the host's values `V`.
pub struct Continuing<V> {
    /// The caller's messages, ready to send before the instruction.
    pub conversation: V,
    /// Their estimated tokens.
    pub tokens: usize,
}

impl<V> Continuing<V> {
    /// The conversation of `values` (the caller's messages, in `format`; `tokens` estimated):
    /// `None` when `settings` ask for the transcript, or when a message cannot be read as JSON
    /// (`json_of` gives `None`: the transcript then). `value_of` makes a changed message's value.
    pub fn of<T>(
        settings: &Settings,
        values: Vec<T>,
        json_of: impl Fn(&T) -> Option<Value>,
        value_of: impl Fn(&Value) -> T,
        format: Format,
        tokens: usize,
    ) -> Option<Self>
    where
        V: FromIterator<T>,
    {
        if settings.summary_mode != SummaryMode::Continue {
            return None;
        }
        let values = conversation(values, json_of, value_of, format)?;
        Some(Continuing {
            conversation: values.into_iter().collect(),
            tokens,
        })
    }

    /// The mode of `piece`'s request, with for a continuing one its instruction and the
    /// conversation to send before it; `count` estimates a text's tokens. Without a conversation
    /// (`this` is `None`), the transcript.
    pub fn request<'a>(
        this: Option<&'a Self>,
        settings: &Settings,
        piece: &PieceRequest,
        count: &dyn Fn(&str) -> usize,
    ) -> (SummaryMode, Option<(String, &'a V)>) {
        let (mode, instruction) = piece_mode(settings, piece, this.map(|c| c.tokens), count);
        (
            mode,
            instruction.zip(this).map(|(t, c)| (t, &c.conversation)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::summary::job::{PieceId, Purpose};
    use serde_json::json;

    fn piece() -> PieceRequest {
        PieceRequest {
            id: PieceId(0),
            purpose: Purpose::History,
            system: String::new(),
            prompt: String::new(),
            transcript: String::new(),
            message_indices: Vec::new(),
            previous_summary: None,
            instructions: Some("keep the SQL".into()),
            max_tokens: 1_000,
            round: 1,
        }
    }

    #[test]
    fn a_conversation_is_built_only_in_the_continue_mode_from_readable_messages() {
        let mut settings = Settings::new(10_000);
        let values = || vec![json!({"role": "user", "content": "hi"})];
        let same = |v: &Value| Some(v.clone());
        let of = |settings: &Settings, json_of: &dyn Fn(&Value) -> Option<Value>| {
            Continuing::<Vec<Value>>::of(
                settings,
                values(),
                json_of,
                Value::clone,
                Format::OpenAi,
                7,
            )
        };
        // The options ask for the transcript (the default).
        assert!(of(&settings, &same).is_none());
        settings.summary_mode = SummaryMode::Continue;
        let built = of(&settings, &same);
        assert!(built
            .as_ref()
            .is_some_and(|c| c.tokens == 7 && c.conversation == values()));
        // A message that cannot be read: the transcript.
        assert!(of(&settings, &|_| None).is_none());
    }

    #[test]
    fn a_request_continues_with_the_conversation_only_when_there_is_one_and_it_fits() {
        let mut settings = Settings::new(10_000);
        settings.summary_mode = SummaryMode::Continue;
        let count = |t: &str| t.len() / 4;
        let small = Continuing {
            conversation: "the conversation",
            tokens: 2_000,
        };
        let (mode, sent) = Continuing::request(Some(&small), &settings, &piece(), &count);
        assert_eq!(mode, SummaryMode::Continue);
        let sent = sent.map(|(text, conversation)| (text.contains("keep the SQL"), *conversation));
        assert_eq!(sent, Some((true, "the conversation")));
        // Too long to leave room for the answer, or no conversation: the transcript alone.
        let big = Continuing {
            tokens: 9_500,
            ..small
        };
        let none = Continuing::<&str>::request(None, &settings, &piece(), &count);
        for (mode, sent) in [
            Continuing::request(Some(&big), &settings, &piece(), &count),
            none,
        ] {
            assert_eq!(mode, SummaryMode::Transcript);
            assert!(sent.is_none());
        }
    }
}
