//! Compactor options: defaults, presets overridden by explicit options, and every error naming
//! its key.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use context_compaction::core::error::ErrorCode;
use context_compaction::core::estimate::ImageRule;
use context_compaction::core::options::{parse, Tokenizer};
use context_compaction::core::plan::Strategy;
use context_compaction::core::tokens::EncodingName;
use context_compaction::core::trigger::Trigger;
use serde_json::json;

fn err_path(v: serde_json::Value) -> String {
    let e = parse(&v).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidOptions, "{e}");
    e.path.unwrap()
}

#[test]
fn minimal_options_and_the_api_md_example() {
    let o = parse(&json!({"contextWindow": 200000})).unwrap();
    assert_eq!(o.settings.budget.context_window, 200_000);
    assert_eq!(o.tokenizer, Tokenizer::Heuristic);
    let o = parse(&json!({
        "contextWindow": 200000, "reserveTokens": 16384, "keepRecentTokens": 20000,
        "trigger": {"fraction": 0.9}, "tokenizer": "o200k_base", "preset": "pi"
    }))
    .unwrap();
    assert_eq!(
        o.settings.plan.strategy,
        Strategy::RecentTokens { keep: 20_000 }
    );
    assert_eq!(
        o.settings.trigger,
        Trigger::Fraction(0.9),
        "explicit trigger overrides the preset's"
    );
    assert_eq!(o.tokenizer, Tokenizer::Exact(EncodingName::O200kBase));
}

#[test]
fn a_model_name_resolves_the_window_and_tokenizer() {
    let o = parse(&json!({"model": "gpt-4o"})).unwrap();
    assert_eq!(o.settings.budget.context_window, 128_000);
    assert_eq!(o.tokenizer, Tokenizer::Exact(EncodingName::O200kBase));
    assert_eq!(err_path(json!({"model": "my-local-llm"})), "contextWindow");
}

#[test]
fn a_model_name_sets_its_providers_image_rule_unless_given() {
    let rule = |v: serde_json::Value| parse(&v).unwrap().image_rule;
    assert_eq!(rule(json!({"model": "gpt-4o"})), ImageRule::OpenAi);
    assert_eq!(rule(json!({"model": "gemini-2.5-pro"})), ImageRule::Gemini);
    assert_eq!(
        rule(json!({"model": "claude-sonnet-4-5"})),
        ImageRule::Anthropic
    );
    assert_eq!(rule(json!({"contextWindow": 100000})), ImageRule::Anthropic);
    assert_eq!(
        rule(json!({"contextWindow": 100000, "model": "my-local-llm"})),
        ImageRule::Anthropic
    );
    assert_eq!(
        rule(json!({"model": "gpt-4o", "imageRule": "anthropic"})),
        ImageRule::Anthropic
    );
    assert_eq!(
        rule(json!({"model": "gemini-2.5-pro", "imageRule": 100})),
        ImageRule::Fixed(100)
    );
}

#[test]
fn triggers_strategies_and_prune_parse() {
    let o = parse(&json!({"contextWindow": 100000, "trigger": {"anyOf": [{"turns": 20}, {"tokens": 4000}]},
        "strategy": {"type": "recursive", "keep": 10, "overlap": 2}, "prune": {"style": "opencode", "minimum": 1000}})).unwrap();
    assert_eq!(
        o.settings.trigger,
        Trigger::AnyOf(vec![Trigger::Turns(20), Trigger::Tokens(4000)])
    );
    assert_eq!(
        o.settings.plan.strategy,
        Strategy::Recursive {
            keep: 10,
            overlap: 2
        }
    );
    assert!(o.settings.plan.prune.is_some());
    let o = parse(&json!({"contextWindow": 100000, "prune": false, "trigger": "never"})).unwrap();
    assert!(o.settings.plan.prune.is_none());
    assert_eq!(o.settings.trigger, Trigger::Never);
}

#[test]
fn every_error_names_its_key() {
    assert_eq!(err_path(json!({})), "contextWindow");
    assert_eq!(
        err_path(json!({"contextWindow": 100000, "keepRecent": 5})),
        "keepRecent"
    );
    assert_eq!(err_path(json!({"contextWindow": "big"})), "contextWindow");
    assert_eq!(
        err_path(json!({"contextWindow": 100000, "trigger": {"fraction": 1.5}})),
        "trigger.fraction"
    );
    assert_eq!(
        err_path(
            json!({"contextWindow": 100000, "trigger": {"anyOf": [{"turns": 3}, {"fracton": 0.5}]}})
        ),
        "trigger.anyOf[1].fracton"
    );
    assert_eq!(
        err_path(json!({"contextWindow": 100000, "trigger": {"turns": 3, "tokens": 9}})),
        "trigger"
    );
    assert_eq!(
        err_path(json!({"contextWindow": 100000, "strategy": {"type": "sliding-window"}})),
        "strategy.keep"
    );
    assert_eq!(
        err_path(
            json!({"contextWindow": 100000, "strategy": {"type": "recursive", "keep": 3, "overlap": 3}})
        ),
        "strategy.overlap"
    );
    assert_eq!(
        err_path(json!({"contextWindow": 100000, "preset": "cursor"})),
        "preset"
    );
    assert_eq!(
        err_path(json!({"contextWindow": 100000, "reserveTokens": 100000})),
        "reserveTokens"
    );
    assert_eq!(
        err_path(json!({"contextWindow": 100000, "transcript": {"toolOutputChars": -1}})),
        "transcript.toolOutputChars"
    );
    assert_eq!(
        err_path(json!({"contextWindow": 100000, "summarize": "not a function"})),
        "summarize"
    );
    assert_eq!(
        err_path(json!({"contextWindow": 100000, "prompts": {"sytem": "x"}})),
        "prompts.sytem"
    );
    assert_eq!(
        err_path(json!({"contextWindow": 100000, "timeoutMs": 0})),
        "timeoutMs"
    );
    assert_eq!(err_path(json!([1, 2])), "options");
}

#[test]
fn every_format_name_is_an_option_value() {
    use context_compaction::core::format::Format;
    for name in Format::OPTION_NAMES {
        let o =
            parse(&json!({ "contextWindow": 10_000, "format": name, "summarize": "extractive" }))
                .unwrap_or_else(|e| panic!("format {name}: {e:?}"));
        assert_eq!(o.format.map(Format::as_str).unwrap_or("auto"), *name);
    }
    assert_eq!(
        err_path(json!({ "contextWindow": 10_000, "format": "langchain-js" })),
        "format"
    );
}

#[test]
fn model_profile_auto_margin_and_self_calibration() {
    use context_compaction::core::estimate::Profile;
    let o = parse(&json!({"model": "claude-sonnet-4-5"})).unwrap();
    assert_eq!(o.profile, Profile::ANTHROPIC);
    assert!(o.self_calibration && !o.settings.auto_margin);
    assert_eq!(
        parse(&json!({"contextWindow": 1000})).unwrap().profile,
        Profile::BASE
    );
    let o = parse(
        &json!({"model": "gemini-2.5-pro", "safetyMargin": "auto", "selfCalibration": false}),
    )
    .unwrap();
    assert_eq!(o.profile, Profile::GOOGLE);
    assert!(o.settings.auto_margin && !o.self_calibration);
    assert_eq!(o.settings.budget.safety_margin, 0);
    let o = parse(&json!({"contextWindow": 100_000, "safetyMargin": 500})).unwrap();
    assert!(!o.settings.auto_margin);
    assert_eq!(o.settings.budget.safety_margin, 500);
    assert_eq!(
        err_path(json!({"contextWindow": 1000, "safetyMargin": "lots"})),
        "safetyMargin"
    );
    assert_eq!(
        err_path(json!({"contextWindow": 1000, "safetyMargin": -1})),
        "safetyMargin"
    );
    assert_eq!(
        err_path(json!({"contextWindow": 1000, "selfCalibration": "yes"})),
        "selfCalibration"
    );
}

#[test]
fn the_summary_budget_follows_reserve_tokens_as_seed_000_says() {
    // Seed 000: maxTokens = 0.8 × reserveTokens; a split turn's prefix 0.4 ×.
    for preset in [None, Some("pi"), Some("pi-plan")] {
        let mut o = serde_json::json!({"contextWindow": 100_000, "reserveTokens": 4_000});
        if let Some(p) = preset {
            o["preset"] = p.into();
        }
        let s = context_compaction::core::options::parse(&o)
            .unwrap()
            .settings;
        assert_eq!(s.plan.summary_tokens, 3_200, "{preset:?}");
        if preset != Some("pi-plan") {
            assert_eq!(s.plan.prefix_summary_tokens, 1_600, "{preset:?}");
        }
    }
    // An explicit summaryTokens wins; a preset whose budget is not the reserve's keeps its own.
    let o =
        serde_json::json!({"contextWindow": 100_000, "reserveTokens": 4_000, "summaryTokens": 500});
    assert_eq!(
        context_compaction::core::options::parse(&o)
            .unwrap()
            .settings
            .plan
            .summary_tokens,
        500
    );
    let o =
        serde_json::json!({"contextWindow": 100_000, "reserveTokens": 4_000, "preset": "codex"});
    assert_eq!(
        context_compaction::core::options::parse(&o)
            .unwrap()
            .settings
            .plan
            .summary_tokens,
        8_192
    );
}

#[test]
fn timers_and_retries_are_bounded() {
    let parse = |o: serde_json::Value| context_compaction::core::options::parse(&o);
    for (key, bad) in [
        ("timeoutMs", 2_147_483_648_u64),
        ("retries", 1_000_000),
        ("retryDelayMs", 2_147_483_648),
    ] {
        let mut o = serde_json::json!({"contextWindow": 10_000});
        o[key] = bad.into();
        let e = parse(o).unwrap_err();
        assert_eq!(e.path.as_deref(), Some(key), "{key}");
    }
    assert!(parse(
        serde_json::json!({"contextWindow": 10_000, "timeoutMs": 2_147_483_647_u64, "retries": 100})
    )
    .is_ok());
}

#[test]
fn turn_boundary_defaults_to_split_and_snaps_for_the_seed_002_strategies() {
    use context_compaction::core::cut::{Direction, TurnBoundary};
    let plan = |v: serde_json::Value| parse(&v).unwrap().settings.plan;
    let p = plan(json!({"contextWindow": 100000}));
    assert_eq!(p.boundary, TurnBoundary::Split, "the documented default");
    let window = json!({"type": "sliding-window", "keep": 20, "summarize": true});
    let p = plan(json!({"contextWindow": 100000, "strategy": window}));
    assert_eq!(
        (p.boundary, p.direction),
        (TurnBoundary::Snap, Direction::Forward)
    );
    // Given, "split" keeps at least the window's messages: the cut moves back over tool results.
    let p = plan(json!({"contextWindow": 100000, "strategy": window, "turnBoundary": "split"}));
    assert_eq!(
        (p.boundary, p.direction),
        (TurnBoundary::Split, Direction::Backward)
    );
    let p = plan(
        json!({"contextWindow": 100000, "strategy": {"type": "token-window", "maxTokens": 500}}),
    );
    assert_eq!(p.strategy, Strategy::TokenWindow { max: 500 });
    assert_eq!(p.boundary, TurnBoundary::Split);
    assert!(
        p.summarize,
        "a token window summarizes what it does not keep"
    );
    assert_eq!(
        err_path(json!({"contextWindow": 100000, "strategy": {"type": "token-window"}})),
        "strategy.maxTokens"
    );
}

#[test]
fn the_estimator_counts_as_the_options_say() {
    let text = "x".repeat(400);
    // seed 001 counts characters / 4; the default preset the content-aware heuristic
    let seed = parse(&json!({"preset": "seed-001", "summarize": "extractive"})).unwrap();
    assert_eq!(seed.estimator(None).counter.count(&text), 100);
    let plain = parse(&json!({"contextWindow": 100_000, "summarize": "extractive"})).unwrap();
    let heuristic = context_compaction::core::tokens::heuristic::estimate(&text);
    assert_eq!(plain.estimator(None).counter.count(&text), heuristic);
}

#[test]
fn callbacks_are_read_by_the_binding_except_a_string_summarize() {
    use context_compaction::core::options::{callback_slot, not_a_function, FUNCTION_KEYS};
    assert_eq!(callback_slot("summarize", false), Some(0));
    assert_eq!(callback_slot("summarize", true), None);
    assert_eq!(callback_slot("onError", true), Some(4));
    assert_eq!(FUNCTION_KEYS[4], "onError");
    assert_eq!(callback_slot("maxTokens", false), None);
    let e = not_a_function("onProgress");
    assert_eq!(e.code, ErrorCode::InvalidOptions);
    assert_eq!(e.path.as_deref(), Some("onProgress"));
    assert_eq!(e.message, "onProgress must be a function");
    // the core refuses a callback key left in the JSON part the same way
    let e = parse(&json!({"contextWindow": 200000, "onError": 1})).unwrap_err();
    assert_eq!(e.message, "onError must be a function");
}

#[test]
fn the_tokenizer_argument_is_heuristic_or_an_encoding() {
    assert_eq!(Tokenizer::parse_arg(None).unwrap(), Tokenizer::Heuristic);
    let heuristic = Tokenizer::parse_arg(Some(Some("heuristic"))).unwrap();
    assert_eq!(heuristic, Tokenizer::Heuristic);
    let exact = Tokenizer::parse_arg(Some(Some("cl100k_base"))).unwrap();
    assert_eq!(exact, Tokenizer::Exact(EncodingName::Cl100kBase));
    for given in [Some(None), Some(Some("gpt2"))] {
        let e = Tokenizer::parse_arg(given).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidInput);
        assert_eq!(e.path.as_deref(), Some("tokenizer"));
    }
}

#[test]
fn an_exact_tokenizer_names_its_encoding() {
    let exact = Tokenizer::Exact(EncodingName::O200kBase);
    assert_eq!(exact.encoding(), Some(EncodingName::O200kBase));
    assert_eq!(Tokenizer::Heuristic.encoding(), None);
}
