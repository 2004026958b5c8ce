//! Which of the two request shapes a compaction hands the summarizer ([`SummaryMode`]); its own
//! file so that the settings can name it without depending on the request builders.

/// Which request a compaction hands the summarizer by default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SummaryMode {
    /// A transcript prompt under the summarizer's system prompt.
    Transcript,
    /// The conversation continued with the summary instruction.
    Continue,
}

impl SummaryMode {
    /// `"transcript"` or `"continue"`.
    pub fn as_str(self) -> &'static str {
        match self {
            SummaryMode::Transcript => "transcript",
            SummaryMode::Continue => "continue",
        }
    }

    /// Parses a name of [`SummaryMode::as_str`].
    pub fn parse(name: &str) -> Option<SummaryMode> {
        match name {
            "transcript" => Some(SummaryMode::Transcript),
            "continue" => Some(SummaryMode::Continue),
            _ => None,
        }
    }
}
