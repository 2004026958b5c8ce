//! The `cost` field of `plan()` (a `Compactor`'s and a `Session`'s): the core's forecast of a compaction's cost in each request mode,
//! as a plain JSON value (see `docs/cost.md`).

use serde_json::{json, Value};

use super::analyze::{Analyzed, Inner};
use crate::core::cost::{forecast, ModeCost};
use crate::core::driver::next_round;
use crate::core::message::Message;
use crate::core::plan::Plan;
use crate::core::settings::Settings;

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

/// The cost of compacting `a` by `plan` now; `null` when it cannot be estimated (the caller's
/// cache markers exceed the provider's limit).
pub fn cost_json(inner: &Inner, a: &Analyzed, plan: &Plan) -> Value {
    let messages = &a.incoming.messages;
    let previous = plan.previous_summary.map(|i| {
        messages
            .get(i)
            .and_then(|m| inner.recognizer.round(&m.plain_text()))
    });
    let round = next_round(previous, inner.state.borrow().pipeline.compactions());
    let count = |t: &str| a.estimator.counter.count(t);
    forecast_json(
        &inner.options.settings,
        messages,
        &a.estimate.per_message,
        plan,
        round,
        &count,
    )
}

/// The cost of compacting `messages` (of `tokens` each) by `plan` into round `round`, as `plan()`
/// reports it (a `Compactor`'s or a `Session`'s); `count` estimates a text's tokens.
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
