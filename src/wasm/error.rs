//! The one helper that turns a core error into a JS `CompactionError`.

use crate::core::error::Error;
use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;

/// Builds a JS `CompactionError` (`code`, `message`, `path`, `cause`) from a core error. Falls back
/// to a plain `Error` with the same fields when the entry point did not register the class.
pub fn to_js(error: &Error, cause: Option<&JsValue>) -> JsValue {
    let message = JsValue::from_str(&error.message);
    let code = JsValue::from_str(error.code.as_str());
    let path = JsValue::from(error.path.as_deref());
    let cause = cause.cloned().unwrap_or(JsValue::UNDEFINED);
    if let Some(class) = super::env::error_class() {
        let args = Array::of4(&message, &code, &path, &cause);
        if let Ok(built) = Reflect::construct(&class, &args) {
            return built;
        }
    }
    let plain: Object = js_sys::Error::new(&error.message).into();
    let fields = [
        ("name", JsValue::from_str("CompactionError")),
        ("code", code),
        ("path", path),
        ("cause", cause),
    ];
    // Setting a property on a fresh Error cannot fail.
    for (key, value) in fields.iter().filter(|(_, v)| !v.is_undefined()) {
        let _ = Reflect::set(&plain, &JsValue::from_str(key), value);
    }
    plain.into()
}

/// `Result<T, core::Error>` into what an exported function returns.
pub fn throw<T>(result: crate::core::error::Result<T>) -> Result<T, JsValue> {
    result.map_err(|e| to_js(&e, None))
}
