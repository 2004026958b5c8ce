//! The encodings loaded in this instance: one [`EncodingRegistry`] per thread (the wasm instance
//! has one), which `countTokens`, `loadEncoding` and the exact tokenizer options all read.
//! Fetching a rank table that is not loaded (a file in Node) is the binding's.

use super::encoding::{Encoding, EncodingName};
use super::registry::EncodingRegistry;
use crate::core::error::Result;
use std::cell::RefCell;
use std::rc::Rc;

thread_local! {
    static LOADED: RefCell<EncodingRegistry> = RefCell::new(EncodingRegistry::default());
}

/// The encoding `name` if it is loaded.
pub fn get(name: EncodingName) -> Option<Rc<Encoding>> {
    LOADED.with(|r| r.borrow().get(name))
}

/// The encoding `name`, or `ENCODING_UNAVAILABLE` saying how to load it
/// ([`EncodingRegistry::require`]).
pub fn require(name: EncodingName) -> Result<Rc<Encoding>> {
    LOADED.with(|r| r.borrow().require(name))
}

/// Parses and installs a `.tiktoken` rank table for `name`; a bad table leaves the loaded
/// encoding as it was ([`EncodingRegistry::load`]).
pub fn load(name: EncodingName, table: &[u8]) -> Result<Rc<Encoding>> {
    LOADED.with(|r| r.borrow_mut().load(name, table))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::error::ErrorCode;

    #[test]
    fn an_encoding_is_unavailable_until_a_good_table_is_loaded() {
        let name = EncodingName::Cl100kBase;
        assert!(get(name).is_none());
        let e = require(name).err();
        assert_eq!(e.map(|e| e.code), Some(ErrorCode::EncodingUnavailable));
        assert!(load(name, b"not a rank table").is_err());
        assert!(get(name).is_none(), "a bad table loads nothing");
    }
}
