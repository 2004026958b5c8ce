#![no_main]
//! Fuzz target `claude_code`: see `fuzz/checks/mod.rs`.

#[path = "../checks/mod.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::claude_code(data));
