#![no_main]
//! Fuzz target `encoding`: see `fuzz/checks/mod.rs`.

#[path = "../checks/mod.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::encoding(data));
