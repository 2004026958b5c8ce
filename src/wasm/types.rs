//! TypeScript declarations for unions that wasm-bindgen cannot derive.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** An exact encoding whose rank table ships with the package. */
export type EncodingName = "o200k_base" | "cl100k_base";
/** How tokens are counted: the fast content-aware estimate, or an exact encoding. */
export type Tokenizer = "heuristic" | EncodingName;
"#;

#[wasm_bindgen]
extern "C" {
    /// A JS value declared as `EncodingName`; checked at run time.
    #[wasm_bindgen(typescript_type = "EncodingName")]
    pub type EncodingArg;

    /// A JS value declared as `Tokenizer`; checked at run time.
    #[wasm_bindgen(typescript_type = "Tokenizer")]
    pub type TokenizerArg;
}
