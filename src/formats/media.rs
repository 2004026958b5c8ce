//! Images and files as the formats give them (data URLs, URLs, base64, byte arrays) turned into
//! [`Part::Image`] / [`Part::File`] without keeping the data.

use serde_json::Value;

use crate::core::message::{image_dimensions, ImageSource, Part};

use super::json_path::data_len;

/// The key of the object that the JS boundary puts in place of a binary value (`Uint8Array`,
/// `ArrayBuffer`, `URL`): `{ "\u0000binary": k, bytes, head }` or `{ "\u0000binary": k, url }`.
pub const BINARY_PLACEHOLDER: &str = "\u{0}binary";

/// Whether `json` (exported messages) holds a [`BINARY_PLACEHOLDER`] at any depth.
pub fn has_placeholder(json: &Value) -> bool {
    let mut stack = vec![json];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(o) => {
                if o.contains_key(BINARY_PLACEHOLDER) {
                    return true;
                }
                stack.extend(o.values());
            }
            Value::Array(a) => stack.extend(a),
            _ => {}
        }
    }
    false
}

/// Splits a `data:` URL into its media type and payload.
pub fn split_data_url(s: &str) -> Option<(Option<&str>, &str)> {
    let rest = s.strip_prefix("data:")?;
    let (meta, payload) = rest.split_once(',')?;
    let media = meta.split(';').next().filter(|m| !m.is_empty());
    Some((media, payload))
}

thread_local! {
    /// Set while [`keeping_inline_data`] runs.
    static KEEP_INLINE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` (an import) keeping inline base64 data as [`ImageSource::Inline`] instead of its
/// length: what a conversion between formats needs to write the data in the other format.
pub fn keeping_inline_data<T>(f: impl FnOnce() -> T) -> T {
    let before = KEEP_INLINE.with(|k| k.replace(true));
    let out = f();
    KEEP_INLINE.with(|k| k.set(before));
    out
}

/// The source of base64 `payload`: its length, or the payload itself while keeping inline data.
fn inline(payload: &str) -> ImageSource {
    if KEEP_INLINE.with(std::cell::Cell::get) {
        ImageSource::Inline(payload.to_string())
    } else {
        ImageSource::Base64 { len: payload.len() }
    }
}

/// The source of inline data given as a JSON value: a `data:` URL or base64 string, a URL
/// string (anything with `://`), or bytes. Returns the source, the media type found in a data URL,
/// and the base64 payload to sniff dimensions from.
pub fn source_of(data: &Value) -> (ImageSource, Option<String>, Option<&str>) {
    match data {
        Value::String(s) => {
            if let Some((media, payload)) = split_data_url(s) {
                (inline(payload), media.map(str::to_string), Some(payload))
            } else if s.contains("://") {
                (ImageSource::Url(s.clone()), None, None)
            } else {
                (inline(s), None, Some(s.as_str()))
            }
        }
        Value::Null => (ImageSource::Unknown, None, None),
        Value::Object(o) if o.contains_key(BINARY_PLACEHOLDER) => {
            // Binary data the JS boundary stood in for: a URL, or bytes with their head.
            if let Some(url) = o.get("url").and_then(Value::as_str) {
                return (ImageSource::Url(url.to_string()), None, None);
            }
            let bytes = o.get("bytes").and_then(Value::as_u64).unwrap_or(0);
            let bytes = usize::try_from(bytes).unwrap_or(usize::MAX);
            (
                ImageSource::Base64 {
                    len: bytes.div_ceil(3).saturating_mul(4),
                },
                None,
                o.get("head").and_then(Value::as_str),
            )
        }
        other => (
            ImageSource::Base64 {
                len: data_len(other),
            },
            None,
            None,
        ),
    }
}

/// An image part from inline data or a URL.
pub fn image_part(data: &Value, media_type: Option<&str>, detail: Option<&str>) -> Part {
    let (source, url_media, payload) = source_of(data);
    let size = payload.and_then(image_dimensions);
    Part::Image {
        media_type: media_type.map(str::to_string).or(url_media),
        source,
        width: size.map(|s| s.width),
        height: size.map(|s| s.height),
        detail: detail.map(str::to_string),
    }
}

/// A file part, or an image part when the media type is `image/*`.
pub fn file_part(data: &Value, media_type: Option<&str>, name: Option<&str>) -> Part {
    let (source, url_media, _) = source_of(data);
    let media = media_type.map(str::to_string).or(url_media);
    if media.as_deref().is_some_and(|m| m.starts_with("image/")) {
        return image_part(data, media.as_deref(), None);
    }
    Part::File {
        media_type: media,
        name: name.map(str::to_string),
        source,
        text: None,
    }
}

/// The base64 payload of a source kept for a conversion, if it has one.
pub fn inline_of(source: &ImageSource) -> Option<&str> {
    match source {
        ImageSource::Inline(data) => Some(data),
        _ => None,
    }
}

/// The image type of base64 `payload` from its first bytes (PNG, JPEG, GIF, WebP), when the
/// given `media_type` is missing or a wildcard (`image/*`); otherwise `media_type`.
pub fn image_type<'a>(media_type: Option<&'a str>, payload: &str) -> Option<&'a str> {
    match media_type {
        Some(m) if !m.ends_with("/*") => Some(m),
        _ => [
            ("iVBORw0KGgo", "image/png"),
            ("/9j/", "image/jpeg"),
            ("R0lGOD", "image/gif"),
            ("UklGR", "image/webp"),
        ]
        .iter()
        .find(|(magic, _)| payload.starts_with(magic))
        .map(|(_, m)| *m),
    }
}

/// `data:<media type>;base64,<payload>`.
pub fn data_url(media_type: Option<&str>, payload: &str) -> String {
    format!(
        "data:{};base64,{payload}",
        media_type.unwrap_or("application/octet-stream")
    )
}

/// The URL of a source, if it has one.
pub fn url_of(source: &ImageSource) -> Option<&str> {
    match source {
        ImageSource::Url(u) => Some(u),
        _ => None,
    }
}

#[cfg(test)]
mod placeholder_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn placeholders_are_found_at_any_depth() {
        assert!(!has_placeholder(&json!([{"content": [{"type": "text"}]}])));
        let deep = json!([{"content": [{"image": {(BINARY_PLACEHOLDER): 0}}]}]);
        assert!(has_placeholder(&deep));
    }
}
