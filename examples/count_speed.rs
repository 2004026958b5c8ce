//! Native counting speed: `cargo run --release --example count_speed -- <text file> [repeats]`
//! prints MB/s for both encodings (the text is read once; tables from `encodings/`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    use context_compaction::core::tokens::{Encoding, EncodingName};
    use std::time::Instant;
    let args: Vec<String> = std::env::args().collect();
    let text = std::fs::read_to_string(&args[1]).unwrap();
    let repeats: usize = args.get(2).map_or(3, |s| s.parse().unwrap());
    for name in EncodingName::ALL {
        let path = format!("{}/encodings/{}", env!("CARGO_MANIFEST_DIR"), name.as_str());
        let file = std::fs::read(format!("{path}.ranks"))
            .or_else(|_| std::fs::read(format!("{path}.tiktoken")))
            .unwrap();
        let start = Instant::now();
        let encoding = Encoding::parse(name, &file).unwrap();
        let load = start.elapsed();
        let mut best = f64::MAX;
        let mut tokens = 0;
        for _ in 0..repeats {
            // A fresh table each time would include loading; the piece cache stays warm as in use.
            let start = Instant::now();
            tokens = encoding.count(&text);
            best = best.min(start.elapsed().as_secs_f64());
        }
        let pattern = match name {
            EncodingName::O200kBase => context_compaction::core::tokens::split::Pattern::O200k,
            EncodingName::Cl100kBase => context_compaction::core::tokens::split::Pattern::Cl100k,
        };
        let start = Instant::now();
        let pieces = context_compaction::core::tokens::split::pieces(pattern, &text).count();
        let split = start.elapsed().as_secs_f64();
        println!(
            "  splitting alone: {pieces} pieces in {:.1} ms",
            split * 1e3
        );
        println!(
            "{}: {tokens} tokens, load {:.1} ms, count {:.1} ms = {:.1} MB/s",
            name.as_str(),
            load.as_secs_f64() * 1e3,
            best * 1e3,
            text.len() as f64 / best / 1e6
        );
    }
}

#[cfg(target_arch = "wasm32")]
fn main() {}
