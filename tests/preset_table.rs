//! Presets reproduce the defaults in design/peers.md; explicit options override them.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use context_compaction::core::cut::{Direction, TurnBoundary};
use context_compaction::core::error::ErrorCode;
use context_compaction::core::message::Role;
use context_compaction::core::plan::Strategy;
use context_compaction::core::preset::Preset;
use context_compaction::core::prune::Style;
use context_compaction::core::settings::Estimation;

/// The smallest token count at which the preset's token trigger fires.
fn fires_at(p: Preset, window: usize, max_output: usize) -> Option<usize> {
    let s = p.settings(window, max_output);
    s.trigger.threshold(&s.budget)
}

#[test]
fn trigger_thresholds_match_the_table() {
    let w = 200_000;
    assert_eq!(
        fires_at(Preset::Pi, w, 32_000),
        Some(w - 16_384 + 1),
        "pi: tokens > window − 16,384"
    );
    assert_eq!(
        fires_at(Preset::Codex, w, 32_000),
        Some(180_000),
        "codex: 90% of the window"
    );
    assert_eq!(
        fires_at(Preset::OpenCode, w, 32_000),
        Some(168_001),
        "opencode: > context − output (seed 000: 168,001 at 200k/32k)"
    );
    assert_eq!(fires_at(Preset::OpenCode, w, 8_000), Some(w - 8_000 + 1));
    assert_eq!(
        fires_at(Preset::ClaudeCode, w, 32_000),
        Some(w - 33_000),
        "claude-code: window − min(output, 20,000) − 13,000 (167,000 at 200k)"
    );
    assert_eq!(
        fires_at(Preset::ClaudeCode, w, 8_192),
        Some(w - 8_192 - 13_000)
    );
    assert_eq!(
        Preset::ClaudeCode.settings(w, 32_000).plan.summary_tokens,
        20_000,
        "claude-code: the answer gets the 20,000 tokens reserved for it"
    );
    assert_eq!(
        fires_at(Preset::AnthropicApi, w, 32_000),
        Some(150_000),
        "anthropic-api: compaction at 150,000"
    );
    let anthropic = Preset::AnthropicApi.settings(w, 32_000);
    assert_eq!(
        anthropic
            .prune_trigger
            .unwrap()
            .threshold(&anthropic.budget),
        Some(100_000),
        "clear tool uses at 100,000"
    );
    assert_eq!(
        fires_at(Preset::Seed001, 128_000, 4_000),
        Some(93_600),
        "seed 001: (128,000 − 2,000 − 4,000 − 5,000) × 0.80"
    );
    assert_eq!(
        fires_at(Preset::Seed003, w, 32_000),
        Some(180_001),
        "seed 003: > 0.9 × max"
    );
    assert_eq!(
        fires_at(Preset::Seed004, w, 32_000),
        Some(140_000),
        "seed 004: min(0.7 × window, window − 32,000 − 8,000)"
    );
    assert_eq!(
        fires_at(Preset::Seed004, 50_000, 32_000),
        Some(10_000),
        "seed 004 on a small window: window − 40,000"
    );
}

#[test]
fn kept_tails_and_summaries_match_the_table() {
    let s = |p: Preset| p.settings(200_000, 32_000);
    assert_eq!(
        s(Preset::Pi).plan.strategy,
        Strategy::RecentTokens { keep: 20_000 }
    );
    assert_eq!(s(Preset::Pi).plan.boundary, TurnBoundary::Split);
    assert_eq!(s(Preset::Pi).plan.summary_tokens, 13_107, "0.8 × reserve");
    assert_eq!(s(Preset::Pi).transcript.tool_output_chars, 2_000);
    assert_eq!(
        s(Preset::Codex).plan.strategy,
        Strategy::RecentUserMessages { max_tokens: 20_000 }
    );
    assert!(s(Preset::Codex)
        .summary
        .prefix
        .starts_with("Another language model started to solve this problem"));
    assert_eq!(
        s(Preset::OpenCode).summary.question.as_deref(),
        Some("What did we do so far?")
    );
    assert_eq!(s(Preset::OpenCode).summary.role, Role::Assistant);
    assert!(s(Preset::OpenCode).summary.continue_message.is_some());
    match &s(Preset::OpenCode).plan.prune.unwrap().style {
        Style::OpenCode(o) => {
            assert_eq!(
                (o.protect_turns, o.protect_tokens, o.minimum),
                (2, 40_000, 20_000)
            );
            assert_eq!(o.protected_tools, vec!["skill".to_string()]);
            assert_eq!(o.placeholder, "[Old tool result content cleared]");
        }
        other => panic!("{other:?}"),
    }
    assert!(s(Preset::ClaudeCode)
        .summary
        .prefix
        .starts_with("This session is being continued"));
    match &s(Preset::ClaudeCode).plan.prune.unwrap().style {
        Style::Anthropic(o) => assert_eq!(o.keep, 5),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        s(Preset::LangChain).plan.strategy,
        Strategy::LastMessages { keep: 20 }
    );
    assert_eq!(
        s(Preset::LangChain).plan.direction,
        Direction::Backward,
        "AI/tool pairs kept together"
    );
    assert_eq!(s(Preset::LangChain).summarizer_input_tokens, Some(4_000));
    assert!(s(Preset::LangChain)
        .summary
        .prefix
        .starts_with("Here is a summary of the conversation to date:"));
    match &s(Preset::AnthropicApi).plan.prune.unwrap().style {
        Style::Anthropic(o) => assert_eq!(o.keep, 3),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        s(Preset::Seed001).plan.strategy,
        Strategy::LastMessages { keep: 10 }
    );
    assert_eq!(s(Preset::Seed001).estimation, Estimation::CharsPerToken(4));
    assert_eq!(s(Preset::Seed001).summary.role, Role::Assistant);
    assert_eq!(
        (
            s(Preset::Seed003).plan.summary_tokens,
            s(Preset::Seed003).plan.prefix_summary_tokens
        ),
        (800, 400)
    );
    let seed4 = s(Preset::Seed004);
    assert_eq!(seed4.plan.strategy, Strategy::LastMessages { keep: 6 });
    assert_eq!(seed4.estimation, Estimation::CharsPerToken(3));
    assert_eq!(seed4.summary.role, Role::System);
    assert_eq!(seed4.summary.prefix, "Compacted context summary:\n");
    assert_eq!((seed4.chunk_chars, seed4.rollup_tokens), (120_000, 80_000));
    assert!(seed4
        .transcript
        .tool_allow
        .unwrap()
        .contains(&"linear*".to_string()));
}

#[test]
fn names_parse_and_settings_validate() {
    for p in Preset::ALL {
        assert_eq!(Preset::parse(p.as_str()).unwrap(), p);
        if let Some(alias) = p.alias() {
            assert_eq!(Preset::parse(alias).unwrap(), p, "{alias}");
        }
        p.settings(200_000, 32_000).validate().unwrap();
    }
    let err = Preset::parse("cursor").unwrap_err();
    assert_eq!(
        (err.code, err.path.as_deref()),
        (ErrorCode::InvalidOptions, Some("preset"))
    );
}

#[test]
fn explicit_options_override_preset_values() {
    let mut s = Preset::Pi.settings(200_000, 32_000);
    s.plan.strategy = Strategy::RecentTokens { keep: 5_000 };
    s.budget.reserve_tokens = 30_000;
    assert_eq!(s.trigger.threshold(&s.budget), Some(170_001));
    s.plan.summary_tokens = 300_000;
    let err = s.validate().unwrap_err();
    assert_eq!(err.path.as_deref(), Some("summaryTokens"));
    s.plan.summary_tokens = 1_000;
    s.budget.reserve_tokens = 250_000;
    assert_eq!(s.validate().unwrap_err().code, ErrorCode::InvalidOptions);
}

#[test]
fn seed_defaults_window_fallbacks_and_backoff() {
    use context_compaction::core::options::parse;
    use serde_json::json;
    let seed004 = parse(&json!({"preset": "seed-004"})).unwrap();
    assert_eq!(
        seed004.settings.budget.context_window, 200_000,
        "CONTEXT_SIZE"
    );
    assert_eq!(seed004.settings.retries, 1, "2 attempts");
    assert_eq!(seed004.settings.retry_delay_ms, 3_000, "backoff from 3 s");
    assert_eq!(seed004.settings.rollup_tokens, 80_000);
    for options in [
        json!({"preset": "seed-001"}),
        json!({"preset": "seed-001", "model": "not-a-known-model"}),
    ] {
        let o = parse(&options).unwrap();
        assert_eq!(o.settings.budget.context_window, 128_000, "{options}");
        assert_eq!(
            o.settings.trigger.threshold(&o.settings.budget),
            Some(93_600)
        );
    }
    let opencode =
        parse(&json!({"preset": "opencode", "contextWindow": 200_000, "maxOutputTokens": 32_000}))
            .unwrap();
    assert_eq!(
        opencode
            .settings
            .trigger
            .threshold(&opencode.settings.budget),
        Some(168_001)
    );
    let seed000 = Preset::Seed000.settings(200_000, 32_000);
    assert_eq!(
        seed000.plan.boundary,
        TurnBoundary::Snap,
        "never cut mid-turn"
    );
    assert_eq!(
        Preset::Pi.settings(200_000, 32_000).plan.boundary,
        TurnBoundary::Split,
        "pi splits turns, as pi does"
    );
    // Rollup follows the summary budget except where a preset sets its own.
    for p in Preset::ALL {
        let s = p.settings(200_000, 32_000);
        if p == Preset::Seed004 {
            assert_eq!(s.rollup_tokens, 80_000);
        } else {
            assert_eq!(s.rollup_tokens, s.plan.summary_tokens, "{}", p.as_str());
        }
    }
}

/// At its trigger, claude-code's continuing request (the conversation, the instruction and the
/// answer's budget) fits the window, so the preset continues the conversation as the agent does
/// (with the old 13,000-token reserve and a 13,107-token answer it never could).
#[test]
fn claude_code_continues_at_its_trigger() {
    use context_compaction::core::summary::continuation::{instruction, request_mode, SummaryMode};
    for (w, out) in [
        (200_000, 32_000),
        (200_000, 64_000),
        (1_000_000, 32_000),
        (64_000, 8_000),
    ] {
        let s = Preset::ClaudeCode.settings(w, out);
        let at = fires_at(Preset::ClaudeCode, w, out).unwrap();
        let text = instruction(
            &s.templates,
            true,
            Some("keep the file names"),
            s.plan.summary_tokens,
            2,
        );
        // The trigger fires between two requests: the conversation may pass it by one answer.
        let overshoot = 2_000;
        let mode = request_mode(
            s.summary_mode,
            true,
            s.budget.context_window,
            s.budget.system_tokens,
            at + overshoot,
            // At most a token per 3 bytes: more than any tokenizer counts for English.
            text.len().div_ceil(3),
            s.plan.summary_tokens,
        );
        assert_eq!(mode, SummaryMode::Continue, "claude-code {w} {out}");
    }
}
