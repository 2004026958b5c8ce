//! The rules for caller values that cross into the module as plain data, and the pure work on the
//! JSON they become. The binding's walk (`wasm/plain.rs` with `js/snippets/plain.js`) checks a JS
//! value against the limits here ([`MAX_DEPTH`], [`MAX_NODES`], [`MAX_TEXT`]) and names what it
//! found wrong by a reason; [`refusal`] turns that reason into the error the caller sees, with the
//! path of the offending field. Long strings cross apart and are put back by [`put_back_longs`];
//! [`has_placeholder`] tells whether exported JSON holds a binary value's placeholder; [`id_hash`]
//! and [`holders`] read the id hashes of the on-demand view of a message array (`trimMessages`).

use serde_json::Value;

use crate::core::error::Error;

/// The most levels of nesting accepted in one value (a message, an option, a usage object).
pub const MAX_DEPTH: u32 = 100;
/// The most objects and arrays accepted in one value.
pub const MAX_NODES: u32 = 5_000_000;
/// The most characters of text (strings and keys, in UTF-16 code units) accepted in one value (one
/// message, an option): 2^27, far past any context window. A longer value is refused before it is
/// copied; converting it could exhaust the instance's 4 GiB of memory.
pub const MAX_TEXT: u32 = 1 << 27;

/// The key of the placeholder that stands for a long string in the walk's copy (`{ [key]: k }`,
/// the k-th long string).
pub const LONG_KEY: &str = "\u{0}text";

/// What a value is: messages (`INVALID_INPUT`; binary data becomes a placeholder that is put back
/// on the way out), messages to store as JSON (`INVALID_INPUT`; binary data inline as base64, a
/// `URL` as its text), or options (`INVALID_OPTIONS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Messages passed through: kept messages come back as the caller's objects.
    Input,
    /// Messages stored (a session's log).
    Stored,
    /// Options and usage.
    Options,
}

impl Kind {
    /// The walk's mode number (`plainShape`'s `mode`).
    pub fn mode(self) -> u32 {
        match self {
            Kind::Options => 0,
            Kind::Input => 1,
            Kind::Stored => 2,
        }
    }

    /// The error for a value of this kind at `path`.
    pub fn error(self, path: &str, message: impl Into<String>) -> Error {
        match self {
            Kind::Input | Kind::Stored => Error::invalid_input(path, message),
            Kind::Options => Error::invalid_option(path, message),
        }
    }
}

/// The error for what the walk found wrong (`reason`) at `path` in a value of `kind`.
pub fn refusal(kind: Kind, path: &str, reason: &str) -> Error {
    let message = match reason {
        "depth" => format!("nested more than {MAX_DEPTH} levels deep (or cyclic)"),
        "size" => format!("more than {MAX_NODES} objects and arrays (or a cycle)"),
        "length" => format!("an array longer than {MAX_NODES} elements"),
        "text" => format!(
            "more than {MAX_TEXT} characters of text (the most one value may hold; split it or \
             leave it out)"
        ),
        "number" => "must be a finite number (NaN and ±Infinity are not accepted)".to_string(),
        "bigint" => "a BigInt is not plain data: pass a number or a string".to_string(),
        "proto" => "a field named __proto__ cannot be copied faithfully: rename it".to_string(),
        _ => "an id must be well-formed Unicode (it holds a lone surrogate)".to_string(),
    };
    kind.error(path, message)
}

/// The error for an array of `length` elements, past [`MAX_NODES`], refused before it is copied.
pub fn too_long(kind: Kind, path: &str, length: f64) -> Option<Error> {
    (length > f64::from(MAX_NODES)).then(|| {
        let message = format!("{length} elements: an array longer than {MAX_NODES} elements");
        kind.error(path, message)
    })
}

/// Checks the keys of a call's options object: `keys` are its own keys (`None`: it is not an
/// object, or it is an array); each must be one of `allowed` (`INVALID_OPTIONS` naming the
/// misspelled key and the expected ones).
pub fn check_keys(keys: Option<&[String]>, allowed: &[&str]) -> Result<(), Error> {
    let keys = keys.ok_or_else(|| Error::invalid_option("options", "options must be an object"))?;
    match keys.iter().find(|k| !allowed.contains(&k.as_str())) {
        None => Ok(()),
        Some(key) => Err(Error::invalid_option(
            key.clone(),
            format!("unknown option \"{key}\" (expected {})", allowed.join(", ")),
        )),
    }
}

/// The error for an argument that must be a string and is of JS type `js_type`.
pub fn not_a_string(path: &str, js_type: &str) -> Error {
    Error::invalid_input(path, format!("expected a string, got {js_type}"))
}

/// Reading the caller's array threw (a getter, a Proxy): `INVALID_INPUT` at `path`, with the
/// thrown `Error`'s message (`None`: a non-Error value was thrown).
pub fn reading_threw(path: &str, message: Option<&str>) -> Error {
    let detail = message.unwrap_or("a non-Error value");
    Kind::Input.error(path, format!("reading it threw: {detail}"))
}

/// A value of `kind` at `path` whose walk threw (a getter, a Proxy): `detail` is the thrown
/// error's message, `None` for a thrown value that is not an `Error`.
pub fn unreadable(kind: Kind, path: &str, detail: Option<&str>) -> Error {
    let detail = detail.unwrap_or("reading it threw");
    kind.error(path, format!("the value could not be read: {detail}"))
}

/// A value of `kind` at `path` (described as `what`: "the message") that passed the walk but is
/// not plain data after all; `detail` is what reading it said.
pub fn not_plain(kind: Kind, path: &str, what: &str, detail: &str) -> Error {
    kind.error(path, format!("{what} is not plain data: {detail}"))
}

/// An argument that must be an array and is not: `INVALID_INPUT` at `path`.
pub fn not_an_array(path: &str) -> Error {
    Error::invalid_input(path, format!("{path} must be an array"))
}

/// Puts the long strings back in place of their placeholders: `long(k)` is the k-th.
pub fn put_back_longs(json: &mut Value, long: &dyn Fn(u32) -> Option<String>) {
    let mut stack = vec![json];
    while let Some(v) = stack.pop() {
        let k = match v {
            Value::Object(o) if o.len() == 1 => o.get(LONG_KEY).and_then(Value::as_u64),
            _ => None,
        };
        if let Some(k) = k {
            let text = u32::try_from(k).ok().and_then(long);
            *v = Value::String(text.unwrap_or_default());
            continue;
        }
        match v {
            Value::Object(o) => stack.extend(o.values_mut()),
            Value::Array(a) => stack.extend(a.iter_mut()),
            _ => {}
        }
    }
}

/// The hash the on-demand view gives a string: FNV-1a over its UTF-16 code units.
pub fn id_hash(text: &str) -> u32 {
    text.encode_utf16().fold(0x811c_9dc5, |h: u32, unit| {
        (h ^ u32::from(unit)).wrapping_mul(0x0100_0193)
    })
}

/// The messages that may hold the tool id `id`: the indices paired with its hash in `pairs`
/// (`[hash, index]` pairs, sorted by hash then index).
pub fn holders(pairs: &[u32], id: &str) -> Vec<usize> {
    let hash = id_hash(id);
    // Binary search over the pairs (hashes at even positions).
    let (mut low, mut high) = (0, pairs.len() / 2);
    while low < high {
        let mid = (low + high) / 2;
        if pairs.get(2 * mid).is_some_and(|&h| h < hash) {
            low = mid + 1;
        } else {
            high = mid;
        }
    }
    pairs
        .get(2 * low..)
        .unwrap_or_default()
        .chunks_exact(2)
        .take_while(|pair| pair.first() == Some(&hash))
        .filter_map(|pair| pair.get(1).map(|&i| i as usize))
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_value_that_cannot_be_read_says_where_and_why() {
        let e = unreadable(Kind::Options, "usage", Some("getter failed"));
        assert_eq!(e.code, crate::core::error::ErrorCode::InvalidOptions);
        assert_eq!(e.path.as_deref(), Some("usage"));
        assert!(e
            .message
            .contains("the value could not be read: getter failed"));
        let e = unreadable(Kind::Input, "messages", None);
        assert!(e
            .message
            .contains("the value could not be read: reading it threw"));
        let e = not_plain(
            Kind::Stored,
            "messages[2]",
            "the message",
            "invalid type: function",
        );
        assert_eq!(e.code, crate::core::error::ErrorCode::InvalidInput);
        assert!(e
            .message
            .contains("the message is not plain data: invalid type: function"));
    }

    #[test]
    fn refusals_name_the_field_and_the_kind() {
        let e = refusal(Kind::Options, "options.maxTokens", "number");
        assert_eq!(e.code.as_str(), "INVALID_OPTIONS");
        assert_eq!(e.path.as_deref(), Some("options.maxTokens"));
        assert!(e.message.contains("finite number"));
        let e = refusal(Kind::Stored, "messages[2]", "depth");
        assert_eq!(e.code.as_str(), "INVALID_INPUT");
        assert!(e.message.contains("100 levels"));
        assert!(too_long(Kind::Input, "messages", 5e6).is_none());
        let e = too_long(Kind::Input, "messages", 5e6 + 1.0).unwrap();
        assert!(e.message.contains("longer than 5000000"));
        let e = not_an_array("messages");
        assert_eq!(e.code.as_str(), "INVALID_INPUT");
        assert_eq!(e.path.as_deref(), Some("messages"));
        assert_eq!(e.message, "messages must be an array");
        let e = reading_threw("messages", Some("trap"));
        assert_eq!(
            (e.code.as_str(), e.message.as_str()),
            ("INVALID_INPUT", "reading it threw: trap")
        );
        let e = reading_threw("messages", None);
        assert_eq!(e.message, "reading it threw: a non-Error value");
    }

    #[test]
    fn options_keys_are_checked_by_name() {
        let keys = ["force".to_string(), "sigal".to_string()];
        let e = check_keys(Some(&keys), &["force", "signal"]).unwrap_err();
        assert_eq!(e.path.as_deref(), Some("sigal"));
        assert_eq!(
            e.message,
            "unknown option \"sigal\" (expected force, signal)"
        );
        assert!(check_keys(Some(&keys[..1]), &["force"]).is_ok());
        let e = check_keys(None, &["force"]).unwrap_err();
        assert_eq!(
            (e.code.as_str(), e.path.as_deref()),
            ("INVALID_OPTIONS", Some("options"))
        );
        assert_eq!(
            not_a_string("text", "number").message,
            "expected a string, got number"
        );
    }

    #[test]
    fn long_strings_go_back_in_place() {
        let mut v =
            json!({"a": {"\u{0}text": 1}, "b": [{"\u{0}text": 0}, {"\u{0}text": 0, "x": 1}]});
        let longs = ["zero".to_string(), "one".to_string()];
        put_back_longs(&mut v, &|k| longs.get(k as usize).cloned());
        assert_eq!(v["a"], "one");
        assert_eq!(v["b"][0], "zero");
        assert_eq!(v["b"][1]["x"], 1);
    }

    #[test]
    fn holders_are_the_indices_paired_with_the_hash() {
        let (a, b) = (id_hash("call_a"), id_hash("call_b"));
        let mut pairs = [(a, 1), (a, 4), (b, 2)];
        pairs.sort_unstable();
        let flat: Vec<u32> = pairs.iter().flat_map(|&(h, i)| [h, i]).collect();
        assert_eq!(holders(&flat, "call_a"), [1, 4]);
        assert_eq!(holders(&flat, "call_b"), [2]);
        assert!(holders(&flat, "call_c").is_empty());
        // the hash of the JS walk: FNV-1a of "a"
        assert_eq!(id_hash("a"), 0xe40c_292c);
    }
}
