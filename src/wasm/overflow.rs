//! Context-limit errors from JS: `isContextOverflowError`, `describeContextOverflow` and
//! `withOverflowRecovery` (force a compaction and retry once: `js/driver.mjs`, on this
//! classification). The classification, and which fields of a thrown value it reads within which
//! bounds, are the core's (`core::overflow`); this file shows it a thrown JS value.

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;

use crate::core::overflow::{overflow_of, Thrown, ThrownValue};

/// A thrown JS value, read by the core's bounded walk ([`crate::core::overflow::describe`]).
impl ThrownValue for JsValue {
    fn read(&self, items: usize) -> Thrown<JsValue> {
        if let Some(s) = self.as_string() {
            Thrown::Text(s)
        } else if let Some(n) = self.as_f64() {
            Thrown::Number(n)
        } else if let Some(b) = self.as_bool() {
            Thrown::Bool(b)
        } else if Array::is_array(self) {
            Thrown::Array(Array::from(self).iter().take(items).collect())
        } else if self.is_object() {
            let keys = Object::keys(self.unchecked_ref::<Object>()).into_iter();
            Thrown::Object(keys.filter_map(|k| k.as_string()).take(items).collect())
        } else {
            Thrown::Other
        }
    }

    fn field(&self, key: &str) -> Option<JsValue> {
        let v = Reflect::get(self, &JsValue::from_str(key)).ok()?;
        let absent = v.is_undefined() || v.is_null() || v.is_function();
        (!absent).then_some(v)
    }
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
