//! A session's messages as the binding's values (`T`: a JS value in the binding), in the
//! session's format: each [`Slot`] of an entry gives the object kept for the entry
//! ([`EntryObjects`]), or one made from the logged message and kept from then on; an exported
//! slot gives its message as it is. [`live_values`] is the live context so given out, and
//! [`render`] the `render()` result around it, `cache_control` markers placed by [`Render::mark`].

use serde_json::Value;

use super::session_context::{
    cache_markers, entry_value, format_of, live_slots, render_result, Slot,
};
use super::Format;
use crate::core::message::Original;
use crate::core::session::cache_points::RenderOptions;
use crate::core::session::objects::EntryObjects;
use crate::core::session::CachePoint;
use crate::core::session::Session;

/// How the binding makes its value of a message: from the text of the object it was read from
/// (`original`), or from a message in the session's format (`exported`).
pub struct Make<'a, T> {
    pub original: &'a dyn Fn(&Original) -> T,
    pub exported: &'a dyn Fn(&Value) -> T,
}

/// The values of `slots` (of `session` in `format`; `None`: an empty session, whose entry
/// slots give the value of `null`).
pub fn slot_values<T: Clone>(
    session: Option<&Session>,
    objects: &mut EntryObjects<T>,
    slots: Vec<Slot>,
    format: Format,
    make: &Make<'_, T>,
) -> Vec<T> {
    let mut value = |slot| match slot {
        Slot::Exported(v) => (make.exported)(&v),
        Slot::Entry(i) => objects.get_or_make(i, || match session {
            None => (make.exported)(&Value::Null),
            Some(s) => match entry_value(s, i, format) {
                Ok(original) => (make.original)(&original),
                Err(exported) => (make.exported)(&exported),
            },
        }),
    };
    slots.into_iter().map(&mut value).collect()
}

/// The live context's values ([`live_slots`]); none while the format is not known (`given`:
/// the options' format) or the session is empty.
pub fn live_values<T: Clone>(
    session: Option<&Session>,
    given: Option<Format>,
    objects: &mut EntryObjects<T>,
    make: &Make<'_, T>,
) -> Vec<T> {
    match (format_of(session, given), session) {
        (Some(format), Some(s)) => {
            slot_values(session, objects, live_slots(s, format), format, make)
        }
        _ => Vec::new(),
    }
}

/// A session's render: its live context as the binding's values, the result's other fields
/// ([`render_result`]), and what placing the cache markers needs.
pub struct Render<T> {
    pub messages: Vec<T>,
    pub result: Value,
    points: Vec<CachePoint>,
    format: Option<Format>,
}

/// The render of `session` (`given`: the options' format), the caller's objects kept in
/// `objects`; the markers are placed apart ([`Render::mark`]), as they read the values.
pub fn render<T: Clone>(
    session: Option<&Session>,
    given: Option<Format>,
    objects: &mut EntryObjects<T>,
    make: &Make<'_, T>,
) -> Render<T> {
    let format = format_of(session, given);
    let messages = live_values(session, given, objects, make);
    let (result, points) = render_result(session, format);
    Render {
        messages,
        result,
        points,
        format,
    }
}

impl<T> Render<T> {
    /// Places the Anthropic `cache_control` markers `options` ask for ([`cache_markers`]):
    /// `read` gives a message as JSON, and each marked one is replaced by `make`'s value of its
    /// marked form.
    pub fn mark(
        &mut self,
        options: &RenderOptions,
        read: impl Fn(&T) -> Option<Value>,
        make: &Make<'_, T>,
    ) {
        let (messages, count) = (&self.messages, self.messages.len());
        let mut read = |i: usize| read(messages.get(i)?);
        let marked = cache_markers(self.format, options, &self.points, count, &mut read);
        for (i, value) in marked {
            if let Some(slot) = self.messages.get_mut(i) {
                *slot = (make.exported)(&value);
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::formats::message_importer;
    use serde_json::json;

    fn session(values: &[Value]) -> Session {
        let options = crate::core::options::parse(&json!({"contextWindow": 100_000})).unwrap();
        let config = crate::core::session::Config::heuristic(options.settings);
        let mut s = Session::new(config, "s".into(), "ai-sdk".into());
        let import = message_importer(Format::AiSdk);
        s.append(values.iter().map(|v| import(v, "m").unwrap()).collect());
        s
    }

    /// Values tagged with how they were made.
    fn make() -> Make<'static, String> {
        Make {
            original: &|o: &Original| format!("original {}", o.to_value()),
            exported: &|v: &Value| format!("exported {v}"),
        }
    }

    #[test]
    fn kept_objects_are_given_and_missing_ones_are_made_once_and_kept() {
        let m = [
            json!({"role": "user", "content": "hi"}),
            json!({"role": "assistant", "content": "yo"}),
        ];
        let s = session(&m);
        let mut objects = EntryObjects::new(0);
        objects.appended(1, vec!["caller 0".to_string()]);
        let slots = vec![Slot::Entry(0), Slot::Entry(1), Slot::Exported(json!(7))];
        let values = slot_values(Some(&s), &mut objects, slots, Format::AiSdk, &make());
        assert_eq!(values[0], "caller 0");
        assert_eq!(values[1], format!("original {}", m[1]));
        assert_eq!(values[2], "exported 7");
        // The value made for entry 1 is kept: it is not made again.
        let kept = objects.get_or_make(1, || "made again".to_string());
        assert_eq!(kept, values[1]);
    }

    #[test]
    fn an_empty_session_gives_null_for_an_entry_and_no_live_context() {
        let mut objects = EntryObjects::new(1);
        let values = slot_values(
            None,
            &mut objects,
            vec![Slot::Entry(0)],
            Format::AiSdk,
            &make(),
        );
        assert_eq!(values, ["exported null"]);
        let mut objects = EntryObjects::<String>::new(0);
        assert!(live_values(None, Some(Format::AiSdk), &mut objects, &make()).is_empty());
    }

    #[test]
    fn a_render_marks_anthropic_messages_only_when_asked() {
        let options = crate::core::options::parse(&json!({"contextWindow": 100_000})).unwrap();
        let config = crate::core::session::Config::heuristic(options.settings);
        let mut s = Session::new(config, "s".into(), "anthropic".into());
        let m = json!({"role": "user", "content": [{"type": "text", "text": "hi"}]});
        let import = message_importer(Format::Anthropic);
        s.append(vec![import(&m, "m").unwrap()]);
        let make = Make {
            original: &|o: &Original| o.to_value(),
            exported: &|v: &Value| v.clone(),
        };
        let mut objects = EntryObjects::new(1);
        let mut render = render(Some(&s), None, &mut objects, &make);
        assert_eq!(render.messages, std::slice::from_ref(&m));
        assert_eq!(render.result["format"], "anthropic");
        let off = RenderOptions::read(&json!({"cacheControl": false})).unwrap();
        render.mark(&off, |v| Some(v.clone()), &make);
        assert_eq!(
            render.messages,
            std::slice::from_ref(&m),
            "no marker unless asked"
        );
        let on = RenderOptions::read(&json!({"cacheControl": true})).unwrap();
        render.mark(&on, |v| Some(v.clone()), &make);
        let marked = render.messages[0].to_string();
        assert!(marked.contains("cache_control"), "{marked}");
    }

    #[test]
    fn the_live_context_is_every_logged_message() {
        let m = [json!({"role": "user", "content": "hi"})];
        let s = session(&m);
        let mut objects = EntryObjects::new(1);
        let values = live_values(Some(&s), None, &mut objects, &make());
        assert_eq!(values, [format!("original {}", m[0])]);
    }
}
