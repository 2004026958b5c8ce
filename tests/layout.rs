//! The layout issue 22 asks for, checked on the source tree: the core and the formats are pure Rust
//! (no wasm-bindgen, no js-sys, no web-sys), and the binding (`src/wasm`) stays a thin layer of
//! handles, one interop module and the step runner: at most 2,500 lines of Rust.

use std::fs;
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn files_under(dir: &str) -> Vec<PathBuf> {
    let mut files = Vec::new();
    rust_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join(dir), &mut files);
    assert!(!files.is_empty(), "no Rust files under {dir}");
    files
}

#[test]
fn core_and_formats_are_pure_rust() {
    for dir in ["src/core", "src/formats"] {
        for file in files_under(dir) {
            let text = fs::read_to_string(&file).unwrap_or_default();
            for name in ["wasm_bindgen", "js_sys", "web_sys"] {
                assert!(!text.contains(name), "{} names {name}", file.display());
            }
        }
    }
}

#[test]
fn the_binding_stays_thin() {
    let lines: usize = files_under("src/wasm")
        .iter()
        .map(|f| fs::read_to_string(f).unwrap_or_default().lines().count())
        .sum();
    assert!(
        lines <= 2_500,
        "src/wasm holds {lines} lines of Rust (at most 2,500)"
    );
}
