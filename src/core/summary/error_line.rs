//! Which line of a failed tool call's output names the error, for the digest and the extractive
//! summary.
//!
//! The output's text is split into lines (at real line breaks and at the two characters `\n`
//! that escaped output shows). Lines that say nothing about the error are passed over: blank
//! ones, an exit status (`Exit code 1`), progress of a build or check (`Compiling …`,
//! `Checking PLT...`, a line ending in `...`) and lines of box drawing or punctuation alone;
//! `<tool_use_error>` tags are removed. Among the rest, the first that names an error (one of
//! [`ERROR_WORDS`], case-insensitive) is taken, else the first. A taken line that ends with `:`
//! only introduces the detail, so the next informative line is added after it. When every line
//! was passed over, the first non-blank line is taken.

/// Words that make a line of an error output the one worth quoting.
pub const ERROR_WORDS: &[&str] = &[
    "error",
    "fail",
    "exception",
    "denied",
    "not found",
    "no such",
    "does not exist",
    "doesn't exist",
    "panic",
    "invalid",
    "cannot",
    "can't",
    "unable",
    "refused",
    "timed out",
    "rejected",
    "undefined",
    "traceback",
];

/// First words of progress lines (compared case-sensitively, at the start of the trimmed line).
const PROGRESS: &[&str] = &[
    "Compiling ",
    "Checking ",
    "Finding ",
    "Finished ",
    "Running ",
    "Downloading ",
    "Downloaded ",
    "Building ",
    "Installing ",
    "Resolving ",
    "Fetching ",
    "Updating ",
    "Generated ",
    "Locking ",
    "Blocking waiting",
    "Waiting for",
];

/// The line of `text` that names the error (see the module documentation); empty when `text` has
/// no visible character.
pub fn telling_line(text: &str) -> String {
    let lines: Vec<&str> = text
        .split('\n')
        .flat_map(|l| l.split("\\n"))
        .map(clean)
        .filter(|l| !l.is_empty())
        .collect();
    let informative: Vec<&str> = lines.iter().copied().filter(|l| informative(l)).collect();
    let names_error = |l: &&str| {
        let lower = l.to_lowercase();
        ERROR_WORDS.iter().any(|w| lower.contains(w))
    };
    let Some(at) = informative
        .iter()
        .position(names_error)
        .or((!informative.is_empty()).then_some(0))
    else {
        return lines.first().copied().unwrap_or_default().to_string();
    };
    let line = informative.get(at).copied().unwrap_or_default();
    match informative.get(at + 1) {
        Some(next) if line.ends_with(':') => format!("{line} {next}"),
        _ => line.to_string(),
    }
}

/// The line trimmed, without `<tool_use_error>` tags.
fn clean(line: &str) -> &str {
    let l = line.trim();
    let l = l.strip_prefix("<tool_use_error>").unwrap_or(l);
    let l = l.strip_suffix("</tool_use_error>").unwrap_or(l);
    l.trim()
}

fn informative(line: &str) -> bool {
    let exit_status = ["Exit code ", "exit code ", "Exit status ", "exit status "]
        .iter()
        .any(|p| {
            line.strip_prefix(p)
                .is_some_and(|n| n.trim().parse::<i64>().is_ok())
        });
    let progress = PROGRESS.iter().any(|p| line.starts_with(p))
        || (line.ends_with("...") && !line.to_lowercase().contains("error"));
    let drawing = !line.chars().any(char::is_alphanumeric);
    !(exit_status || progress || drawing)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_exit_codes_progress_and_drawing() {
        assert_eq!(
            telling_line(
                "Exit code 2\n   Compiling foo v0.1.0\nerror[E0425]: cannot find value `x`"
            ),
            "error[E0425]: cannot find value `x`"
        );
        assert_eq!(telling_line("Exit code 1\n\nsome output"), "some output");
        assert_eq!(telling_line("Exit code 1"), "Exit code 1");
        assert_eq!(telling_line("  \n"), "");
        assert_eq!(
            telling_line("<tool_use_error>File does not exist.</tool_use_error>"),
            "File does not exist."
        );
        assert_eq!(
            telling_line("Pre-commit validation failed:\\n\\n[DIALYZER]\\nFinding suitable PLTs\nChecking PLT..."),
            "Pre-commit validation failed: [DIALYZER]"
        );
        assert_eq!(telling_line("┃ \n┃ ──\nwarning: unused"), "warning: unused");
    }
}
