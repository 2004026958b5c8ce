//! Typed access to JSON fields that reports the exact path of a bad field
//! (`messages[3].content[0].toolCallId`) as an `INVALID_INPUT` error.

use serde_json::{Map, Value};

use crate::core::error::{Error, Result};

/// `path.key`.
pub fn field(path: &str, key: &str) -> String {
    format!("{path}.{key}")
}

/// `path[i]`.
pub fn index(path: &str, i: usize) -> String {
    format!("{path}[{i}]")
}

/// A short name of a JSON value's type for error messages (`"a number"`, `"null"`).
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn wrong(path: String, expected: &str, got: &Value) -> Error {
    Error::invalid_input(path, format!("expected {expected}, got {}", type_name(got)))
}

/// The value as an object, or an error at `path`.
pub fn as_object<'a>(v: &'a Value, path: &str) -> Result<&'a Map<String, Value>> {
    v.as_object()
        .ok_or_else(|| wrong(path.to_string(), "an object", v))
}

/// The value as an array, or an error at `path`.
pub fn as_array<'a>(v: &'a Value, path: &str) -> Result<&'a Vec<Value>> {
    v.as_array()
        .ok_or_else(|| wrong(path.to_string(), "an array", v))
}

/// A required string field.
pub fn req_str<'a>(obj: &'a Map<String, Value>, key: &str, path: &str) -> Result<&'a str> {
    match obj.get(key) {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(wrong(field(path, key), "a string", other)),
        None => Err(Error::invalid_input(
            field(path, key),
            format!("missing required field \"{key}\""),
        )),
    }
}

/// An optional string field; `null` counts as absent.
pub fn opt_str<'a>(obj: &'a Map<String, Value>, key: &str, path: &str) -> Result<Option<&'a str>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(wrong(field(path, key), "a string", other)),
    }
}

/// An optional boolean field; `null` counts as absent.
pub fn opt_bool(obj: &Map<String, Value>, key: &str, path: &str) -> Result<Option<bool>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(other) => Err(wrong(field(path, key), "a boolean", other)),
    }
}

/// An optional array field; `null` counts as absent.
pub fn opt_array<'a>(
    obj: &'a Map<String, Value>,
    key: &str,
    path: &str,
) -> Result<Option<&'a Vec<Value>>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(a)) => Ok(Some(a)),
        Some(other) => Err(wrong(field(path, key), "an array", other)),
    }
}

/// A required array field.
pub fn req_array<'a>(obj: &'a Map<String, Value>, key: &str, path: &str) -> Result<&'a Vec<Value>> {
    match obj.get(key) {
        Some(v) => as_array(v, &field(path, key)),
        None => Err(Error::invalid_input(
            field(path, key),
            format!("missing required field \"{key}\""),
        )),
    }
}

/// A required object field.
pub fn req_object<'a>(
    obj: &'a Map<String, Value>,
    key: &str,
    path: &str,
) -> Result<&'a Map<String, Value>> {
    match obj.get(key) {
        Some(v) => as_object(v, &field(path, key)),
        None => Err(Error::invalid_input(
            field(path, key),
            format!("missing required field \"{key}\""),
        )),
    }
}

/// An optional integer field (a JSON number without fraction); `null` counts as absent.
pub fn opt_i64(obj: &Map<String, Value>, key: &str, path: &str) -> Result<Option<i64>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => match n.as_i64() {
            Some(i) => Ok(Some(i)),
            // Fractional timestamps and counters are truncated rather than rejected.
            None => Ok(n.as_f64().map(|f| f as i64)),
        },
        Some(other) => Err(wrong(field(path, key), "a number", other)),
    }
}

/// An optional non-negative integer field.
pub fn opt_u64(obj: &Map<String, Value>, key: &str, path: &str) -> Result<Option<u64>> {
    match opt_i64(obj, key, path)? {
        None => Ok(None),
        Some(i) => u64::try_from(i)
            .map(Some)
            .map_err(|_| Error::invalid_input(field(path, key), "expected a non-negative number")),
    }
}

/// The `type` string of a block, required.
pub fn block_type<'a>(obj: &'a Map<String, Value>, path: &str) -> Result<&'a str> {
    req_str(obj, "type", path)
}

/// `pinned: true` at the top of a message (any format) marks it pinned.
pub fn pinned_flag(obj: &Map<String, Value>) -> bool {
    matches!(obj.get("pinned"), Some(Value::Bool(true)))
}

/// The length in characters of inline data: a string's length, an array's or byte object's
/// element count (a `Uint8Array` serialized as JSON), else zero.
pub fn data_len(v: &Value) -> usize {
    match v {
        Value::String(s) => s.len(),
        Value::Array(a) => a.len(),
        Value::Object(o) => o.len(),
        _ => 0,
    }
}

/// Imports every element of the `messages` array with `one(element, "messages[i]")`.
pub fn each_message<T>(
    messages: &Value,
    one: impl Fn(&Value, &str) -> Result<T>,
) -> Result<Vec<T>> {
    as_array(messages, "messages")?
        .iter()
        .enumerate()
        .map(|(i, m)| one(m, &index("messages", i)))
        .collect()
}

/// The `content` of a message object: a string (one text part) or an array of blocks, each parsed
/// with `block(value, "<path>.content[j]")`.
pub fn content_parts(
    obj: &Map<String, Value>,
    path: &str,
    block: impl Fn(&Value, &str) -> Result<crate::core::message::Part>,
) -> Result<Vec<crate::core::message::Part>> {
    let content_path = field(path, "content");
    match obj.get("content") {
        Some(Value::String(s)) => Ok(vec![crate::core::message::Part::text(s.clone())]),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(j, item)| block(item, &index(&content_path, j)))
            .collect(),
        Some(other) => Err(Error::invalid_input(
            content_path,
            format!(
                "expected a string or an array of blocks, got {}",
                type_name(other)
            ),
        )),
        None => Err(Error::invalid_input(
            content_path,
            "missing required field \"content\"",
        )),
    }
}
