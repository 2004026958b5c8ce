//! What the `Compactor` and the `Session` both take from their options object: the JS callbacks
//! and the JSON part (split by the core: [`crate::core::options::callbacks`]), and the estimator
//! the options ask for (its exact encoding loaded by `super::tokens`).

use js_sys::{Function, Object, Reflect};
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::error::throw;
use super::plain::{json_of, Kind};
use super::tokens::exact;
use crate::core::estimate::Estimator;
use crate::core::options::callbacks::{self, Field, OptionValue};
use crate::core::options::Options;

/// The JS callbacks given in the options.
pub type Callbacks = callbacks::Callbacks<Function>;

/// The estimator the options ask for ([`Options::estimator`]; an exact encoding must be loaded).
pub fn estimator_for(options: &Options) -> Result<Estimator, JsValue> {
    Ok(options.estimator(exact(options.tokenizer)?))
}

/// A field of the options object, read by the core's split.
impl OptionValue<Function> for JsValue {
    fn field(&self) -> Field<Function> {
        match self.dyn_ref::<Function>() {
            Some(f) => Field::Function(f.clone()),
            None if self.is_undefined() => Field::Absent,
            None if self.is_string() => Field::Text,
            None => Field::Other,
        }
    }
    fn to_json(&self, key: &str) -> crate::core::error::Result<Value> {
        json_of(self, key, Kind::Options, key)
    }
}

/// Splits the options object into its functions and its JSON part ([`callbacks::split_options`]).
pub fn split_options(options: &JsValue) -> Result<(Value, Callbacks), JsValue> {
    let object = options.is_object() && !js_sys::Array::is_array(options);
    let fields = object.then(|| {
        let keys = Object::keys(options.unchecked_ref::<Object>()).into_iter();
        keys.filter_map(|key| {
            let name = key.as_string()?;
            Some((name, Reflect::get(options, &key).unwrap_or_default()))
        })
    });
    throw(callbacks::split_options(fields))
}
