//! Context-limit errors from JS: `isContextOverflowError`, `describeContextOverflow` and
//! `withOverflowRecovery` (force a compaction and retry once: `js/driver.mjs`, on this
//! classification). The classification, and which fields of a thrown value it reads within which
//! bounds, are the core's (`core::overflow`); this file turns a thrown JS value into JSON, safely.

use js_sys::{Array, Object, Reflect};
use serde_json::{Map, Value};
use wasm_bindgen::prelude::*;

use crate::core::overflow::{classify, Overflow, ERROR_FIELDS, READ};

/// A JSON view of a thrown value: bounded in depth, size and length, never throwing (a getter
/// that throws is skipped; cycles end at the depth bound).
fn describe(value: &JsValue, depth: usize, nodes: &mut usize) -> Value {
    *nodes += 1;
    if depth > READ.depth || *nodes > READ.nodes {
        return Value::Null;
    }
    if let Some(s) = value.as_string() {
        return Value::String(s.chars().take(READ.text).collect());
    }
    if let Some(n) = value.as_f64() {
        return serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number);
    }
    if let Some(b) = value.as_bool() {
        return Value::Bool(b);
    }
    if Array::is_array(value) {
        let array = Array::from(value);
        return Value::Array(
            array
                .iter()
                .take(READ.items)
                .map(|v| describe(&v, depth + 1, nodes))
                .collect(),
        );
    }
    if !value.is_object() {
        return Value::Null;
    }
    let mut out = Map::new();
    let mut keys: Vec<String> = ERROR_FIELDS.iter().map(|k| (*k).to_string()).collect();
    let object: &Object = value.unchecked_ref();
    keys.extend(
        Object::keys(object)
            .iter()
            .filter_map(|k| k.as_string())
            .take(READ.items),
    );
    for key in keys {
        if out.contains_key(&key) {
            continue;
        }
        let Ok(v) = Reflect::get(value, &JsValue::from_str(&key)) else {
            continue;
        };
        if v.is_undefined() || v.is_null() || v.is_function() {
            continue;
        }
        out.insert(key, describe(&v, depth + 1, nodes));
    }
    Value::Object(out)
}

fn overflow_of(error: &JsValue) -> Option<Overflow> {
    let mut nodes = 0;
    classify(&describe(error, 0, &mut nodes))
}

/// True when `error` is a provider's "the prompt does not fit the context window" error (OpenAI
/// and compatible servers, Azure, Anthropic, Google, AWS Bedrock, Mistral, OpenRouter, llama.cpp),
/// thrown directly or wrapped by the AI SDK's `APICallError`. Rate-limit and auth errors never are.
#[wasm_bindgen(js_name = isContextOverflowError)]
pub fn is_context_overflow_error(
    #[wasm_bindgen(unchecked_param_type = "unknown")] error: JsValue,
) -> bool {
    overflow_of(&error).is_some()
}

/// `{ provider, limit, requested }` of a context-limit error (numbers when the provider said
/// them), or `null` when `error` is not one.
#[wasm_bindgen(js_name = describeContextOverflow, unchecked_return_type = "ContextOverflow | null")]
pub fn describe_context_overflow(
    #[wasm_bindgen(unchecked_param_type = "unknown")] error: JsValue,
) -> JsValue {
    super::convert::to_js(&crate::core::report::overflow(overflow_of(&error).as_ref()))
}
