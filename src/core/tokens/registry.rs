//! The set of loaded encodings, one slot per known encoding.

use super::encoding::{Encoding, EncodingName};
use crate::core::error::{Error, ErrorCode, Result};
use std::rc::Rc;

/// Loaded encodings. Cheap to query; loading replaces the slot.
#[derive(Default, Debug)]
pub struct EncodingRegistry {
    o200k_base: Option<Rc<Encoding>>,
    cl100k_base: Option<Rc<Encoding>>,
}

impl EncodingRegistry {
    fn slot(&mut self, name: EncodingName) -> &mut Option<Rc<Encoding>> {
        match name {
            EncodingName::O200kBase => &mut self.o200k_base,
            EncodingName::Cl100kBase => &mut self.cl100k_base,
        }
    }

    /// The encoding if loaded.
    pub fn get(&self, name: EncodingName) -> Option<Rc<Encoding>> {
        match name {
            EncodingName::O200kBase => self.o200k_base.clone(),
            EncodingName::Cl100kBase => self.cl100k_base.clone(),
        }
    }

    /// Parses and stores a rank table; the previous encoding stays if the table is bad.
    pub fn load(&mut self, name: EncodingName, table: &[u8]) -> Result<Rc<Encoding>> {
        let encoding = Rc::new(Encoding::parse(name, table)?);
        *self.slot(name) = Some(Rc::clone(&encoding));
        Ok(encoding)
    }

    /// `ENCODING_UNAVAILABLE` when the entry point's loader failed to give the rank table of
    /// `name` from the package directory.
    pub fn unloadable(name: EncodingName) -> Error {
        let message = format!(
            "the {} rank table could not be loaded from the package directory",
            name.as_str()
        );
        Error::new(ErrorCode::EncodingUnavailable, message)
    }

    /// The encoding, or `ENCODING_UNAVAILABLE` saying how to load it.
    pub fn require(&self, name: EncodingName) -> Result<Rc<Encoding>> {
        self.get(name).ok_or_else(|| {
            Error::new(
                ErrorCode::EncodingUnavailable,
                format!(
                    "the {0} rank table is not loaded: call `await loadEncoding(\"{0}\")` first (Node loads it by itself)",
                    name.as_str()
                ),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unloadable_table_is_encoding_unavailable() {
        let e = EncodingRegistry::unloadable(EncodingName::Cl100kBase);
        assert_eq!(e.code, ErrorCode::EncodingUnavailable);
        assert_eq!(
            e.message,
            "the cl100k_base rank table could not be loaded from the package directory"
        );
    }
}
