//! The function-valued part of an options object: the callbacks a handle keeps (one slot per key of
//! [`FUNCTION_KEYS`]), and the split of an options object into them and its JSON part (which
//! [`super::Options`] parses). Generic over the host's values and functions: the binding reads a
//! JS object through [`OptionValue`], and the split is tested here natively.

use serde_json::{Map, Value};

use super::{callback_slot, not_a_function, FUNCTION_KEYS};
use crate::core::error::{Error, Result};

/// The callbacks given in the options; `F` is the host's function type (a JS `Function`).
#[derive(Clone, Debug, PartialEq)]
pub struct Callbacks<F> {
    pub summarize: Option<F>,
    pub on_before: Option<F>,
    pub on_after: Option<F>,
    pub on_progress: Option<F>,
    pub on_error: Option<F>,
}

impl<F> Default for Callbacks<F> {
    fn default() -> Self {
        Callbacks {
            summarize: None,
            on_before: None,
            on_after: None,
            on_progress: None,
            on_error: None,
        }
    }
}

impl<F> Callbacks<F> {
    /// The callbacks in the order of their keys in [`FUNCTION_KEYS`].
    pub fn slots(&mut self) -> [&mut Option<F>; FUNCTION_KEYS.len()] {
        [
            &mut self.summarize,
            &mut self.on_before,
            &mut self.on_after,
            &mut self.on_progress,
            &mut self.on_error,
        ]
    }
}

/// What [`split_options`] needs to know of a field's value before it converts it.
pub enum Field<F> {
    /// Absent (`undefined` in JS).
    Absent,
    /// A host function.
    Function(F),
    /// A string (`summarize: "extractive"` stays in the JSON).
    Text,
    /// Anything else.
    Other,
}

/// One field's value of the host's options object, as [`split_options`] reads it.
pub trait OptionValue<F> {
    /// What the value is.
    fn field(&self) -> Field<F>;
    /// The value as JSON (the host's checked conversion); `key` names it in errors.
    fn to_json(&self, key: &str) -> Result<Value>;
}

/// Splits the own fields of an options object, in their order, into its callbacks and its JSON
/// part; `None` is a value that is not an object (or is an array): `INVALID_OPTIONS` at `options`.
/// An `undefined` field is absent; a callback key ([`callback_slot`]) given anything but a
/// function is `INVALID_OPTIONS` at its key ([`not_a_function`]); the first error is returned.
pub fn split_options<F, V: OptionValue<F>>(
    fields: Option<impl Iterator<Item = (String, V)>>,
) -> Result<(Value, Callbacks<F>)> {
    let Some(fields) = fields else {
        return Err(Error::invalid_option(
            "options",
            "options must be an object",
        ));
    };
    let mut json = Map::new();
    let mut callbacks = Callbacks::default();
    for (name, value) in fields {
        let field = value.field();
        if matches!(field, Field::Absent) {
            continue;
        }
        if let Some(k) = callback_slot(&name, matches!(field, Field::Text)) {
            let Field::Function(f) = field else {
                return Err(not_a_function(&name));
            };
            if let Some(slot) = callbacks.slots().into_iter().nth(k) {
                *slot = Some(f);
            }
            continue;
        }
        let converted = value.to_json(&name)?;
        json.insert(name, converted);
    }
    Ok((Value::Object(json), callbacks))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::core::error::ErrorCode;
    use serde_json::json;

    /// A host value: a function (named), `undefined`, or JSON.
    #[derive(Clone)]
    enum Host {
        Function(&'static str),
        Undefined,
        Json(Value),
    }

    impl OptionValue<&'static str> for Host {
        fn field(&self) -> Field<&'static str> {
            match self {
                Host::Function(name) => Field::Function(name),
                Host::Undefined => Field::Absent,
                Host::Json(Value::String(_)) => Field::Text,
                Host::Json(_) => Field::Other,
            }
        }
        fn to_json(&self, key: &str) -> Result<Value> {
            match self {
                Host::Json(Value::Null) => Err(Error::invalid_option(key, "refused")),
                Host::Json(v) => Ok(v.clone()),
                _ => Ok(Value::Null),
            }
        }
    }

    fn split(fields: &[(&str, Host)]) -> Result<(Value, Callbacks<&'static str>)> {
        let fields = fields.iter().map(|(k, v)| (k.to_string(), v.clone()));
        split_options(Some(fields))
    }

    #[test]
    fn functions_go_to_their_slots_and_the_rest_to_the_json() {
        let (json, mut callbacks) = split(&[
            ("contextWindow", Host::Json(json!(1000))),
            ("onError", Host::Function("e")),
            ("summarize", Host::Function("s")),
            ("model", Host::Undefined),
            ("onProgress", Host::Undefined),
        ])
        .unwrap();
        assert_eq!(json, json!({"contextWindow": 1000}));
        let given: Vec<Option<&str>> = callbacks.slots().into_iter().map(|s| *s).collect();
        assert_eq!(given, [Some("s"), None, None, None, Some("e")]);
    }

    #[test]
    fn an_extractive_summarize_stays_in_the_json() {
        let (json, callbacks) = split(&[("summarize", Host::Json(json!("extractive")))]).unwrap();
        assert_eq!(json, json!({"summarize": "extractive"}));
        assert_eq!(callbacks, Callbacks::default());
    }

    #[test]
    fn the_first_bad_field_is_the_error() {
        let e = split(&[
            ("onBeforeCompaction", Host::Json(json!(1))),
            ("model", Host::Json(Value::Null)),
        ])
        .err();
        assert_eq!(e.map(|e| e.path), Some(Some("onBeforeCompaction".into())));
        let e = split(&[
            ("model", Host::Json(Value::Null)),
            ("onError", Host::Json(json!(1))),
        ])
        .err();
        assert_eq!(e.map(|e| e.path), Some(Some("model".into())));
        let none: Option<std::vec::IntoIter<(String, Host)>> = None;
        let e = split_options(none).err();
        assert_eq!(e.as_ref().map(|e| e.code), Some(ErrorCode::InvalidOptions));
        assert_eq!(
            e.map(|e| e.message),
            Some("options must be an object".into())
        );
    }
}
