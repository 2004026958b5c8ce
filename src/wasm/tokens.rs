//! `estimateTokens`, `countTokens`, and the loading of rank tables behind `loadEncoding` (the
//! registry of loaded encodings is the core's: [`crate::core::tokens::loaded`]).

use super::error::{throw, to_js};
use crate::core::estimate::Counter;
use crate::core::options::Tokenizer;
use crate::core::tokens::{loaded, Encoding, EncodingName, EncodingRegistry};
use js_sys::Uint8Array;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// A JS value declared as `EncodingName` (`js/types/options.d.ts`); checked at run time.
    #[wasm_bindgen(typescript_type = "EncodingName")]
    pub type EncodingArg;

    /// A JS value declared as `Tokenizer`; checked at run time.
    #[wasm_bindgen(typescript_type = "Tokenizer")]
    pub type TokenizerArg;
}

/// The loaded encoding of an exact tokenizer, `None` for the heuristic.
pub fn exact(tokenizer: Tokenizer) -> Result<Option<Rc<Encoding>>, JsValue> {
    tokenizer.encoding().map(encoding).transpose()
}

/// The loaded encoding, loading it through the entry point's synchronous loader where there is one
/// (Node). The JS loader runs while no Rust borrow is held, so it may call back into the package.
pub fn encoding(name: EncodingName) -> Result<Rc<Encoding>, JsValue> {
    if let Some(found) = loaded::get(name) {
        return Ok(found);
    }
    let Some(loader) = super::env::encoding_loader() else {
        return throw(loaded::require(name));
    };
    let unavailable = |cause: Option<&JsValue>| to_js(&EncodingRegistry::unloadable(name), cause);
    let bytes = loader
        .call1(&JsValue::UNDEFINED, &JsValue::from_str(name.as_str()))
        .map_err(|cause| unavailable(Some(&cause)))?;
    let table: Uint8Array = bytes.dyn_into().map_err(|_| unavailable(None))?;
    throw(loaded::load(name, &table.to_vec()))
}

fn parse_encoding(name: &JsValue, path: &str) -> Result<EncodingName, JsValue> {
    throw(EncodingName::parse_arg(name.as_string().as_deref(), path))
}

/// Estimated tokens of `text`: the content-aware heuristic when `tokenizer` is `"heuristic"` (the
/// default), or the exact count of `countTokens` when it names an encoding.
#[wasm_bindgen(js_name = estimateTokens)]
pub fn estimate_tokens(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    tokenizer: Option<TokenizerArg>,
) -> Result<usize, JsValue> {
    let text = super::convert::text_arg(&text, "text")?;
    let name = tokenizer.map(|t| t.as_string());
    let tokenizer = throw(Tokenizer::parse_arg(name.as_ref().map(Option::as_deref)))?;
    Ok(Counter::of(exact(tokenizer)?).count(&text))
}

/// The exact token count of `text` in `encoding`, on tiktoken's ordinary path (special-token strings
/// are text). Throws `ENCODING_UNAVAILABLE` when the rank table is not loaded and cannot be.
#[wasm_bindgen(js_name = countTokens)]
pub fn count_tokens(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    encoding: &EncodingArg,
) -> Result<usize, JsValue> {
    let text = super::convert::text_arg(&text, "text")?;
    Ok(self::encoding(parse_encoding(encoding, "encoding")?)?.count(&text))
}

/// Whether the rank table of `encoding` is loaded, that is whether `countTokens` with it works
/// right now.
#[wasm_bindgen(js_name = isEncodingLoaded)]
pub fn is_encoding_loaded(encoding: &EncodingArg) -> Result<bool, JsValue> {
    Ok(loaded::get(parse_encoding(encoding, "encoding")?).is_some())
}

/// Parses and installs a `.tiktoken` rank table. Internal: `loadEncoding` normalizes its source and
/// calls this.
#[wasm_bindgen(js_name = "__installEncoding", skip_typescript)]
pub fn install_encoding(name: &JsValue, table: &[u8]) -> Result<(), JsValue> {
    throw(loaded::load(parse_encoding(name, "name")?, table).map(|_| ()))
}
