//! The compacted context as the values a call returns, in the caller's format: a message the
//! compaction left as it was is the caller's own object (named by its index), every other one is
//! exported in the caller's format, with the index of the caller's message it was changed from
//! (the binding puts that message's binary values back). The binding turns each into JS.

use serde_json::Value;

use super::{Codec, Format};
use crate::core::render::{Origin, Rendered};

/// One value of the returned array.
#[derive(Debug, PartialEq)]
pub enum Out {
    /// The caller's message at this index, as it is.
    Same(usize),
    /// A message exported in the caller's format; `Some(index)` of the caller's message it was
    /// changed from, `None` for a message the package made.
    Exported(Value, Option<usize>),
}

/// `rendered` as the returned values, in order (a message may export as several values; one left
/// as it was takes no allocation).
pub fn outgoing(format: Format, rendered: &[Rendered]) -> impl Iterator<Item = Out> + '_ {
    rendered.iter().flat_map(move |r| {
        let (same, exported, changed) = match r.origin {
            Origin::Input(i) => (Some(Out::Same(i)), Vec::new(), None),
            Origin::Changed(i) => (
                None,
                format.export(std::slice::from_ref(&r.message)),
                Some(i),
            ),
            Origin::New => (None, format.export(std::slice::from_ref(&r.message)), None),
        };
        let exported = exported.into_iter().map(move |v| Out::Exported(v, changed));
        same.into_iter().chain(exported)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::message::{Message, Role};
    use serde_json::json;

    fn rendered(text: &str, origin: Origin) -> Rendered {
        let message = Message::text(Role::User, text.to_string());
        Rendered { message, origin }
    }

    #[test]
    fn unchanged_messages_are_named_and_the_others_exported_in_the_callers_format() {
        let context = [
            rendered("summary", Origin::New),
            rendered("kept", Origin::Input(4)),
            rendered("pruned", Origin::Changed(5)),
        ];
        let out: Vec<Out> = outgoing(Format::OpenAi, &context).collect();
        let user = |text: &str| json!({ "role": "user", "content": text });
        assert_eq!(
            out,
            [
                Out::Exported(user("summary"), None),
                Out::Same(4),
                Out::Exported(user("pruned"), Some(5)),
            ]
        );
    }
}
