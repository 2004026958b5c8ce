#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
//! The semantics of `Trigger` and `Budget`: validation keys, rounding and strictness of fractions,
//! turns and messages, combinators, `Never` and forced inputs.

use context_compaction::core::error::ErrorCode;
use context_compaction::core::message::{Message, Part, Role};
use context_compaction::core::trigger::*;

fn input(tokens: usize, budget: Budget) -> TriggerInput {
    TriggerInput {
        tokens,
        turns: 0,
        messages: 0,
        budget,
        forced: false,
    }
}

#[test]
fn budget_available_and_validation() {
    let b = Budget {
        context_window: 100,
        reserve_tokens: 10,
        safety_margin: 5,
        system_tokens: 20,
    };
    assert_eq!(b.available(), 65);
    assert!(b.validate().is_ok());
    let key = |b: Budget| b.validate().unwrap_err().path.unwrap();
    assert_eq!(key(Budget::new(0)), "contextWindow");
    assert_eq!(
        key(Budget {
            reserve_tokens: 100,
            ..b
        }),
        "reserveTokens"
    );
    assert_eq!(
        key(Budget {
            safety_margin: 90,
            ..b
        }),
        "safetyMargin"
    );
    assert_eq!(
        key(Budget {
            system_tokens: 85,
            ..b
        }),
        "systemTokens"
    );
    let big = Budget {
        reserve_tokens: usize::MAX,
        ..b
    };
    assert_eq!(big.available(), 0);
    assert_eq!(
        Budget::new(0).validate().unwrap_err().code,
        ErrorCode::InvalidOptions
    );
}

#[test]
fn trigger_validation_names_keys() {
    let key = |t: Trigger| t.validate().unwrap_err().path.unwrap();
    assert_eq!(key(Trigger::Fraction(0.0)), "trigger.fraction");
    assert_eq!(key(Trigger::Fraction(1.01)), "trigger.fraction");
    assert_eq!(key(Trigger::FractionAbove(f64::NAN)), "trigger.fraction");
    assert_eq!(key(Trigger::Tokens(0)), "trigger.tokens");
    assert_eq!(key(Trigger::AnyOf(vec![])), "trigger.anyOf");
    assert_eq!(
        key(Trigger::AllOf(vec![
            Trigger::Turns(3),
            Trigger::AnyOf(vec![Trigger::Never, Trigger::Fraction(-1.0)])
        ])),
        "trigger.allOf[1].anyOf[1].fraction"
    );
    assert!(Trigger::Fraction(1.0).validate().is_ok());
    assert!(Trigger::Never.validate().is_ok());
}

#[test]
fn fraction_is_floored_and_inclusive_above_is_strict() {
    let b = Budget::new(1001);
    // 0.5 × 1001 = 500.5
    let f = Trigger::Fraction(0.5);
    assert_eq!(f.threshold(&b), Some(500));
    assert!(!f.fires(&input(499, b)));
    assert!(f.fires(&input(500, b)));
    let above = Trigger::FractionAbove(0.5);
    assert_eq!(above.threshold(&b), Some(501));
    assert!(!above.fires(&input(500, b)));
    assert!(above.fires(&input(501, b)));
    let t = Trigger::Tokens(42);
    assert!(!t.fires(&input(41, b)) && t.fires(&input(42, b)));
}

#[test]
fn turns_messages_and_combinators() {
    let b = Budget::new(1000);
    let mut i = input(10, b);
    i.turns = 3;
    i.messages = 7;
    assert!(Trigger::Turns(2).fires(&i));
    assert!(!Trigger::Turns(3).fires(&i));
    assert!(Trigger::Messages(6).fires(&i));
    assert!(!Trigger::Messages(7).fires(&i));
    let any = Trigger::AnyOf(vec![Trigger::Tokens(500), Trigger::Turns(2)]);
    let d = any.evaluate(&i);
    assert!(d.should_compact);
    assert_eq!(d.threshold, Some(500));
    assert!(d.reason.contains("3 user turns exceed 2"), "{}", d.reason);
    let all = Trigger::AllOf(vec![
        Trigger::Fraction(0.5),
        Trigger::Tokens(800),
        Trigger::Turns(2),
    ]);
    let d = all.evaluate(&i);
    assert!(!d.should_compact);
    assert_eq!(d.threshold, Some(800));
    assert!(
        d.reason.contains("below the threshold of 500"),
        "{}",
        d.reason
    );
    i.tokens = 800;
    assert!(all.fires(&i));
    assert_eq!(Trigger::Turns(1).threshold(&b), None);
}

#[test]
fn never_and_forced() {
    let b = Budget::new(1000);
    let mut i = input(usize::MAX, b);
    let d = Trigger::Never.evaluate(&i);
    assert!(!d.should_compact);
    assert_eq!(d.threshold, None);
    i.forced = true;
    i.tokens = 0;
    let d = Trigger::Never.evaluate(&i);
    assert!(d.should_compact);
    assert_eq!(d.reason, "forced");
    let d = Trigger::Fraction(0.9).evaluate(&i);
    assert_eq!((d.should_compact, d.threshold), (true, Some(900)));
}

#[test]
fn input_counts_turns_and_non_system_messages() {
    let mut summary = Message::text(Role::User, "summary");
    summary.summary = true;
    let msgs = vec![
        Message::text(Role::System, "s"),
        summary,
        Message::text(Role::User, "u1"),
        Message::text(Role::Assistant, "a"),
        Message::new(
            Role::User,
            vec![Part::ToolResult {
                id: "x".into(),
                name: None,
                output: vec![],
                is_error: false,
            }],
        ),
        Message::text(Role::User, "u2"),
    ];
    let i = TriggerInput::new(&msgs, 5, Budget::new(10));
    assert_eq!((i.turns, i.messages, i.tokens), (2, 5, 5));
}

#[test]
fn auto_margin_is_the_error_capped_at_half_the_room() {
    use context_compaction::core::trigger::Budget;
    let budget = Budget {
        context_window: 100_000,
        reserve_tokens: 10_000,
        safety_margin: 7,
        system_tokens: 2_000,
    };
    let with = budget.with_auto_margin(3_000);
    assert_eq!(with.safety_margin, 3_000);
    assert_eq!(with.available(), 85_000);
    // a margin larger than half the room is capped: the budget stays valid
    let capped = budget.with_auto_margin(usize::MAX);
    assert_eq!(capped.safety_margin, 44_000);
    assert!(capped.validate().is_ok());
    assert_eq!(budget.with_auto_margin(0).available(), 88_000);
}
