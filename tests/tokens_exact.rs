//! Exact counts equal tiktoken's on a frozen corpus of real texts (code, logs, JSON, CJK, emoji,
//! special-token strings), for both encodings; malformed rank tables are errors, never panics.
#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use context_compaction::core::error::ErrorCode;
use context_compaction::core::tokens::{Encoding, EncodingName, EncodingRegistry};
use proptest::prelude::*;
use serde_json::Value;
use std::sync::OnceLock;

#[path = "common/token_texts.rs"]
mod token_texts;

/// The shipped table (`encodings/<name>.ranks`).
fn table(name: EncodingName) -> Vec<u8> {
    file(name, "ranks")
}

fn file(name: EncodingName, extension: &str) -> Vec<u8> {
    let path = format!(
        "{}/encodings/{}.{extension}",
        env!("CARGO_MANIFEST_DIR"),
        name.as_str()
    );
    std::fs::read(path).unwrap()
}

#[test]
fn the_shipped_tables_are_openais() {
    // `scripts/gen-ranks.mjs` wrote the `.ranks` files from the `.tiktoken` ones: same tokens,
    // same ranks, and reading either gives the same table.
    for name in EncodingName::ALL {
        let shipped = table(name);
        let from_tiktoken = Encoding::parse(name, &file(name, "tiktoken")).unwrap();
        assert!(
            from_tiktoken.packed_table() == shipped,
            "{} is stale",
            name.as_str()
        );
        assert!(Encoding::parse(name, &shipped).unwrap().packed_table() == shipped);
    }
}

fn o200k() -> &'static Encoding {
    static ENC: OnceLock<Encoding> = OnceLock::new();
    ENC.get_or_init(|| {
        Encoding::parse(EncodingName::O200kBase, &table(EncodingName::O200kBase)).unwrap()
    })
}

#[test]
fn counts_equal_tiktoken_on_the_corpus() {
    let corpus: Value = serde_json::from_str(include_str!("data/token-parity.json")).unwrap();
    let samples = corpus.as_array().unwrap();
    assert!(samples.len() > 50);
    let cl100k =
        Encoding::parse(EncodingName::Cl100kBase, &table(EncodingName::Cl100kBase)).unwrap();
    for (i, sample) in samples.iter().enumerate() {
        let text = sample["text"].as_str().unwrap();
        for (encoding, name) in [(o200k(), "o200k_base"), (&cl100k, "cl100k_base")] {
            let expected = sample["counts"][name].as_u64().unwrap() as usize;
            assert_eq!(
                encoding.count(text),
                expected,
                "sample {i} ({}) in {name}",
                sample["kind"]
            );
        }
    }
}

fn cl100k() -> &'static Encoding {
    static ENC: OnceLock<Encoding> = OnceLock::new();
    ENC.get_or_init(|| {
        Encoding::parse(EncodingName::Cl100kBase, &table(EncodingName::Cl100kBase)).unwrap()
    })
}

fn assert_counts_equal_tiktoken(text: &str, what: &str) {
    let references = [
        (o200k(), tiktoken_rs::o200k_base_singleton()),
        (cl100k(), tiktoken_rs::cl100k_base_singleton()),
    ];
    for (encoding, reference) in references {
        assert_eq!(
            encoding.count(text),
            reference.encode_ordinary(text).len(),
            "{what} in {}",
            encoding.name().as_str()
        );
    }
}

#[test]
fn counts_equal_tiktoken_rs_on_every_fixture_text() {
    for (what, text) in token_texts::all() {
        assert_counts_equal_tiktoken(&text, &what);
    }
}

#[test]
fn counts_equal_tiktoken_rs_on_pathological_inputs() {
    for (what, text) in token_texts::pathological() {
        assert_counts_equal_tiktoken(&text, what);
    }
}

#[test]
fn special_token_strings_are_plain_text() {
    // tiktoken's ordinary path: "<|endoftext|>" is several ordinary tokens, not one special token.
    assert!(o200k().count("<|endoftext|>") > 1);
}

#[test]
fn registry_requires_loading_first() {
    let mut registry = EncodingRegistry::default();
    let err = registry.require(EncodingName::O200kBase).unwrap_err();
    assert_eq!(err.code, ErrorCode::EncodingUnavailable);
    assert!(err.message.contains("loadEncoding"), "{}", err.message);
    // A bad table leaves the slot empty; a good one fills it.
    assert!(registry.load(EncodingName::Cl100kBase, b"garbage").is_err());
    assert!(registry.get(EncodingName::Cl100kBase).is_none());
    registry
        .load(EncodingName::Cl100kBase, &table(EncodingName::Cl100kBase))
        .unwrap();
    assert_eq!(
        registry
            .require(EncodingName::Cl100kBase)
            .unwrap()
            .count("hello world"),
        2
    );
}

#[test]
fn the_table_of_one_encoding_is_refused_for_the_other() {
    let err =
        Encoding::parse(EncodingName::O200kBase, &table(EncodingName::Cl100kBase)).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidInput);
}

proptest! {

    #[test]
    fn counts_equal_tiktoken_rs_on_random_texts(text in "\\PC{0,80}", dense in token_texts::dense_text()) {
        assert_counts_equal_tiktoken(&text, "a random text");
        assert_counts_equal_tiktoken(&dense, "a random dense text");
    }

    #[test]
    fn counting_never_panics_and_never_exceeds_the_bytes(a in "\\PC{0,200}", b in "\\PC{0,200}") {
        let whole = format!("{a}\n\n{b}");
        let count = o200k().count(&whole);
        prop_assert!(count <= whole.len());
        prop_assert_eq!(o200k().count(""), 0);
        if !a.is_empty() { prop_assert!(o200k().count(&a) > 0); }
    }

    #[test]
    fn arbitrary_tables_never_panic(lines in proptest::collection::vec("[A-Za-z0-9+/=]{0,12}( [0-9]{0,6})?", 0..20)) {
        let text = lines.join("\n");
        let _ = Encoding::parse(EncodingName::Cl100kBase, text.as_bytes());
    }
}

#[test]
fn long_pieces_count_exactly_and_fast() {
    // Pieces far above the heap merge's threshold: runs without spaces of CJK, one letter, base64,
    // a long URL. Compared with tiktoken's own (quadratic) merge.
    let mut b64 = String::new();
    let mut x: u32 = 12345;
    for _ in 0..20_000 {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        b64.push(
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
                [(x >> 16) as usize % 64] as char,
        );
    }
    let texts = [
        "漢字かな交じり文".repeat(400),
        "a".repeat(6_000),
        b64,
        format!("https://example.com/{}", "path-segment_".repeat(500)),
        "🙂🙃".repeat(900),
    ];
    let reference = tiktoken_rs::o200k_base_singleton();
    for text in &texts {
        assert_eq!(
            o200k().count(text),
            reference.encode_ordinary(text).len(),
            "{}…",
            text.chars().take(20).collect::<String>()
        );
    }
    // 300,000 bytes of CJK in one piece (quadratic merging took minutes on it).
    assert_eq!(o200k().count(&"漢字".repeat(50_000)), 100_000);
}

#[test]
fn pieces_over_the_merge_window_count_as_tiktoken_does() {
    // 4 MiB + 4 bytes in one piece: merged in windows, joined on a shared token (issue 23: cut
    // into chunks it gave 1,048,579; tiktoken's o200k_base gives 1,048,578).
    assert_eq!(o200k().count(&"aaab".repeat(1_048_577)), 1_048_578);
}

#[test]
fn an_encoding_argument_is_a_known_name() {
    assert_eq!(
        EncodingName::parse_arg(Some("cl100k_base"), "encoding").unwrap(),
        EncodingName::Cl100kBase
    );
    let e = EncodingName::parse_arg(None, "encoding").unwrap_err();
    assert_eq!(
        (e.code, e.path.as_deref()),
        (ErrorCode::InvalidInput, Some("encoding"))
    );
    assert!(e.message.starts_with("expected an encoding name"));
    let e = EncodingName::parse_arg(Some("p50k"), "tokenizer").unwrap_err();
    assert_eq!(e.path.as_deref(), Some("tokenizer"));
}
