//! What the `Compactor` and the `Session` both take from their options object: the JS callbacks,
//! the JSON part (parsed by the core), and the estimator the options ask for.

use js_sys::{Function, Object, Reflect};
use serde_json::{Map, Value};
use wasm_bindgen::prelude::*;

use super::error::throw;
use crate::core::error::Error;
use crate::core::estimate::{Counter, Estimator};
use crate::core::options::{Options, Tokenizer, FUNCTION_KEYS};
use crate::core::settings::Estimation;

/// The JS callbacks given in the options.
#[derive(Clone, Default)]
pub struct Callbacks {
    pub summarize: Option<Function>,
    pub on_before: Option<Function>,
    pub on_after: Option<Function>,
    pub on_progress: Option<Function>,
    pub on_error: Option<Function>,
}

/// The estimator the options ask for (an exact encoding must be loaded).
pub fn estimator_for(options: &Options) -> Result<Estimator, JsValue> {
    let counter = match options.tokenizer {
        Tokenizer::Exact(name) => Counter::Exact(super::tokens::encoding(name)?),
        Tokenizer::Heuristic => match options.settings.estimation {
            Estimation::Heuristic => Counter::Heuristic,
            Estimation::CharsPerToken(n) => Counter::CharsPerToken(n),
        },
    };
    Ok(Estimator::new(counter)
        .with_image_rule(options.image_rule)
        .with_factors(options.profile.factors))
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
        let builtin = name == "summarize" && value.is_string();
        if FUNCTION_KEYS.contains(&name.as_str()) && !builtin {
            let Some(f) = value.dyn_ref::<Function>() else {
                return throw(Err(Error::invalid_option(
                    name.clone(),
                    format!("{name} must be a function"),
                )));
            };
            let slot = match name.as_str() {
                "summarize" => &mut callbacks.summarize,
                "onBeforeCompaction" => &mut callbacks.on_before,
                "onAfterCompaction" => &mut callbacks.on_after,
                "onError" => &mut callbacks.on_error,
                _ => &mut callbacks.on_progress,
            };
            *slot = Some(f.clone());
            continue;
        }
        let converted = super::plain::to_json(&value, &name, super::plain::Kind::Options, &name)?;
        json.insert(name, converted);
    }
    Ok((Value::Object(json), callbacks))
}
