//! The seeds' and peers' trigger rules exactly as they state them: the oracles the presets'
//! triggers are checked against (test-only; the library expresses them as `(Trigger, Budget)`).
#![allow(
    dead_code,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_precision_loss
)]

use context_compaction::core::trigger::{CLAUDE_CODE_BUFFER, OPENCODE_OUTPUT_CAP};

/// Seed 001: `floor((window − system − output − safety) × percent)`; with its defaults
/// (128,000 / 2,000 / 4,000 / 5,000 / 0.80) 93,600. Computed in `f64` like the seed's JavaScript.
pub fn seed001_threshold(
    window: usize,
    system_reserve: usize,
    output_reserve: usize,
    safety_buffer: usize,
    percent: f64,
) -> usize {
    let available = window
        .saturating_sub(system_reserve)
        .saturating_sub(output_reserve)
        .saturating_sub(safety_buffer);
    (percent * available as f64).floor() as usize
}

/// Seed 001's `shouldCompact`: false while `message_count <= keep_last + 1` (the count includes
/// the system message at index 0), else `tokens >= threshold`.
pub fn seed001_should_compact(
    tokens: usize,
    message_count: usize,
    keep_last: usize,
    threshold: usize,
) -> bool {
    message_count > keep_last.saturating_add(1) && tokens >= threshold
}

/// Seed 003: compacts when `system + blocks > 0.9 × max_tokens` (strict, real-valued).
pub fn seed003_should_compact(
    system_tokens: usize,
    block_tokens: usize,
    max_tokens: usize,
) -> bool {
    system_tokens.saturating_add(block_tokens) as f64 > 0.9 * max_tokens as f64
}

/// Seed 004: `min(0.7 × window, window − output_reserve − safety_margin)` (real-valued; with
/// 200,000 / 32,000 / 8,000 it is 140,000). The seed says compaction triggers when the count
/// "reaches" it: see [`seed004_should_compact`].
pub fn seed004_threshold(window: usize, output_reserve: usize, safety_margin: usize) -> f64 {
    let hard = window
        .saturating_sub(output_reserve)
        .saturating_sub(safety_margin);
    (0.7 * window as f64).min(hard as f64)
}

/// Seed 004's check, read as `tokens >= threshold` ("triggers when the estimated token count
/// reaches 70%"; the text also says "exceeded", which would differ only at the exact value).
pub fn seed004_should_compact(
    tokens: usize,
    window: usize,
    output_reserve: usize,
    safety_margin: usize,
) -> bool {
    tokens as f64 >= seed004_threshold(window, output_reserve, safety_margin)
}

/// pi's reserve default.
pub const PI_RESERVE_TOKENS: usize = 16_384;

/// pi (seed 000): `tokens > window − reserve`.
pub fn pi_should_compact(tokens: usize, window: usize, reserve: usize) -> bool {
    tokens > window.saturating_sub(reserve)
}

/// Codex: 90% of the window, as an integer limit (`window × 9 / 10`, rounded down) that is
/// reached (`tokens >= limit`).
pub fn codex_limit(window: usize) -> usize {
    window.saturating_mul(9) / 10
}

/// OpenCode: `tokens > window − min(32,000, max_output)` (seed 000: context − output; OpenCode caps
/// the output at 32,000).
pub fn opencode_should_compact(tokens: usize, window: usize, max_output: usize) -> bool {
    tokens > window.saturating_sub(OPENCODE_OUTPUT_CAP.min(max_output))
}

/// Claude Code: compacts at `tokens >= window − min(max_output, 20,000) − 13,000` (its
/// `autoCompact.ts`: the effective window less the buffer).
pub fn claude_code_threshold(window: usize, max_output: usize) -> usize {
    window
        .saturating_sub(max_output.min(20_000))
        .saturating_sub(CLAUDE_CODE_BUFFER)
}
