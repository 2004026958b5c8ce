#![no_main]
//! Fuzz target `exact_count`: counts and pieces against tiktoken-rs, see `fuzz/checks/mod.rs`.

#[path = "../checks/mod.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::exact_count(data));
