//! Images and files as the formats give them (data URLs, URLs, base64, byte arrays) turned into
//! [`Part::Image`] / [`Part::File`] without keeping the data.

use serde_json::Value;

use crate::core::message::{image_dimensions, ImageSource, Part};

use super::json_path::data_len;

/// Splits a `data:` URL into its media type and payload.
pub fn split_data_url(s: &str) -> Option<(Option<&str>, &str)> {
    let rest = s.strip_prefix("data:")?;
    let (meta, payload) = rest.split_once(',')?;
    let media = meta.split(';').next().filter(|m| !m.is_empty());
    Some((media, payload))
}

/// The source of inline data given as a JSON value: a `data:` URL or base64 string, a URL
/// string (anything with `://`), or bytes. Returns the source, the media type found in a data URL,
/// and the base64 payload to sniff dimensions from.
pub fn source_of(data: &Value) -> (ImageSource, Option<String>, Option<&str>) {
    match data {
        Value::String(s) => {
            if let Some((media, payload)) = split_data_url(s) {
                (
                    ImageSource::Base64 { len: payload.len() },
                    media.map(str::to_string),
                    Some(payload),
                )
            } else if s.contains("://") {
                (ImageSource::Url(s.clone()), None, None)
            } else {
                (ImageSource::Base64 { len: s.len() }, None, Some(s.as_str()))
            }
        }
        Value::Null => (ImageSource::Unknown, None, None),
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

/// The URL of a source, if it has one.
pub fn url_of(source: &ImageSource) -> Option<&str> {
    match source {
        ImageSource::Url(u) => Some(u),
        _ => None,
    }
}
