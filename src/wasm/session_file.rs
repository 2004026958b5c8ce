//! The arguments of `importSession` and `Session.fromSessionFile` that say how an agent's session
//! file is read: the agent (`"pi"` | `"claude-code"`) and the read options (`strict`, and for
//! `fromSessionFile` `onWarning`), and where warnings go. The reading itself, the agent's name
//! included, is `formats::session_file`'s.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::convert::get;
use super::error::throw;
use crate::formats::session_file::{Field, ReadOptions};

/// Read options as given: `strict`, and where warnings go (`None`: the caller collects them).
pub struct ReadArgs {
    pub options: ReadOptions,
    pub on_warning: Option<js_sys::Function>,
}

/// Reads `{ strict?, onWarning? }` (only the keys in `allowed`) by the core's rules
/// ([`ReadOptions::read`]); `undefined` or `null` is an object without keys: the default
/// (lenient, warnings to `console.warn` where `onWarning` is allowed).
pub fn read_args(value: &JsValue, path: &str, allowed: &[&str]) -> Result<ReadArgs, JsValue> {
    let object = value.is_object() && !js_sys::Array::is_array(value);
    let keys = object.then(|| js_sys::Object::keys(value.unchecked_ref::<js_sys::Object>()));
    let mut fields = Vec::new();
    for key in keys.iter().flat_map(js_sys::Array::iter) {
        let field = js_sys::Reflect::get(value, &key)?;
        let seen = Field::of(field.is_undefined(), field.as_bool(), field.is_function());
        fields.push((key.as_string().unwrap_or_default(), seen));
    }
    let given = (object || value.is_undefined() || value.is_null()).then_some(&fields[..]);
    let (options, function) = throw(ReadOptions::read(path, allowed, given))?;
    let on_warning = function.then(|| get(value, "onWarning").unchecked_into());
    Ok(ReadArgs {
        options,
        on_warning,
    })
}

/// Hands each warning to `onWarning` (its own errors are ignored, as `onError`'s are), or to
/// `console.warn` without one.
pub fn report(warnings: &[String], on_warning: Option<&js_sys::Function>) {
    for warning in warnings {
        match on_warning {
            Some(f) => {
                let _ = f.call1(&JsValue::UNDEFINED, &JsValue::from_str(warning));
            }
            None => console_warn(&format!("context-compaction: {warning}")),
        }
    }
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = warn)]
    fn console_warn(text: &str);
}
