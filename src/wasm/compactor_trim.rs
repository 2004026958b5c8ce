//! `Compactor.trim`: `trimMessages` on the compactor's message store (`core::compactor::store`,
//! reached through its identity map), so that trimming a growing history before every model call
//! converts and counts only its new messages.

use wasm_bindgen::prelude::*;

use super::compactor::Compactor;
use super::convert::outgoing;
use super::error::throw;
use super::functions::refuse_langchain_only;
use crate::core::error::Error;
use crate::core::message::Part;
use crate::core::options::trim::parse_trim;
use crate::core::trim::trim;

#[wasm_bindgen]
impl Compactor {
    /// `trimMessages` with the compactor's tokenizer and format: the kept messages are the
    /// caller's objects (a partial one a copy). Only messages not seen before are converted.
    pub fn trim(&self, messages: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
        refuse_langchain_only(&options)?;
        for (key, what) in [("tokenizer", "tokenizer"), ("format", "format")] {
            let given = js_sys::Reflect::get(&options, &JsValue::from_str(key)).unwrap_or_default();
            if options.is_object() && !given.is_undefined() {
                return throw(Err(Error::invalid_option(
                    key,
                    format!("Compactor.trim counts with the compactor's {what}: set it on the Compactor, or call trimMessages"),
                )));
            }
        }
        let json =
            super::plain::to_json(&options, "options", super::plain::Kind::Options, "options")?;
        let (trim_options, _, _) = throw(parse_trim(&json))?;
        let a = self.inner.analyze(&messages)?;
        let cost = |p: &Part| a.estimator.part_tokens(p);
        let trimmed = throw(trim(
            &a.incoming.messages,
            &a.estimate.per_message,
            &cost,
            &trim_options,
        ))?;
        let rendered = trimmed.rendered(&a.incoming.messages);
        let out = outgoing(&a.incoming, &rendered);
        self.inner.restore(a);
        Ok(out.into())
    }
}
