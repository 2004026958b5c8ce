//! How self-calibration is shown to JS (`estimate().calibration`, `check().calibration`).

use serde_json::{json, Value};

use crate::core::estimate::Learned;

/// `{ provider, factors: { text, toolCalls, toolResults, reasoning, system }, samples, error }`.
pub fn to_json(learned: &Learned, provider: &str) -> Value {
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
