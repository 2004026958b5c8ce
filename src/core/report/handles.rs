//! The JSON results of the reading calls of a `Compactor` and a `Session`, built here so that their
//! field names are pinned by native tests and the binding only hands them to JS: `plan()` and its
//! `cost` (a forecast per request mode, see `docs/cost.md`), `check()`, `estimate()`, and the
//! self-calibration both show.

use serde_json::{json, Value};

use crate::core::compactor::Checked;
use crate::core::cost::{forecast, ModeCost};
use crate::core::estimate::{KindTokens, Learned};
use crate::core::message::Message;
use crate::core::plan::{Disposition, Escalation, Plan};
use crate::core::prepare::Prepared;
use crate::core::settings::Settings;

/// A plan as `plan()` reports it (a `Compactor`'s and a `Session`'s), without `cost`; `prepared`
/// gives the trigger's decision.
pub fn plan_json(plan: &Plan, prepared: &Prepared) -> Value {
    let of = |d: Disposition| plan.indices(d);
    let escalations: Vec<Value> = plan
        .escalations
        .iter()
        .map(|e| match e {
            Escalation::Pruned { freed } => json!({"step": "prune", "tokensFreed": freed}),
            Escalation::ShrankTail { from, to } => {
                json!({"step": "shrink", "from": from, "to": to})
            }
            Escalation::SplitTurn => json!({"step": "split-turn"}),
            Escalation::Truncated { freed } => json!({"step": "truncate", "tokensFreed": freed}),
            Escalation::KeptNothing => json!({"step": "keep-nothing"}),
        })
        .collect();
    let pruned: Vec<Value> = plan
        .pruned
        .iter()
        .map(|a| json!({"message": a.message, "part": a.part, "tokensFreed": a.tokens_freed}))
        .collect();
    let truncated: Vec<Value> = plan
        .truncations
        .iter()
        .map(|t| json!({"message": t.message, "part": t.part, "tokensFreed": t.tokens_freed()}))
        .collect();
    json!({
        "shouldCompact": prepared.decision.should_compact,
        "reason": prepared.decision.reason,
        "threshold": prepared.decision.threshold,
        "tokensBefore": plan.tokens_before,
        "tokensAfter": plan.tokens_after,
        "summarize": of(Disposition::Summarize),
        "turnPrefix": of(Disposition::TurnPrefix),
        "dropped": of(Disposition::Drop),
        "pinned": of(Disposition::Pinned),
        "kept": of(Disposition::Keep),
        "system": of(Disposition::System),
        "previousSummary": plan.previous_summary,
        "splitTurn": plan.split_turn,
        "pruned": pruned,
        "truncated": truncated,
        "escalations": escalations,
        "noop": plan.is_noop(),
    })
}

fn mode_json(m: &ModeCost) -> Value {
    json!({
        "fresh": m.usage.fresh,
        "cacheRead": m.usage.read,
        "cacheWrite": m.usage.written(),
        "cacheWrite5m": m.usage.write_5m,
        "cacheWrite1h": m.usage.write_1h,
        "inputEquivalents": m.input_equivalents.round(),
        "outputTokens": m.output_budget,
        "dollars": m.dollars,
    })
}

/// The `cost` of `plan()`: compacting `messages` (of `tokens` each) by `plan` into round `round`
/// in each request mode; `count` estimates a text's tokens. `null` when it cannot be estimated
/// (the caller's cache markers exceed the provider's limit).
pub fn forecast_json(
    settings: &Settings,
    messages: &[Message],
    tokens: &[usize],
    plan: &Plan,
    round: u32,
    count: &dyn Fn(&str) -> usize,
) -> Value {
    match forecast(settings, messages, tokens, plan, round, count) {
        Ok(c) => json!({
            "provider": c.provider.as_str(),
            "mode": settings.summary_mode.as_str(),
            "continue": mode_json(&c.continued),
            "transcript": mode_json(&c.transcript),
        }),
        Err(_) => Value::Null,
    }
}

/// Self-calibration as `estimate()` and `check()` show it:
/// `{ provider, factors: { text, toolCalls, toolResults, reasoning, system }, samples, error }`.
pub fn calibration_json(learned: &Learned, provider: &str) -> Value {
    let f = &learned.factors;
    json!({
        "provider": provider,
        "factors": {
            "text": f.text, "toolCalls": f.tool_calls, "toolResults": f.tool_results,
            "reasoning": f.reasoning, "system": f.system,
        },
        "samples": learned.samples,
        "error": learned.error(),
    })
}

/// `Compactor.check`'s result: `{ shouldCompact, tokens, tokensError, threshold, reason }`.
pub fn check_json(c: &Checked) -> Value {
    json!({
        "shouldCompact": c.decision.should_compact,
        "tokens": c.count.tokens(),
        "tokensError": c.count.error,
        "threshold": c.decision.threshold,
        "reason": c.decision.reason,
    })
}

/// `Compactor.estimate`'s result for messages of `kinds` (each one's tokens by kind):
/// `{ total, perMessage, byKind, calibration }`.
pub fn estimate_json(kinds: &[KindTokens], learned: &Learned, provider: &str) -> Value {
    let per_message: Vec<usize> = kinds.iter().map(KindTokens::total).collect();
    let k: KindTokens = kinds.iter().copied().sum();
    json!({
        "total": per_message.iter().sum::<usize>(),
        "perMessage": per_message,
        "byKind": {"text": k.text, "toolCalls": k.tool_calls, "toolResults": k.tool_results,
                   "images": k.images, "reasoning": k.reasoning, "system": k.system},
        "calibration": calibration_json(learned, provider),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::core::count::Count;
    use crate::core::trigger::Decision;

    fn keys(v: &Value) -> Vec<&str> {
        let mut k: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        k.sort_unstable();
        k
    }

    #[test]
    fn check_and_estimate_name_their_fields() {
        let checked = Checked {
            count: Count {
                measured: 0,
                estimated: 120,
                error: 12,
            },
            decision: Decision {
                should_compact: false,
                threshold: Some(900),
                reason: "below".into(),
            },
        };
        let c = check_json(&checked);
        assert_eq!(
            keys(&c),
            [
                "reason",
                "shouldCompact",
                "threshold",
                "tokens",
                "tokensError"
            ]
        );
        assert_eq!(
            (c["tokens"].as_u64(), c["tokensError"].as_u64()),
            (Some(120), Some(12))
        );
        let kinds = [
            KindTokens {
                text: 3,
                ..KindTokens::default()
            },
            KindTokens {
                tool_results: 5,
                ..KindTokens::default()
            },
        ];
        let e = estimate_json(&kinds, &Learned::new(0.1), "openai");
        assert_eq!(keys(&e), ["byKind", "calibration", "perMessage", "total"]);
        assert_eq!(e["perMessage"], json!([3, 5]));
        assert_eq!(
            (e["total"].as_u64(), e["byKind"]["toolResults"].as_u64()),
            (Some(8), Some(5))
        );
        assert_eq!(
            keys(&e["calibration"]),
            ["error", "factors", "provider", "samples"]
        );
        assert_eq!(
            keys(&e["calibration"]["factors"]),
            ["reasoning", "system", "text", "toolCalls", "toolResults"]
        );
        assert_eq!(e["calibration"]["provider"], "openai");
    }

    #[test]
    fn a_plan_names_its_fields_and_indices() {
        let plan = Plan {
            dispositions: vec![
                Disposition::System,
                Disposition::Summarize,
                Disposition::Keep,
            ],
            previous_summary: None,
            split_turn: false,
            turn_prefix: None,
            overlap: Vec::new(),
            pruned: Vec::new(),
            truncations: Vec::new(),
            escalations: vec![Escalation::SplitTurn],
            tokens_before: 300,
            tokens_after: 120,
        };
        let prepared = Prepared {
            decision: Decision {
                should_compact: true,
                threshold: Some(200),
                reason: "over".into(),
            },
            plan: plan.clone(),
        };
        let p = plan_json(&plan, &prepared);
        assert_eq!(
            keys(&p),
            [
                "dropped",
                "escalations",
                "kept",
                "noop",
                "pinned",
                "previousSummary",
                "pruned",
                "reason",
                "shouldCompact",
                "splitTurn",
                "summarize",
                "system",
                "threshold",
                "tokensAfter",
                "tokensBefore",
                "truncated",
                "turnPrefix",
            ]
        );
        assert_eq!(
            (p["summarize"].clone(), p["kept"].clone()),
            (json!([1]), json!([2]))
        );
        assert_eq!(
            (p["shouldCompact"].clone(), p["noop"].clone()),
            (json!(true), json!(false))
        );
        assert_eq!(p["escalations"], json!([{"step": "split-turn"}]));
    }
}
