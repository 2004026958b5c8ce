//! The argument types some exports take, named as their declarations name them. Every TypeScript
//! declaration of the package is a real file under `js/types/` (this module's unions are in
//! `js/types/options.d.ts`), tied to the code by `tests/js/declarations.test.mjs`.

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// A JS value declared as `EncodingName`; checked at run time.
    #[wasm_bindgen(typescript_type = "EncodingName")]
    pub type EncodingArg;

    /// A JS value declared as `MessageFormat`; checked at run time.
    #[wasm_bindgen(typescript_type = "MessageFormat")]
    pub type FormatArg;

    /// A JS value declared as `Tokenizer`; checked at run time.
    #[wasm_bindgen(typescript_type = "Tokenizer")]
    pub type TokenizerArg;
}
