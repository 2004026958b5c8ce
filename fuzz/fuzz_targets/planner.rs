#![no_main]
//! Fuzz target `planner`: see `fuzz/checks/mod.rs`.

#[path = "../checks/mod.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::planner(data));
