#![cfg(not(target_arch = "wasm32"))]
//! Accuracy of the fast token estimate against the exact `o200k_base` count, per content kind.
//!
//! Samples come from real agent sessions in `tests/fixtures/` (pi session JSONL under `pi/`,
//! Claude Code transcripts under `claude-code/`) and from the CJK paragraphs in `tests/data/cjk/`.
//! Every text block of a session is one sample, classified by this rule (no fixture is special-cased):
//!
//! - **prose / markdown**: user and assistant text, thinking, and compaction summaries. A block is
//!   markdown when one of its lines starts like markdown structure (a heading `#`, a fence
//!   ```` ``` ````, a list item `- ` / `* ` / `1. `, a table row `|`, a quote `> `), else prose.
//! - **json**: the arguments of every tool call, serialized as compact JSON (as they are sent to the
//!   model), and every tool result that parses as a JSON object or array.
//! - **code / markdown / json**: the result of a file read (pi `read`, Claude Code `Read`) by the
//!   extension of the path read: `.md`/`.mdx`/`.markdown` is markdown, `.json`/`.jsonl` is json, a
//!   source extension (see `CODE_EXTENSIONS`) is code; any other extension is left out.
//! - **logs**: every other tool result (bash, grep, glob, edit and write confirmations, web fetches)
//!   and pi's `bashExecution` output: command and tool output.
//! - **cjk**: each file of `tests/data/cjk/` (Chinese, Japanese, Korean and mixed technical text
//!   written for this test).
//!
//! A kind's ratio is sum(estimate) / sum(exact) over its samples; each must lie in 0.90..=1.25.
//! Run with `cargo test --test heuristic_accuracy -- --nocapture` to see the table.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

#[path = "common/fixtures.rs"]
mod fixtures;

use context_compaction::core::tokens::heuristic::estimate;
use context_compaction::core::tokens::{Encoding, EncodingName};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// The accepted band of sum(estimate) / sum(exact) for every kind.
const BAND: std::ops::RangeInclusive<f64> = 0.90..=1.25;

/// Extensions of files whose read result counts as code.
const CODE_EXTENSIONS: &[&str] = &[
    "rs", "ts", "tsx", "js", "jsx", "mjs", "cjs", "py", "go", "java", "kt", "c", "h", "cc", "cpp",
    "hpp", "cs", "rb", "ex", "exs", "heex", "eex", "erl", "sh", "bash", "zsh", "css", "scss",
    "html", "vue", "svelte", "swift", "toml", "yaml", "yml", "sql", "lua", "zig",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Kind {
    Prose,
    Markdown,
    Code,
    Json,
    Logs,
    Cjk,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Prose => "prose",
            Kind::Markdown => "markdown",
            Kind::Code => "code",
            Kind::Json => "json",
            Kind::Logs => "logs",
            Kind::Cjk => "cjk",
        }
    }
}

type Samples = Vec<(Kind, String)>;

fn crate_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fixtures_dir() -> PathBuf {
    fixtures::root()
}

/// Prose or markdown by the structure rule in the module doc.
fn text_kind(text: &str) -> Kind {
    let markdown = text.lines().any(|line| {
        let line = line.trim_start();
        line.starts_with('#')
            || line.starts_with("```")
            || line.starts_with("- ")
            || line.starts_with("* ")
            || line.starts_with("| ")
            || line.starts_with("> ")
            || line
                .split_once(". ")
                .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    });
    if markdown {
        Kind::Markdown
    } else {
        Kind::Prose
    }
}

fn extension(path: &str) -> String {
    Path::new(path)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase()
}

/// The kind of a tool result, by the rule in the module doc; `None` leaves it out.
fn result_kind(tool: &str, read_path: Option<&str>, text: &str) -> Option<Kind> {
    let trimmed = text.trim_start();
    if (trimmed.starts_with('{') || trimmed.starts_with('['))
        && serde_json::from_str::<Value>(text).is_ok()
    {
        return Some(Kind::Json);
    }
    if tool.eq_ignore_ascii_case("read") {
        let ext = extension(read_path.unwrap_or_default());
        return match ext.as_str() {
            "md" | "mdx" | "markdown" => Some(Kind::Markdown),
            "json" | "jsonl" => Some(Kind::Json),
            e if CODE_EXTENSIONS.contains(&e) => Some(Kind::Code),
            _ => None,
        };
    }
    Some(Kind::Logs)
}

fn push(samples: &mut Samples, kind: Kind, text: &str) {
    if !text.trim().is_empty() {
        samples.push((kind, text.to_owned()));
    }
}

/// Text of a content value that is a string or a list of `{type: "text", text}` blocks.
fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn pi_samples(path: &Path, samples: &mut Samples) {
    let text = std::fs::read_to_string(path).unwrap();
    // toolCallId -> (tool name, path argument)
    let mut calls: HashMap<String, Option<String>> = HashMap::new();
    for line in text.lines() {
        let Ok(entry) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if entry["type"] == "compaction" {
            if let Some(summary) = entry["summary"].as_str() {
                push(samples, text_kind(summary), summary);
            }
            continue;
        }
        if entry["type"] != "message" {
            continue;
        }
        let message = &entry["message"];
        match message["role"].as_str().unwrap_or_default() {
            "user" | "assistant" => {
                for block in message["content"].as_array().into_iter().flatten() {
                    match block["type"].as_str().unwrap_or_default() {
                        "text" => {
                            let t = block["text"].as_str().unwrap_or_default();
                            push(samples, text_kind(t), t);
                        }
                        "thinking" => {
                            let t = block["thinking"].as_str().unwrap_or_default();
                            push(samples, text_kind(t), t);
                        }
                        "toolCall" => {
                            let args = &block["arguments"];
                            push(samples, Kind::Json, &args.to_string());
                            let id = block["id"].as_str().unwrap_or_default().to_owned();
                            calls.insert(id, args["path"].as_str().map(str::to_owned));
                        }
                        _ => {}
                    }
                }
                if let Value::String(t) = &message["content"] {
                    push(samples, text_kind(t), t);
                }
            }
            "toolResult" => {
                let tool = message["toolName"].as_str().unwrap_or_default();
                let id = message["toolCallId"].as_str().unwrap_or_default();
                let read_path = calls.get(id).cloned().flatten();
                let t = content_text(&message["content"]);
                if let Some(kind) = result_kind(tool, read_path.as_deref(), &t) {
                    push(samples, kind, &t);
                }
            }
            "bashExecution" => {
                push(
                    samples,
                    Kind::Logs,
                    message["output"].as_str().unwrap_or_default(),
                );
            }
            _ => {}
        }
    }
}

fn claude_code_samples(path: &Path, samples: &mut Samples) {
    let text = std::fs::read_to_string(path).unwrap();
    // tool_use id -> (tool name, file_path argument)
    let mut calls: HashMap<String, (String, Option<String>)> = HashMap::new();
    for line in text.lines() {
        let Ok(entry) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if entry["type"] != "user" && entry["type"] != "assistant" {
            continue;
        }
        let content = &entry["message"]["content"];
        if let Value::String(t) = content {
            push(samples, text_kind(t), t);
            continue;
        }
        for block in content.as_array().into_iter().flatten() {
            match block["type"].as_str().unwrap_or_default() {
                "text" => {
                    let t = block["text"].as_str().unwrap_or_default();
                    push(samples, text_kind(t), t);
                }
                "thinking" => {
                    let t = block["thinking"].as_str().unwrap_or_default();
                    push(samples, text_kind(t), t);
                }
                "tool_use" => {
                    let input = &block["input"];
                    push(samples, Kind::Json, &input.to_string());
                    let id = block["id"].as_str().unwrap_or_default().to_owned();
                    let name = block["name"].as_str().unwrap_or_default().to_owned();
                    calls.insert(id, (name, input["file_path"].as_str().map(str::to_owned)));
                }
                "tool_result" => {
                    let id = block["tool_use_id"].as_str().unwrap_or_default();
                    let (tool, read_path) = calls.get(id).cloned().unwrap_or_default();
                    let t = content_text(&block["content"]);
                    if let Some(kind) = result_kind(&tool, read_path.as_deref(), &t) {
                        push(samples, kind, &t);
                    }
                }
                _ => {}
            }
        }
    }
}

fn jsonl_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// The fixture samples, or `None` when the fixtures are absent.
fn fixture_samples() -> Option<Samples> {
    let dir = fixtures_dir();
    if !dir.is_dir() {
        return None;
    }
    let mut samples = Vec::new();
    for file in jsonl_files(&dir.join("pi")) {
        pi_samples(&file, &mut samples);
    }
    for file in jsonl_files(&dir.join("claude-code")) {
        claude_code_samples(&file, &mut samples);
    }
    Some(samples)
}

fn cjk_samples() -> Samples {
    let dir = crate_root().join("tests/data/cjk");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no CJK samples in {}", dir.display());
    files
        .into_iter()
        .map(|p| (Kind::Cjk, std::fs::read_to_string(p).unwrap()))
        .collect()
}

fn o200k() -> Encoding {
    let table = std::fs::read(crate_root().join("encodings/o200k_base.tiktoken")).unwrap();
    Encoding::parse(EncodingName::O200kBase, &table).unwrap()
}

#[derive(Default)]
struct Tally {
    samples: usize,
    chars: usize,
    exact: usize,
    estimate: usize,
    quarter: usize,
}

#[test]
fn estimate_is_within_band_for_every_kind() {
    let mut samples = cjk_samples();
    let mut expected = vec![Kind::Cjk];
    match fixture_samples() {
        Some(fixture) => {
            samples.extend(fixture);
            expected.extend([
                Kind::Prose,
                Kind::Markdown,
                Kind::Code,
                Kind::Json,
                Kind::Logs,
            ]);
        }
        None => panic!(
            "{} is missing: the fixtures belong in the repository",
            fixtures_dir().display()
        ),
    }

    let encoding = o200k();
    let mut tallies: BTreeMap<Kind, Tally> = BTreeMap::new();
    for (kind, text) in &samples {
        let tally = tallies.entry(*kind).or_default();
        let chars = text.chars().count();
        tally.samples += 1;
        tally.chars += chars;
        tally.exact += encoding.count(text);
        tally.estimate += estimate(text);
        tally.quarter += chars.div_ceil(4);
    }

    println!(
        "{:<10} {:>8} {:>10} {:>10} {:>9} {:>9}",
        "kind", "samples", "chars", "exact", "estimate", "chars/4"
    );
    let mut failures = Vec::new();
    for (kind, t) in &tallies {
        let ratio = t.estimate as f64 / t.exact.max(1) as f64;
        let quarter = t.quarter as f64 / t.exact.max(1) as f64;
        println!(
            "{:<10} {:>8} {:>10} {:>10} {:>9.3} {:>9.3}",
            kind.name(),
            t.samples,
            t.chars,
            t.exact,
            ratio,
            quarter
        );
        if !BAND.contains(&ratio) {
            failures.push(format!("{}: {ratio:.3}", kind.name()));
        }
    }
    for kind in expected {
        if !tallies.contains_key(&kind) {
            failures.push(format!("{}: no samples", kind.name()));
        }
    }
    assert!(
        failures.is_empty(),
        "estimate / exact outside {BAND:?}: {}",
        failures.join(", ")
    );
}
