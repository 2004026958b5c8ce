//! What the `Compactor` and the `Session` both take from their options object: the JS callbacks,
//! the JSON part (parsed by the core), and the estimator the options ask for.

use js_sys::{Function, Object, Reflect};
use serde_json::{Map, Value};
use wasm_bindgen::prelude::*;

use super::error::throw;
use crate::core::error::Error;
use crate::core::estimate::Estimator;
use crate::core::options::{callback_slot, not_a_function, Options, Tokenizer};
use crate::core::tokens::Encoding;
use std::rc::Rc;

/// The JS callbacks given in the options.
#[derive(Clone, Default)]
pub struct Callbacks {
    pub summarize: Option<Function>,
    pub on_before: Option<Function>,
    pub on_after: Option<Function>,
    pub on_progress: Option<Function>,
    pub on_error: Option<Function>,
}

impl Callbacks {
    /// The callbacks in the order of their keys in [`FUNCTION_KEYS`].
    pub fn slots(&mut self) -> [&mut Option<Function>; 5] {
        [
            &mut self.summarize,
            &mut self.on_before,
            &mut self.on_after,
            &mut self.on_progress,
            &mut self.on_error,
        ]
    }
}

/// The estimator the options ask for ([`Options::estimator`]; an exact encoding must be loaded).
pub fn estimator_for(options: &Options) -> Result<Estimator, JsValue> {
    Ok(options.estimator(exact(options.tokenizer)?))
}

/// The loaded encoding of an exact tokenizer, `None` for the heuristic.
pub fn exact(tokenizer: Tokenizer) -> Result<Option<Rc<Encoding>>, JsValue> {
    match tokenizer {
        Tokenizer::Exact(name) => super::tokens::encoding(name).map(Some),
        Tokenizer::Heuristic => Ok(None),
    }
}

/// Splits the options object into its functions and its JSON part.
pub fn split_options(options: &JsValue) -> Result<(Value, Callbacks), JsValue> {
    if !options.is_object() || js_sys::Array::is_array(options) {
        return throw(Err(Error::invalid_option(
            "options",
            "options must be an object",
        )));
    }
    let mut json = Map::new();
    let mut callbacks = Callbacks::default();
    let object: &Object = options.unchecked_ref();
    for key in Object::keys(object).iter() {
        let Some(name) = key.as_string() else {
            continue;
        };
        let value = Reflect::get(options, &key).unwrap_or(JsValue::UNDEFINED);
        if value.is_undefined() {
            continue;
        }
        if let Some(k) = callback_slot(&name, value.is_string()) {
            let Some(f) = value.dyn_ref::<Function>() else {
                return throw(Err(not_a_function(&name)));
            };
            if let Some(slot) = callbacks.slots().into_iter().nth(k) {
                *slot = Some(f.clone());
            }
            continue;
        }
        let converted = super::plain::to_json(&value, &name, super::plain::Kind::Options, &name)?;
        json.insert(name, converted);
    }
    Ok((Value::Object(json), callbacks))
}
