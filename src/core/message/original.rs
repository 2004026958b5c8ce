//! The caller's own message object, kept as its compact JSON text.
//!
//! A message is held twice: as its [`Part`](super::Part)s, which everything the package decides
//! reads, and as the caller's object, which exporters hand back unchanged. As a parsed
//! `serde_json::Value` that object took about three to four times its JSON text (each string,
//! array and object its own allocation, each key its own string), and a clone of the live context
//! (a compaction's snapshot) copied all of it. [`Original`] holds the text that
//! `serde_json` writes for the value (the same bytes a session log line carries) behind a shared
//! pointer: a clone costs a reference count, and the value is parsed back only where it is read
//! (an export of a changed message, a render, a format check).
//!
//! The text is the value's exact serialization, so nothing is lost between the two: numbers are
//! written as the shortest text that reads back as the same double (the `float_roundtrip`
//! parser reads it), integers as they are, keys in their order, strings with their
//! lone-surrogate marks ([`crate::core::surrogates`]).

use std::fmt;
use std::sync::Arc;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// The caller's message as compact JSON text (see the module documentation).
#[derive(Clone, PartialEq, Eq)]
pub struct Original(Arc<str>);

impl Original {
    /// The original of `value`: its compact JSON text.
    pub fn new(value: &Value) -> Original {
        // Writing a `Value` cannot fail (its keys are strings, its numbers finite).
        let text = serde_json::to_string(value).unwrap_or_else(|_| "null".to_string());
        Original(Arc::from(text))
    }

    /// The compact JSON text, as a session log line carries it.
    pub fn text(&self) -> &str {
        &self.0
    }

    /// The value, parsed from the text.
    pub fn to_value(&self) -> Value {
        // The text was written from a value: it always reads back (as that same value).
        serde_json::from_str(&self.0).unwrap_or(Value::Null)
    }

    /// One top-level field of the object (the last one of that key, as a parsed object keeps),
    /// parsed without building the others; `None` when absent or the original is not an object.
    pub fn get(&self, key: &str) -> Option<Value> {
        let mut reader = serde_json::Deserializer::from_str(&self.0);
        Field(key).deserialize(&mut reader).ok().flatten()
    }
}

impl From<&Value> for Original {
    fn from(value: &Value) -> Original {
        Original::new(value)
    }
}

impl fmt::Debug for Original {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Original({})", self.0)
    }
}

/// Reads one field of a JSON object, skipping the rest unparsed.
struct Field<'k>(&'k str);

impl<'de> DeserializeSeed<'de> for Field<'_> {
    type Value = Option<Value>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Field<'_> {
    type Value = Option<Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = None;
        while let Some(key) = map.next_key::<String>()? {
            if key == self.0 {
                found = Some(map.next_value::<Value>()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_text_reads_back_as_the_same_value() {
        let values = [
            json!({"role": "user", "content": "hé 😀 \u{FDD0}\u{E001}", "z": 1, "a": [1.5, -0.0, 0.1]}),
            json!({"usage": {"cost": 0.40389375000000005, "big": 18446744073709551615u64, "neg": -9007199254740993i64}}),
            json!({"n": 1e300, "tiny": 5e-324, "one": 1.0, "x": null, "t": true}),
            json!("just a string"),
            json!([1, {"a": 2}]),
        ];
        for value in values {
            let original = Original::new(&value);
            assert_eq!(original.to_value(), value);
            assert_eq!(original.text(), value.to_string());
            // Exact doubles: the same bits.
            if let Some(cost) = value.pointer("/usage/cost") {
                let back = original.to_value();
                let again = back.pointer("/usage/cost").unwrap().as_f64().unwrap();
                assert_eq!(again.to_bits(), cost.as_f64().unwrap().to_bits());
            }
        }
    }

    #[test]
    fn a_field_is_read_alone() {
        let o = Original::new(&json!({"role": "developer", "content": [{"type": "text"}], "n": 2}));
        assert_eq!(o.get("role"), Some(json!("developer")));
        assert_eq!(o.get("content"), Some(json!([{"type": "text"}])));
        assert_eq!(o.get("n"), Some(json!(2)));
        assert_eq!(o.get("missing"), None);
        assert_eq!(Original::new(&json!([1, 2])).get("role"), None);
        assert_eq!(Original::new(&json!("role")).get("role"), None);
        assert_eq!(Original::new(&Value::Null).get("role"), None);
    }

    #[test]
    fn a_clone_shares_the_text() {
        let o = Original::new(&json!({"role": "user", "content": "x".repeat(1000)}));
        let c = o.clone();
        assert!(std::ptr::eq(o.text(), c.text()));
        assert_eq!(o, c);
        assert_ne!(o, Original::new(&json!({"role": "user"})));
    }
}
