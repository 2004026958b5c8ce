//! Image dimensions read from the header of inline base64 data (PNG, JPEG, GIF, WebP), so that
//! estimators can apply a provider's per-pixel rule instead of counting base64 characters.

/// Width and height in pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageSize {
    pub width: u32,
    pub height: u32,
}

/// Base64 characters decoded at most: JPEG size markers can follow large EXIF blocks.
const MAX_B64_CHARS: usize = 128 * 1024;

/// Reads the dimensions from base64 image data (a `data:` URL prefix is skipped). Returns `None`
/// for unknown formats or truncated headers; never panics and decodes at most 128 KiB of input.
pub fn image_dimensions(base64: &str) -> Option<ImageSize> {
    let data = match base64.strip_prefix("data:") {
        Some(rest) => rest.split_once(',').map_or("", |(_, d)| d),
        None => base64,
    };
    let bytes = decode_prefix(data, MAX_B64_CHARS);
    png(&bytes)
        .or_else(|| gif(&bytes))
        .or_else(|| webp(&bytes))
        .or_else(|| jpeg(&bytes))
}

fn decode_prefix(data: &str, max_chars: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(max_chars.min(data.len()) / 4 * 3 + 3);
    let mut acc: u32 = 0;
    let mut bits = 0u32;
    for c in data.bytes().take(max_chars) {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            b' ' | b'\n' | b'\r' | b'\t' => continue,
            _ => break,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(((acc >> bits) & 0xFF) as u8);
        }
    }
    out
}

fn be16(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at + 2)?;
    Some(u32::from(*s.first()?) << 8 | u32::from(*s.get(1)?))
}

fn le16(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from(*b.get(at)?) | u32::from(*b.get(at + 1)?) << 8)
}

fn be32(b: &[u8], at: usize) -> Option<u32> {
    Some(be16(b, at)? << 16 | be16(b, at + 2)?)
}

fn le24(b: &[u8], at: usize) -> Option<u32> {
    Some(le16(b, at)? | u32::from(*b.get(at + 2)?) << 16)
}

fn sized(width: u32, height: u32) -> Option<ImageSize> {
    (width > 0 && height > 0).then_some(ImageSize { width, height })
}

fn png(b: &[u8]) -> Option<ImageSize> {
    if !b.starts_with(b"\x89PNG\r\n\x1a\n") || b.get(12..16)? != b"IHDR" {
        return None;
    }
    sized(be32(b, 16)?, be32(b, 20)?)
}

fn gif(b: &[u8]) -> Option<ImageSize> {
    if !(b.starts_with(b"GIF87a") || b.starts_with(b"GIF89a")) {
        return None;
    }
    sized(le16(b, 6)?, le16(b, 8)?)
}

fn webp(b: &[u8]) -> Option<ImageSize> {
    if !b.starts_with(b"RIFF") || b.get(8..12)? != b"WEBP" {
        return None;
    }
    match b.get(12..16)? {
        b"VP8 " => sized(le16(b, 26)? & 0x3FFF, le16(b, 28)? & 0x3FFF),
        b"VP8L" => {
            let b0 = u32::from(*b.get(21)?);
            let b1 = u32::from(*b.get(22)?);
            let b2 = u32::from(*b.get(23)?);
            let b3 = u32::from(*b.get(24)?);
            let w = 1 + (((b1 & 0x3F) << 8) | b0);
            let h = 1 + (((b3 & 0x0F) << 10) | (b2 << 2) | ((b1 & 0xC0) >> 6));
            sized(w, h)
        }
        b"VP8X" => sized(1 + le24(b, 24)?, 1 + le24(b, 27)?),
        _ => None,
    }
}

fn jpeg(b: &[u8]) -> Option<ImageSize> {
    if !b.starts_with(&[0xFF, 0xD8]) {
        return None;
    }
    let mut pos = 2usize;
    loop {
        // Skip fill bytes up to the marker.
        while *b.get(pos)? == 0xFF && *b.get(pos + 1)? == 0xFF {
            pos += 1;
        }
        if *b.get(pos)? != 0xFF {
            return None;
        }
        let marker = *b.get(pos + 1)?;
        let is_sof = matches!(marker, 0xC0..=0xCF) && !matches!(marker, 0xC4 | 0xC8 | 0xCC);
        if is_sof {
            return sized(be16(b, pos + 7)?, be16(b, pos + 5)?);
        }
        if marker == 0xD9 || marker == 0xDA {
            return None;
        }
        let len = be16(b, pos + 2)? as usize;
        pos = pos.checked_add(2 + len)?;
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn reads_png_header() {
        // 1x1 PNG
        let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
        assert_eq!(
            image_dimensions(png),
            Some(ImageSize {
                width: 1,
                height: 1
            })
        );
        let url = format!("data:image/png;base64,{png}");
        assert!(image_dimensions(&url).is_some());
    }

    #[test]
    fn reads_gif_header() {
        // GIF89a, 3x2
        let bytes = b"GIF89a\x03\x00\x02\x00";
        let b64 = encode(bytes);
        assert_eq!(
            image_dimensions(&b64),
            Some(ImageSize {
                width: 3,
                height: 2
            })
        );
    }

    #[test]
    fn reads_jpeg_sof() {
        let mut bytes = vec![0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x00, 0x00];
        bytes.extend_from_slice(&[0xFF, 0xC0, 0x00, 0x11, 0x08, 0x01, 0x00, 0x02, 0x00]);
        assert_eq!(
            image_dimensions(&encode(&bytes)),
            Some(ImageSize {
                width: 512,
                height: 256
            })
        );
    }

    #[test]
    fn garbage_is_none() {
        assert_eq!(image_dimensions("not base64 at all!"), None);
        assert_eq!(image_dimensions(""), None);
        assert_eq!(image_dimensions(&encode(&[0xFF, 0xD8, 0xFF])), None);
    }

    fn encode(bytes: &[u8]) -> String {
        const T: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut out = String::new();
        for chunk in bytes.chunks(3) {
            let b = [
                chunk.first().copied().unwrap_or(0),
                chunk.get(1).copied().unwrap_or(0),
                chunk.get(2).copied().unwrap_or(0),
            ];
            let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
            for i in 0..4 {
                if i <= chunk.len() {
                    out.push(T[((n >> (18 - 6 * i)) & 63) as usize] as char);
                } else {
                    out.push('=');
                }
            }
        }
        out
    }
}
