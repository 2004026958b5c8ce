//! The one error type of the core: a stable code, a message a person can act on, and for bad input
//! the path of the offending field (`messages[3].content[0].toolCallId`).

use std::fmt;

/// Stable error codes; the JS layer exposes them verbatim as `error.code`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    InvalidInput,
    InvalidOptions,
    SummarizerFailed,
    SummaryEmpty,
    NoProgress,
    Aborted,
    Timeout,
    Conflict,
    CannotCompact,
    EncodingUnavailable,
    /// A hook that decides something (`onBeforeCompaction`) threw or rejected.
    HookFailed,
    /// The WebAssembly instance trapped and was replaced (set by the JS entry's guard).
    Internal,
    /// The object was freed, or made by an instance that was replaced after a trap.
    Disposed,
}

impl ErrorCode {
    /// The code as JS sees it, e.g. `"ENCODING_UNAVAILABLE"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidInput => "INVALID_INPUT",
            ErrorCode::InvalidOptions => "INVALID_OPTIONS",
            ErrorCode::SummarizerFailed => "SUMMARIZER_FAILED",
            ErrorCode::SummaryEmpty => "SUMMARY_EMPTY",
            ErrorCode::NoProgress => "NO_PROGRESS",
            ErrorCode::Aborted => "ABORTED",
            ErrorCode::Timeout => "TIMEOUT",
            ErrorCode::Conflict => "CONFLICT",
            ErrorCode::CannotCompact => "CANNOT_COMPACT",
            ErrorCode::EncodingUnavailable => "ENCODING_UNAVAILABLE",
            ErrorCode::HookFailed => "HOOK_FAILED",
            ErrorCode::Internal => "INTERNAL",
            ErrorCode::Disposed => "DISPOSED",
        }
    }

    /// Every code.
    pub const ALL: [ErrorCode; 13] = [
        ErrorCode::InvalidInput,
        ErrorCode::InvalidOptions,
        ErrorCode::SummarizerFailed,
        ErrorCode::SummaryEmpty,
        ErrorCode::NoProgress,
        ErrorCode::Aborted,
        ErrorCode::Timeout,
        ErrorCode::Conflict,
        ErrorCode::CannotCompact,
        ErrorCode::EncodingUnavailable,
        ErrorCode::HookFailed,
        ErrorCode::Internal,
        ErrorCode::Disposed,
    ];

    /// The code named `name` (as [`ErrorCode::as_str`] spells it).
    pub fn parse(name: &str) -> Option<ErrorCode> {
        ErrorCode::ALL.into_iter().find(|c| c.as_str() == name)
    }
}

/// An error of the core. `path` is set for bad input and names the offending field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub code: ErrorCode,
    pub message: String,
    pub path: Option<String>,
}

impl Error {
    /// An error with a code and a message, no path.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Error {
            code,
            message: message.into(),
            path: None,
        }
    }

    /// Bad input at `path` (e.g. `messages[3].content[0].toolCallId`).
    pub fn invalid_input(path: impl Into<String>, message: impl Into<String>) -> Self {
        Error {
            code: ErrorCode::InvalidInput,
            message: message.into(),
            path: Some(path.into()),
        }
    }

    /// A bad option, with the option's key as path.
    pub fn invalid_option(key: impl Into<String>, message: impl Into<String>) -> Self {
        Error {
            code: ErrorCode::InvalidOptions,
            message: message.into(),
            path: Some(key.into()),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(path) => write!(f, "{} ({}: {})", self.message, self.code.as_str(), path),
            None => write!(f, "{} ({})", self.message, self.code.as_str()),
        }
    }
}

impl std::error::Error for Error {}

/// The core's result type.
pub type Result<T> = std::result::Result<T, Error>;
