//! The layout issue 22 asks for, checked on the source tree: the core and the formats are pure Rust
//! (no wasm-bindgen, no js-sys, no web-sys), and the binding (`src/wasm`) does not grow back.
//! Issue 22's bound for the binding is 2,500 lines ([`MAX_BINDING_LINES`]; 4,978 before the move
//! of its policy into the core, 2,483 after it).

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

/// The most lines of Rust `src/wasm` may hold.
const MAX_BINDING_LINES: usize = 2_500;

#[test]
fn the_binding_stays_thin() {
    let lines: usize = files_under("src/wasm")
        .iter()
        .map(|f| fs::read_to_string(f).unwrap_or_default().lines().count())
        .sum();
    assert!(
        lines <= MAX_BINDING_LINES,
        "src/wasm holds {lines} lines of Rust (at most {MAX_BINDING_LINES})"
    );
}
