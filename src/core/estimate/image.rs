//! Per-provider image token rules. An image costs what the provider charges for its pixels, never
//! the length of its base64 data (a 1 MB screenshot is not 350,000 tokens).

use crate::core::message::ImageSize;

/// How a provider prices an image in the context. Every rule returns at least 1 token for an
/// image and never panics; unknown dimensions use the rule's documented default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ImageRule {
    /// Anthropic (Claude vision docs): an image is first scaled down, keeping its aspect ratio,
    /// until its long edge is at most 1,568 px and it costs at most about 1,600 tokens
    /// (about 1.15–1.2 megapixels); it then costs `width × height / 750` tokens (rounded up).
    /// So a 1092×1092 image costs 1,590 tokens and 1,600 is the most any image costs.
    /// Unknown dimensions: 1,600 (the worst case). The default rule, being the most
    /// conservative for large images.
    #[default]
    Anthropic,
    /// OpenAI tile rule (GPT-4o, GPT-4.1, o-series vision docs): `detail: "low"` costs 85 tokens.
    /// `high` (and `auto`, priced as `high` to stay on the safe side): the image is scaled down to
    /// fit a 2048×2048 square, then scaled down so its shortest side is 768 px (images are never
    /// scaled up); it costs 170 tokens per 512-px tile plus 85. A 1024×1024 image is 4 tiles,
    /// 765 tokens; a 2048×4096 image becomes 768×1536, 6 tiles, 1,105 tokens.
    /// Unknown dimensions: 765 (the 1024×1024 case). GPT-4o-mini multiplies these numbers
    /// (2,833 + 5,667 per tile); use [`ImageRule::Fixed`] for it when it matters.
    OpenAi,
    /// Google Gemini (2.0 and later docs): an image with both sides at most 384 px costs 258
    /// tokens; a larger one is cropped and scaled into 768×768 tiles, 258 tokens each (counted
    /// here as `ceil(w / 768) × ceil(h / 768)` tiles). Gemini 1.5 charged a flat 258 per image.
    /// Unknown dimensions: 258.
    Gemini,
    /// A fixed cost per image, whatever its size (at least 1).
    Fixed(usize),
}

/// Anthropic: longest edge after scaling.
const ANTHROPIC_MAX_EDGE: u64 = 1568;
/// Anthropic: pixels per token.
const ANTHROPIC_PIXELS_PER_TOKEN: u64 = 750;
/// Anthropic: the most an image costs after scaling.
const ANTHROPIC_MAX_TOKENS: usize = 1600;

/// OpenAI: cost of `detail: "low"` and the base cost of `high`.
const OPENAI_BASE: usize = 85;
/// OpenAI: cost of one 512-px tile.
const OPENAI_TILE: usize = 170;
/// OpenAI: default for unknown dimensions (a 1024×1024 image at high detail).
const OPENAI_DEFAULT: usize = 765;

/// Gemini: cost of a small image and of each tile.
const GEMINI_TILE: usize = 258;

impl ImageRule {
    /// Tokens of one image of `size` (when known) with OpenAI's `detail` (`low`/`high`/`auto`,
    /// ignored by other rules).
    pub fn tokens(&self, size: Option<ImageSize>, detail: Option<&str>) -> usize {
        let size = size.filter(|s| s.width > 0 && s.height > 0);
        match self {
            ImageRule::Anthropic => size.map_or(ANTHROPIC_MAX_TOKENS, anthropic),
            ImageRule::OpenAi => {
                if detail.is_some_and(|d| d.eq_ignore_ascii_case("low")) {
                    OPENAI_BASE
                } else {
                    size.map_or(OPENAI_DEFAULT, openai_high)
                }
            }
            ImageRule::Gemini => size.map_or(GEMINI_TILE, gemini),
            ImageRule::Fixed(n) => (*n).max(1),
        }
    }

    /// Tokens of an image whose dimensions are not known.
    pub fn default_tokens(&self) -> usize {
        self.tokens(None, None)
    }
}

/// Scales `w × h` down to fit in `max_w × max_h`, keeping the ratio (integer, rounded down,
/// never below 1).
fn fit(w: u64, h: u64, max_w: u64, max_h: u64) -> (u64, u64) {
    if w <= max_w && h <= max_h {
        return (w, h);
    }
    // Scale by min(max_w / w, max_h / h), compared without floats.
    if w * max_h >= h * max_w {
        (max_w, (h * max_w / w).max(1))
    } else {
        ((w * max_h / h).max(1), max_h)
    }
}

fn anthropic(size: ImageSize) -> usize {
    let (w, h) = fit(
        u64::from(size.width),
        u64::from(size.height),
        ANTHROPIC_MAX_EDGE,
        ANTHROPIC_MAX_EDGE,
    );
    let tokens = (w * h).div_ceil(ANTHROPIC_PIXELS_PER_TOKEN);
    usize::try_from(tokens)
        .unwrap_or(ANTHROPIC_MAX_TOKENS)
        .clamp(1, ANTHROPIC_MAX_TOKENS)
}

fn openai_high(size: ImageSize) -> usize {
    let (w, h) = fit(u64::from(size.width), u64::from(size.height), 2048, 2048);
    let short = w.min(h);
    let (w, h) = if short > 768 {
        ((w * 768 / short).max(1), (h * 768 / short).max(1))
    } else {
        (w, h)
    };
    let tiles = w.div_ceil(512) * h.div_ceil(512);
    let tiles = usize::try_from(tiles).unwrap_or(usize::MAX);
    OPENAI_BASE.saturating_add(OPENAI_TILE.saturating_mul(tiles))
}

fn gemini(size: ImageSize) -> usize {
    if size.width <= 384 && size.height <= 384 {
        return GEMINI_TILE;
    }
    let tiles = u64::from(size.width).div_ceil(768) * u64::from(size.height).div_ceil(768);
    GEMINI_TILE.saturating_mul(usize::try_from(tiles).unwrap_or(usize::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sz(width: u32, height: u32) -> Option<ImageSize> {
        Some(ImageSize { width, height })
    }

    #[test]
    fn anthropic_pixels_over_750_with_scaling_and_cap() {
        let r = ImageRule::Anthropic;
        // 200x200 = 40,000 px / 750 = 53.3 -> 54
        assert_eq!(r.tokens(sz(200, 200), None), 54);
        // Anthropic's table: 1092x1092 costs about 1,590 tokens.
        assert_eq!(r.tokens(sz(1092, 1092), None), 1590);
        // 1000x1000 = 1,333.3 -> 1,334
        assert_eq!(r.tokens(sz(1000, 1000), None), 1334);
        // A 4000x3000 photo is scaled, costs the cap.
        assert_eq!(r.tokens(sz(4000, 3000), None), 1600);
        // A long strip: 8000x100 -> 1568x19 = 29,792 px -> 40 tokens.
        assert_eq!(r.tokens(sz(8000, 100), None), 40);
        assert_eq!(r.tokens(None, None), 1600);
        assert_eq!(r.tokens(sz(1, 1), None), 1);
    }

    #[test]
    fn openai_tiles() {
        let r = ImageRule::OpenAi;
        assert_eq!(r.tokens(sz(1024, 1024), Some("high")), 765);
        assert_eq!(r.tokens(sz(2048, 4096), Some("high")), 1105);
        assert_eq!(r.tokens(sz(4096, 8192), Some("low")), 85);
        assert_eq!(r.tokens(sz(4096, 8192), Some("LOW")), 85);
        // small images are not scaled up: 500x500 is one tile
        assert_eq!(r.tokens(sz(500, 500), Some("auto")), 255);
        // 1920x1080 -> 1365x768 -> 3x2 tiles
        assert_eq!(r.tokens(sz(1920, 1080), None), 85 + 170 * 6);
        assert_eq!(r.tokens(None, Some("high")), 765);
        assert_eq!(r.tokens(None, Some("low")), 85);
    }

    #[test]
    fn gemini_tiles() {
        let r = ImageRule::Gemini;
        assert_eq!(r.tokens(sz(384, 384), None), 258);
        assert_eq!(r.tokens(sz(385, 100), None), 258);
        assert_eq!(r.tokens(sz(1024, 1024), None), 258 * 4);
        assert_eq!(r.tokens(sz(1536, 768), None), 258 * 2);
        assert_eq!(r.tokens(None, None), 258);
    }

    #[test]
    fn fixed_and_zero_sizes() {
        assert_eq!(ImageRule::Fixed(0).tokens(sz(10, 10), None), 1);
        assert_eq!(ImageRule::Fixed(500).tokens(None, None), 500);
        // a zero dimension is treated as unknown
        assert_eq!(ImageRule::Anthropic.tokens(sz(0, 10), None), 1600);
        // huge dimensions never overflow
        assert_eq!(
            ImageRule::Anthropic.tokens(sz(u32::MAX, u32::MAX), None),
            1600
        );
        assert!(ImageRule::OpenAi.tokens(sz(u32::MAX, 1), None) >= 85);
        assert!(ImageRule::Gemini.tokens(sz(u32::MAX, u32::MAX), None) > 258);
    }
}
