//! The token functions as JS calls them, in wasm under Node (`wasm-pack test --node`) and in headless
//! Chromium (`wasm-pack test --headless --chrome -- --features browser-tests`).
#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use context_compaction::wasm::tokens::{
    count_tokens, estimate_tokens, install_encoding, is_encoding_loaded,
};
use context_compaction::wasm::tokens::{EncodingArg, TokenizerArg};
use js_sys::Reflect;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

#[cfg(feature = "browser-tests")]
wasm_bindgen_test_configure!(run_in_browser);

fn arg<T: JsCast>(name: &str) -> T {
    JsValue::from_str(name).unchecked_into()
}

fn field(error: &JsValue, key: &str) -> Option<String> {
    Reflect::get(error, &JsValue::from_str(key))
        .ok()?
        .as_string()
}

#[wasm_bindgen_test]
fn counting_before_loading_is_encoding_unavailable() {
    // This test binary never loads cl100k_base and registers no loader (no JS entry point).
    let error = count_tokens("hello".into(), &arg::<EncodingArg>("cl100k_base")).unwrap_err();
    assert!(error.is_instance_of::<js_sys::Error>());
    assert_eq!(
        field(&error, "code").as_deref(),
        Some("ENCODING_UNAVAILABLE")
    );
    assert_eq!(field(&error, "name").as_deref(), Some("CompactionError"));
    assert!(field(&error, "message").unwrap().contains("loadEncoding"));
}

#[wasm_bindgen_test]
fn counts_equal_tiktoken_on_the_corpus() {
    install_encoding(
        &JsValue::from_str("o200k_base"),
        include_bytes!("../encodings/o200k_base.ranks"),
    )
    .unwrap();
    assert!(is_encoding_loaded(&arg("o200k_base")).unwrap());
    let corpus: serde_json::Value =
        serde_json::from_str(include_str!("data/token-parity.json")).unwrap();
    for sample in corpus.as_array().unwrap() {
        let text = sample["text"].as_str().unwrap();
        let expected = sample["counts"]["o200k_base"].as_u64().unwrap() as usize;
        assert_eq!(
            count_tokens(text.into(), &arg("o200k_base")).unwrap(),
            expected,
            "{}",
            sample["kind"]
        );
        assert_eq!(
            estimate_tokens(text.into(), Some(arg::<TokenizerArg>("o200k_base"))).unwrap(),
            expected
        );
    }
}

#[wasm_bindgen_test]
fn bad_input_names_the_field() {
    let error = count_tokens("x".into(), &JsValue::from_f64(3.0).unchecked_into()).unwrap_err();
    assert_eq!(field(&error, "code").as_deref(), Some("INVALID_INPUT"));
    assert_eq!(field(&error, "path").as_deref(), Some("encoding"));
    let error = install_encoding(&JsValue::from_str("o200k_base"), b"not a table").unwrap_err();
    assert_eq!(field(&error, "path").as_deref(), Some("source:1"));
    let error = estimate_tokens("x".into(), Some(arg("gpt2"))).unwrap_err();
    assert_eq!(field(&error, "path").as_deref(), Some("tokenizer"));
    // Text that is not a string is a typed error too, not the glue's TypeError.
    for text in [
        JsValue::from_f64(42.0),
        JsValue::NULL,
        js_sys::Object::new().into(),
    ] {
        let error = estimate_tokens(text.clone(), None).unwrap_err();
        assert_eq!(field(&error, "code").as_deref(), Some("INVALID_INPUT"));
        assert_eq!(field(&error, "path").as_deref(), Some("text"));
        let error = count_tokens(text, &arg("o200k_base")).unwrap_err();
        assert_eq!(field(&error, "path").as_deref(), Some("text"));
    }
}

#[wasm_bindgen_test]
fn the_heuristic_needs_no_table() {
    assert_eq!(estimate_tokens("".into(), None).unwrap(), 0);
    assert!(
        estimate_tokens("The quick brown fox jumps over the lazy dog.".into(), None).unwrap() > 5
    );
    assert_eq!(
        estimate_tokens("some text".into(), Some(arg("heuristic"))).unwrap(),
        estimate_tokens("some text".into(), None).unwrap()
    );
}
