//! Known models: context window, maximum output and the tokenizer that fits.
//!
//! Numbers are the providers' published limits as of late 2025. Where a provider offers a larger
//! window behind an opt-in (Anthropic's 1M-token beta for Sonnet 4 / 4.5, 128K output for Claude
//! 3.7 Sonnet), the default limit is listed. Entries marked "uncertain" are best knowledge, not
//! checked against a primary source; callers can always pass `contextWindow` explicitly.

use crate::core::estimate::{ImageRule, Profile};
use crate::core::tokens::EncodingName;

/// Who serves a model (decides the image rule and the tokenizer family).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Provider {
    OpenAi,
    Anthropic,
    Google,
}

/// Limits of a known model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModelInfo {
    /// Input plus output tokens the model accepts.
    pub context_window: usize,
    /// The most output tokens of one response.
    pub max_output: usize,
    /// Who serves it.
    pub provider: Provider,
    /// The exact tokenizer, when public: `o200k_base` (GPT-4o, GPT-4.1, o-series, GPT-5),
    /// `cl100k_base` (GPT-4, GPT-4 Turbo, GPT-3.5); `None` (Claude, Gemini) means the heuristic.
    pub encoding: Option<EncodingName>,
}

impl ModelInfo {
    /// The image rule of the model's provider.
    pub fn image_rule(&self) -> ImageRule {
        match self.provider {
            Provider::OpenAi => ImageRule::OpenAi,
            Provider::Anthropic => ImageRule::Anthropic,
            Provider::Google => ImageRule::Gemini,
        }
    }

    /// Whose count estimates aim at: the provider's own (see [`Profile`]).
    pub fn profile(&self) -> Profile {
        match self.provider {
            Provider::OpenAi => Profile::OPENAI,
            Provider::Anthropic => Profile::ANTHROPIC,
            Provider::Google => Profile::GOOGLE,
        }
    }
}

use EncodingName::{Cl100kBase as CL, O200kBase as O2};
use Provider::{Anthropic as A, Google as G, OpenAi as O};

/// `(name, context window, max output, provider, encoding)`. Matching takes the exact name,
/// else the longest entry that is a prefix followed by `-`, `:`, `@` or `_`.
const MODELS: &[(&str, usize, usize, Provider, Option<EncodingName>)] = &[
    // OpenAI
    ("gpt-5", 400_000, 128_000, O, Some(O2)),
    ("gpt-5-mini", 400_000, 128_000, O, Some(O2)),
    ("gpt-5-nano", 400_000, 128_000, O, Some(O2)),
    ("gpt-5-chat", 128_000, 16_384, O, Some(O2)),
    ("gpt-5.1", 400_000, 128_000, O, Some(O2)),
    ("gpt-5.1-chat", 128_000, 16_384, O, Some(O2)),
    ("gpt-4.1", 1_047_576, 32_768, O, Some(O2)),
    ("gpt-4.1-mini", 1_047_576, 32_768, O, Some(O2)),
    ("gpt-4.1-nano", 1_047_576, 32_768, O, Some(O2)),
    ("gpt-4.5-preview", 128_000, 16_384, O, Some(O2)),
    ("gpt-4o", 128_000, 16_384, O, Some(O2)),
    ("gpt-4o-2024-05-13", 128_000, 4_096, O, Some(O2)),
    ("gpt-4o-mini", 128_000, 16_384, O, Some(O2)),
    ("chatgpt-4o-latest", 128_000, 16_384, O, Some(O2)),
    ("o1", 200_000, 100_000, O, Some(O2)),
    ("o1-mini", 128_000, 65_536, O, Some(O2)),
    ("o1-preview", 128_000, 32_768, O, Some(O2)),
    ("o1-pro", 200_000, 100_000, O, Some(O2)),
    ("o3", 200_000, 100_000, O, Some(O2)),
    ("o3-mini", 200_000, 100_000, O, Some(O2)),
    ("o3-pro", 200_000, 100_000, O, Some(O2)),
    ("o4-mini", 200_000, 100_000, O, Some(O2)),
    ("gpt-4-turbo", 128_000, 4_096, O, Some(CL)),
    ("gpt-4-1106-preview", 128_000, 4_096, O, Some(CL)),
    ("gpt-4-0125-preview", 128_000, 4_096, O, Some(CL)),
    ("gpt-4-vision-preview", 128_000, 4_096, O, Some(CL)),
    ("gpt-4", 8_192, 8_192, O, Some(CL)),
    ("gpt-4-32k", 32_768, 8_192, O, Some(CL)),
    ("gpt-3.5-turbo", 16_385, 4_096, O, Some(CL)),
    // The original gpt-3.5-turbo-0613 had a 4,096-token window.
    ("gpt-3.5-turbo-0613", 4_096, 4_096, O, Some(CL)),
    ("gpt-3.5-turbo-16k", 16_385, 4_096, O, Some(CL)),
    ("gpt-3.5-turbo-instruct", 4_096, 4_096, O, Some(CL)),
    // Anthropic: every Claude model has a 200K window by default.
    ("claude-3-haiku", 200_000, 4_096, A, None),
    ("claude-3-sonnet", 200_000, 4_096, A, None),
    ("claude-3-opus", 200_000, 4_096, A, None),
    ("claude-3-5-haiku", 200_000, 8_192, A, None),
    ("claude-3-5-sonnet", 200_000, 8_192, A, None),
    // 64K output by default, 128K with the output-128k beta header.
    ("claude-3-7-sonnet", 200_000, 64_000, A, None),
    ("claude-sonnet-4", 200_000, 64_000, A, None),
    ("claude-opus-4", 200_000, 32_000, A, None),
    ("claude-opus-4-1", 200_000, 32_000, A, None),
    ("claude-sonnet-4-5", 200_000, 64_000, A, None),
    ("claude-haiku-4-5", 200_000, 64_000, A, None),
    ("claude-opus-4-5", 200_000, 64_000, A, None),
    // Older third-party spellings of the Claude 4 names (OpenRouter, Cursor...).
    ("claude-4-sonnet", 200_000, 64_000, A, None),
    ("claude-4-opus", 200_000, 32_000, A, None),
    ("claude-4-1-opus", 200_000, 32_000, A, None),
    ("claude-4-5-sonnet", 200_000, 64_000, A, None),
    ("claude-4-5-haiku", 200_000, 64_000, A, None),
    ("claude-4-5-opus", 200_000, 64_000, A, None),
    // Google
    ("gemini-1.5-pro", 2_097_152, 8_192, G, None),
    ("gemini-1.5-flash", 1_048_576, 8_192, G, None),
    ("gemini-1.5-flash-8b", 1_048_576, 8_192, G, None),
    ("gemini-2.0-flash", 1_048_576, 8_192, G, None),
    ("gemini-2.0-flash-lite", 1_048_576, 8_192, G, None),
    // uncertain: the experimental 2.0 Pro was announced with a 2M window.
    ("gemini-2.0-pro", 2_097_152, 8_192, G, None),
    ("gemini-2.5-pro", 1_048_576, 65_536, G, None),
    ("gemini-2.5-flash", 1_048_576, 65_536, G, None),
    ("gemini-2.5-flash-lite", 1_048_576, 65_536, G, None),
    // Gemini 3 (previews): Google's SDK counts them with the same tokenizer as 2.x.
    ("gemini-3-pro", 1_048_576, 65_536, G, None),
    ("gemini-3-flash", 1_048_576, 65_536, G, None),
];

fn info(entry: &(&str, usize, usize, Provider, Option<EncodingName>)) -> ModelInfo {
    ModelInfo {
        context_window: entry.1,
        max_output: entry.2,
        provider: entry.3,
        encoding: entry.4,
    }
}

/// The limits of a model by name, `None` when unknown. Case-insensitive. Accepts:
/// - exact names and names with a date, version or `-latest` suffix (longest known prefix
///   followed by `-`, `:`, `@` or `_`: `claude-sonnet-4-5-20250929`, `gpt-4o-2024-08-06`,
///   `gemini-2.5-pro-preview-05-06`);
/// - provider prefixes: anything up to the last `/` (`openai/gpt-4o`, `models/gemini-2.0-flash`)
///   and Bedrock's `anthropic.` / `us.anthropic.` (`anthropic.claude-3-5-sonnet-20240620-v1:0`);
/// - dotted Claude versions (`anthropic/claude-3.5-sonnet`, `claude-sonnet-4.5`).
pub fn model_info(name: &str) -> Option<ModelInfo> {
    let lower = name.trim().to_ascii_lowercase();
    let base = lower.rsplit('/').next().unwrap_or(&lower);
    let base = match base.find("anthropic.") {
        Some(at) => base.get(at + "anthropic.".len()..).unwrap_or(base),
        None => base,
    };
    let normalized;
    let base = if base.starts_with("claude") && base.contains('.') {
        normalized = base.replace('.', "-");
        normalized.as_str()
    } else {
        base
    };
    if let Some(entry) = MODELS.iter().find(|e| e.0 == base) {
        return Some(info(entry));
    }
    MODELS
        .iter()
        .filter(|e| {
            base.strip_prefix(e.0)
                .and_then(|rest| rest.chars().next())
                .is_some_and(|c| matches!(c, '-' | ':' | '@' | '_'))
        })
        .max_by_key(|e| e.0.len())
        .map(info)
}

/// The exact encoding that fits the model, `None` for unknown models and models whose tokenizer
/// is not public (use the heuristic).
pub fn encoding_for(name: &str) -> Option<EncodingName> {
    model_info(name).and_then(|m| m.encoding)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn window(name: &str) -> Option<usize> {
        model_info(name).map(|m| m.context_window)
    }

    #[test]
    fn openai_models() {
        assert_eq!(window("gpt-4o"), Some(128_000));
        assert_eq!(model_info("gpt-4o-2024-08-06").unwrap().max_output, 16_384);
        assert_eq!(model_info("gpt-4o-2024-05-13").unwrap().max_output, 4_096);
        assert_eq!(
            model_info("gpt-4o-mini-2024-07-18").unwrap().max_output,
            16_384
        );
        assert_eq!(window("gpt-4.1-mini-2025-04-14"), Some(1_047_576));
        assert_eq!(window("gpt-5"), Some(400_000));
        assert_eq!(window("gpt-5-codex"), Some(400_000));
        assert_eq!(window("gpt-5-chat-latest"), Some(128_000));
        assert_eq!(window("o1-mini"), Some(128_000));
        assert_eq!(window("o3-mini-2025-01-31"), Some(200_000));
        assert_eq!(window("o4-mini"), Some(200_000));
        assert_eq!(window("gpt-4-turbo-2024-04-09"), Some(128_000));
        assert_eq!(window("gpt-4-0613"), Some(8_192));
        assert_eq!(window("gpt-3.5-turbo-0125"), Some(16_385));
        assert_eq!(window("openai/gpt-4o"), Some(128_000));
        assert_eq!(window("GPT-4O"), Some(128_000));
        assert_eq!(encoding_for("gpt-4o"), Some(EncodingName::O200kBase));
        assert_eq!(encoding_for("o3"), Some(EncodingName::O200kBase));
        assert_eq!(encoding_for("gpt-5-mini"), Some(EncodingName::O200kBase));
        assert_eq!(encoding_for("gpt-4"), Some(EncodingName::Cl100kBase));
        assert_eq!(encoding_for("gpt-4-turbo"), Some(EncodingName::Cl100kBase));
        assert_eq!(
            encoding_for("gpt-3.5-turbo"),
            Some(EncodingName::Cl100kBase)
        );
    }

    #[test]
    fn anthropic_models() {
        let s45 = model_info("claude-sonnet-4-5-20250929").unwrap();
        assert_eq!((s45.context_window, s45.max_output), (200_000, 64_000));
        assert_eq!(s45.provider, Provider::Anthropic);
        assert_eq!(s45.encoding, None);
        assert_eq!(s45.image_rule(), ImageRule::Anthropic);
        assert_eq!(
            model_info("claude-3-5-sonnet-latest").unwrap().max_output,
            8_192
        );
        assert_eq!(
            model_info("claude-3-5-haiku-20241022").unwrap().max_output,
            8_192
        );
        assert_eq!(
            model_info("claude-3-haiku-20240307").unwrap().max_output,
            4_096
        );
        assert_eq!(
            model_info("claude-3-7-sonnet-latest").unwrap().max_output,
            64_000
        );
        assert_eq!(
            model_info("claude-opus-4-1-20250805").unwrap().max_output,
            32_000
        );
        assert_eq!(
            model_info("claude-opus-4-20250514").unwrap().max_output,
            32_000
        );
        assert_eq!(model_info("claude-opus-4-5").unwrap().max_output, 64_000);
        assert_eq!(
            model_info("claude-haiku-4-5-20251001").unwrap().max_output,
            64_000
        );
        assert_eq!(window("anthropic/claude-3.5-sonnet"), Some(200_000));
        assert_eq!(
            model_info("anthropic/claude-sonnet-4.5")
                .unwrap()
                .max_output,
            64_000
        );
        assert_eq!(
            window("us.anthropic.claude-3-5-sonnet-20240620-v1:0"),
            Some(200_000)
        );
        assert_eq!(window("claude-3-5-sonnet@20240620"), Some(200_000));
    }

    #[test]
    fn google_models() {
        assert_eq!(window("gemini-1.5-pro-002"), Some(2_097_152));
        assert_eq!(window("models/gemini-2.0-flash"), Some(1_048_576));
        let lite = model_info("google/gemini-2.5-flash-lite").unwrap();
        assert_eq!(lite.max_output, 65_536);
        assert_eq!(lite.image_rule(), ImageRule::Gemini);
        assert_eq!(window("gemini-3-pro-preview"), Some(1_048_576));
        assert_eq!(window("models/gemini-3-flash-preview"), Some(1_048_576));
        assert_eq!(window("gemini-2.5-pro-preview-05-06"), Some(1_048_576));
    }

    #[test]
    fn each_provider_has_its_profile() {
        let profile = |name: &str| model_info(name).unwrap().profile();
        assert_eq!(profile("gpt-4o"), Profile::OPENAI);
        assert_eq!(profile("claude-opus-4-6"), Profile::ANTHROPIC);
        assert_eq!(
            profile("us.anthropic.claude-3-5-sonnet-20240620-v1:0"),
            Profile::ANTHROPIC
        );
        assert_eq!(profile("gemini-2.5-flash"), Profile::GOOGLE);
        assert_eq!(Profile::OPENAI.factors, crate::core::estimate::Factors::ONE);
    }

    #[test]
    fn unknown_and_near_miss_names() {
        assert_eq!(model_info("llama-3-70b"), None);
        assert_eq!(model_info(""), None);
        // a known name must be followed by a separator to match as a prefix
        assert_eq!(model_info("gpt-4ox"), None);
        assert_eq!(model_info("o10"), None);
        // gpt-4.5 is not gpt-4
        assert_eq!(window("gpt-4.5-preview-2025-02-27"), Some(128_000));
        assert_eq!(encoding_for("claude-sonnet-4"), None);
        assert_eq!(encoding_for("unknown"), None);
    }
}
