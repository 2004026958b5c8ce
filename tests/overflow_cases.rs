//! Every collected provider error body (tests/data/overflow/cases.json, each with its source) is
//! classified as its case says: overflows with the right provider and numbers, other errors not.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use context_compaction::core::overflow::classify;
use serde_json::Value;

#[test]
fn every_collected_error_is_classified_as_expected() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/overflow/cases.json"
    );
    let cases: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert!(cases.len() >= 18);
    let mut positives = 0;
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        assert!(
            case["source"].as_str().is_some_and(|s| !s.is_empty()),
            "{name}: source"
        );
        let expected = &case["expected"];
        let got = classify(&case["error"]);
        if expected["overflow"] == Value::Bool(false) {
            assert_eq!(got, None, "{name}");
            continue;
        }
        positives += 1;
        let got = got.unwrap_or_else(|| panic!("{name}: not recognised"));
        assert_eq!(
            got.provider,
            expected["provider"].as_str(),
            "{name}: provider"
        );
        assert_eq!(got.limit, expected["limit"].as_u64(), "{name}: limit");
        assert_eq!(
            got.requested,
            expected["requested"].as_u64(),
            "{name}: requested"
        );
    }
    assert!(positives >= 14);
}
