#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
//! Every seed's and peer's threshold, reproduced by the `Trigger`/`Budget` types: the preset fires
//! at exactly the token count where the seed's own arithmetic first fires, and not one before,
//! over the seeds' numbers and over windows where the rounding matters.

use context_compaction::core::trigger::*;

#[path = "common/oracles.rs"]
mod oracles;
use oracles::*;

/// Windows of real models plus odd ones where `fraction × window` is not an integer.
const WINDOWS: &[usize] = &[
    8_192, 16_385, 32_768, 100_000, 128_000, 128_001, 133_337, 200_000, 200_003, 272_000, 400_000,
    1_047_576, 2_097_152,
];

fn input(tokens: usize, messages: usize, budget: Budget) -> TriggerInput {
    TriggerInput {
        tokens,
        turns: 0,
        messages,
        budget,
        forced: false,
    }
}

/// Asserts the preset's threshold is `first`, that it fires at `first` and not at `first − 1`,
/// and that around it (±3) it agrees with the seed's own rule `exact`.
fn check(
    name: &str,
    (trigger, budget): &(Trigger, Budget),
    first: usize,
    exact: impl Fn(usize) -> bool,
) {
    trigger.validate().unwrap();
    budget.validate().unwrap();
    assert_eq!(trigger.threshold(budget), Some(first), "{name}: threshold");
    let at = |t: usize| trigger.fires(&input(t, usize::MAX, *budget));
    assert!(
        !at(first - 1),
        "{name}: fires one token early at {}",
        first - 1
    );
    assert!(at(first), "{name}: does not fire at {first}");
    assert!(
        exact(first) && !exact(first - 1),
        "{name}: seed rule disagrees"
    );
    for t in first.saturating_sub(3)..=first + 3 {
        assert_eq!(
            at(t),
            exact(t),
            "{name}: differs from the seed at {t} tokens"
        );
    }
    let d = trigger.evaluate(&input(first, usize::MAX, *budget));
    assert!(d.should_compact);
    assert_eq!(d.threshold, Some(first));
}

#[test]
fn seed001_threshold_and_message_floor() {
    assert_eq!(
        seed001_threshold(128_000, 2_000, 4_000, 5_000, 0.80),
        93_600
    );
    let preset = preset_seed001(128_000, 2_000, 4_000, 5_000, 0.80, 10);
    assert_eq!(preset.1.available(), 117_000);
    check("seed001", &preset, 93_600, |t| {
        seed001_should_compact(t, 100, 10, 93_600)
    });
    // Messages: the seed needs messages.length > keepLast + 1 with the system message at index
    // 0, i.e. more than 10 non-system messages.
    let (trigger, budget) = &preset;
    for non_system in 8..14 {
        for tokens in [93_599, 93_600, 200_000] {
            let seed = seed001_should_compact(tokens, non_system + 1, 10, 93_600);
            let ours = trigger.fires(&input(tokens, non_system, *budget));
            assert_eq!(ours, seed, "{non_system} messages, {tokens} tokens");
        }
    }
    assert!(!trigger.fires(&input(93_600, 10, *budget)));
    assert!(trigger.fires(&input(93_600, 11, *budget)));
    // Other windows and percentages, floored the same way.
    for &w in WINDOWS.iter().filter(|&&w| w > 11_000) {
        for p in [0.5, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0] {
            let t = seed001_threshold(w, 2_000, 4_000, 5_000, p);
            let preset = preset_seed001(w, 2_000, 4_000, 5_000, p, 10);
            check(&format!("seed001 {w} {p}"), &preset, t, |x| {
                seed001_should_compact(x, 100, 10, t)
            });
        }
    }
}

#[test]
fn seed003_strictly_above_ninety_percent() {
    let preset = preset_seed003(200_000);
    // 0.9 × 200,000 = 180,000: fires one token past it
    check("seed003", &preset, 180_001, |t| {
        seed003_should_compact(1_000, t - 1_000, 200_000)
    });
    for &w in WINDOWS {
        let first = (0..=w)
            .rev()
            .find(|&t| !seed003_should_compact(0, t, w))
            .unwrap()
            + 1;
        check(&format!("seed003 {w}"), &preset_seed003(w), first, |t| {
            seed003_should_compact(0, t, w)
        });
    }
    // 128,001 × 0.9 = 115,200.9: fires at 115,201
    assert_eq!(
        preset_seed003(128_001)
            .0
            .threshold(&preset_seed003(128_001).1),
        Some(115_201)
    );
}

#[test]
fn seed004_min_of_seventy_percent_and_hard_limit() {
    let t = seed004_threshold(200_000, 32_000, 8_000);
    assert!((t - 140_000.0).abs() < 1e-9);
    check(
        "seed004",
        &preset_seed004(200_000, 32_000, 8_000),
        140_000,
        |x| seed004_should_compact(x, 200_000, 32_000, 8_000),
    );
    // the hard limit wins on small windows: 100,000 → min(70,000, 60,000)
    check(
        "seed004 100k",
        &preset_seed004(100_000, 32_000, 8_000),
        60_000,
        |x| seed004_should_compact(x, 100_000, 32_000, 8_000),
    );
    // 0.7 × 200,003 = 140,002.1: reached at 140,003
    check(
        "seed004 odd",
        &preset_seed004(200_003, 32_000, 8_000),
        140_003,
        |x| seed004_should_compact(x, 200_003, 32_000, 8_000),
    );
    for &w in WINDOWS.iter().filter(|&&w| w > 40_000) {
        let first = seed004_threshold(w, 32_000, 8_000).ceil() as usize;
        check(
            &format!("seed004 {w}"),
            &preset_seed004(w, 32_000, 8_000),
            first,
            |x| seed004_should_compact(x, w, 32_000, 8_000),
        );
    }
}

#[test]
fn pi_above_window_minus_reserve() {
    check("pi", &preset_pi(200_000, PI_RESERVE_TOKENS), 183_617, |t| {
        pi_should_compact(t, 200_000, PI_RESERVE_TOKENS)
    });
    for &w in WINDOWS.iter().filter(|&&w| w > PI_RESERVE_TOKENS) {
        let first = w - PI_RESERVE_TOKENS + 1;
        check(
            &format!("pi {w}"),
            &preset_pi(w, PI_RESERVE_TOKENS),
            first,
            |t| pi_should_compact(t, w, PI_RESERVE_TOKENS),
        );
    }
}

#[test]
fn codex_ninety_percent_of_window() {
    assert_eq!(codex_limit(200_000), 180_000);
    check("codex", &preset_codex(200_000), 180_000, |t| {
        t >= codex_limit(200_000)
    });
    for &w in WINDOWS {
        check(
            &format!("codex {w}"),
            &preset_codex(w),
            codex_limit(w),
            |t| t >= codex_limit(w),
        );
    }
    // floor(0.9 × w) in f64 equals the integer limit on every window up to 3M
    for w in (1..3_000_000).step_by(997) {
        assert_eq!(
            preset_codex(w).0.threshold(&preset_codex(w).1),
            Some(codex_limit(w)),
            "{w}"
        );
    }
}

#[test]
fn opencode_above_window_minus_capped_output() {
    check(
        "opencode",
        &preset_opencode(200_000, 64_000),
        168_001,
        |t| opencode_should_compact(t, 200_000, 64_000),
    );
    check(
        "opencode seed 000 (200k context, 32k output)",
        &preset_opencode(200_000, 32_000),
        168_001,
        |t| t > 200_000 - 32_000,
    );
    check(
        "opencode small output",
        &preset_opencode(200_000, 8_192),
        191_809,
        |t| opencode_should_compact(t, 200_000, 8_192),
    );
    for &w in WINDOWS.iter().filter(|&&w| w > OPENCODE_OUTPUT_CAP) {
        for out in [4_096, 16_384, 32_000, 128_000] {
            let first = w - OPENCODE_OUTPUT_CAP.min(out) + 1;
            check(
                &format!("opencode {w} {out}"),
                &preset_opencode(w, out),
                first,
                |t| opencode_should_compact(t, w, out),
            );
        }
    }
}

#[test]
fn claude_code_window_minus_output_and_13k() {
    assert_eq!(claude_code_threshold(200_000, 32_000), 167_000);
    check(
        "claude-code",
        &preset_claude_code(200_000, 32_000),
        167_000,
        |t| t >= claude_code_threshold(200_000, 32_000),
    );
    for out in [4_096, 8_192, 20_000, 32_000, 64_000] {
        let reserve = out.min(CLAUDE_CODE_SUMMARY_OUTPUT) + CLAUDE_CODE_BUFFER;
        for &w in WINDOWS.iter().filter(|&&w| w > reserve) {
            check(
                &format!("claude-code {w} {out}"),
                &preset_claude_code(w, out),
                w - reserve,
                |t| t >= claude_code_threshold(w, out),
            );
        }
    }
}

#[test]
fn forced_fires_even_below_every_threshold() {
    for (trigger, budget) in [
        preset_pi(200_000, PI_RESERVE_TOKENS),
        preset_seed001(128_000, 2_000, 4_000, 5_000, 0.8, 10),
        (Trigger::Never, Budget::new(1_000)),
    ] {
        let mut i = input(0, 0, budget);
        assert!(!trigger.evaluate(&i).should_compact);
        i.forced = true;
        let d = trigger.evaluate(&i);
        assert!(d.should_compact);
        assert_eq!(d.reason, "forced");
    }
}

#[test]
fn seed_003_counts_the_system_prompt_in_the_conversation() {
    // Seed 003: `system + blocks > 0.9 × max`. With max 100,000 and a 10,000-token system prompt
    // the blocks may hold 80,000 tokens; 80,001 fire.
    let o = serde_json::json!({"contextWindow": 100_000, "preset": "block-pipeline", "systemTokens": 10_000});
    let s = context_compaction::core::options::parse(&o)
        .unwrap()
        .settings;
    assert_eq!(s.trigger.threshold(&s.budget), Some(80_001));
    let o = serde_json::json!({"contextWindow": 100_000, "preset": "block-pipeline"});
    let s = context_compaction::core::options::parse(&o)
        .unwrap()
        .settings;
    assert_eq!(s.trigger.threshold(&s.budget), Some(90_001));
}

#[test]
fn seed001_at_gpt4s_8192_tokens_the_message_count_decides() {
    // Seed 001 lists `'gpt-4': 8_192`; its threshold is then ⌊(8,192 − 2,000 − 4,000 − 5,000) ×
    // 0.8⌋ < 0, so `shouldCompact` is true whenever there are more than keepLast + 1 messages.
    let o = serde_json::json!({"preset": "compaction-layer", "model": "gpt-4"});
    let s = context_compaction::core::options::parse(&o)
        .unwrap()
        .settings;
    assert_eq!(s.budget.context_window, 8_192);
    assert_eq!(s.trigger.threshold(&s.budget), Some(0));
    for (non_system, tokens) in [(10, 7_000), (11, 1), (11, 0), (30, 5_000)] {
        // `tokens >= −2,247` holds for every count, as `tokens >= 0` does.
        let seed = seed001_should_compact(tokens, non_system + 1, 10, 0);
        assert_eq!(
            s.trigger.fires(&input(tokens, non_system, s.budget)),
            seed,
            "{non_system} messages, {tokens} tokens"
        );
    }
    // A compacted context must fit what the model takes besides its reply.
    assert_eq!(s.token_limit(), 8_192 - 4_000);
    // Other presets still refuse a window their reserves use up.
    let o = serde_json::json!({"preset": "workstream", "model": "gpt-4"});
    assert!(context_compaction::core::options::parse(&o).is_err());
}
