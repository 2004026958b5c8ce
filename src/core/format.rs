//! The message formats the package speaks, by name. Converting them is `crate::formats`' job;
//! the core only needs to know which one a caller chose.

use crate::core::error::{Error, Result};

/// A message format of the caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// Vercel AI SDK v5 `ModelMessage`.
    AiSdk,
    /// OpenAI chat completions.
    OpenAi,
    /// Anthropic messages API.
    Anthropic,
    /// pi agent messages.
    Pi,
    /// LangChain.js messages (the plain form of `BaseMessage`).
    LangChain,
}

impl Format {
    /// Every value the `format` option takes: `"auto"` and each format's name.
    pub const OPTION_NAMES: &'static [&'static str] =
        &["auto", "ai-sdk", "openai", "anthropic", "pi", "langchain"];

    /// The name as the API spells it (`"ai-sdk"`, `"openai"`, `"anthropic"`, `"pi"`, `"langchain"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Format::AiSdk => "ai-sdk",
            Format::OpenAi => "openai",
            Format::Anthropic => "anthropic",
            Format::Pi => "pi",
            Format::LangChain => "langchain",
        }
    }

    /// Parses a format name; `"auto"` gives `None` (detect from the messages).
    pub fn parse(name: &str) -> Result<Option<Format>> {
        match name {
            "ai-sdk" => Ok(Some(Format::AiSdk)),
            "openai" => Ok(Some(Format::OpenAi)),
            "anthropic" => Ok(Some(Format::Anthropic)),
            "pi" => Ok(Some(Format::Pi)),
            "langchain" => Ok(Some(Format::LangChain)),
            "auto" => Ok(None),
            other => Err(Error::invalid_option(
                "format",
                format!(
                    "unknown format \"{other}\" (expected \"ai-sdk\", \"openai\", \"anthropic\", \"pi\", \"langchain\" or \"auto\")"
                ),
            )),
        }
    }

    /// The `format` argument of a free function: absent (`None`), not a string (`Some(None)`:
    /// `INVALID_INPUT`), or a name as [`Format::parse`] reads it, refused as `INVALID_INPUT`.
    pub fn parse_arg(given: Option<Option<&str>>) -> Result<Option<Format>> {
        let Some(name) = given else {
            return Ok(None);
        };
        let name = name.ok_or_else(|| Error::invalid_input("format", "format must be a string"))?;
        Format::parse(name).map_err(|e| Error::invalid_input("format", e.message))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_format_argument_is_refused_as_input() {
        assert_eq!(Format::parse_arg(None).unwrap(), None);
        assert_eq!(Format::parse_arg(Some(Some("auto"))).unwrap(), None);
        assert_eq!(
            Format::parse_arg(Some(Some("pi"))).unwrap(),
            Some(Format::Pi)
        );
        let e = Format::parse_arg(Some(None)).unwrap_err();
        assert_eq!(
            (e.code.as_str(), e.path.as_deref()),
            ("INVALID_INPUT", Some("format"))
        );
        assert_eq!(e.message, "format must be a string");
        let e = Format::parse_arg(Some(Some("xml"))).unwrap_err();
        assert_eq!(
            (e.code.as_str(), e.path.as_deref()),
            ("INVALID_INPUT", Some("format"))
        );
        assert!(e.message.contains("unknown format \"xml\""));
    }
}
