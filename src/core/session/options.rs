//! The options only a session has, taken out of the options object before the shared options are
//! parsed: `sessionId` (the header's id), `background` (start compacting in the background at
//! this fraction of the usable window, below the trigger) and `strict` (`Session.fromJSONL`
//! refuses a torn last line).

use serde_json::Value;

use crate::core::error::{Error, Result};
use crate::core::estimate::{Estimator, Learned};
use crate::core::options::{parse_with, Options};
use crate::core::trigger::Budget;

/// The keys only a session's options object has (`SessionOptions` in `js/types/session.d.ts`
/// adds them to the Compactor's, without the store keys).
pub const SESSION_KEYS: [&str; 3] = ["sessionId", "background", "strict"];

/// A session's options object (its functions taken out): the shared options and the
/// session-only ones. An unknown key's error lists both.
pub fn parse(mut options: Value) -> Result<(Options, SessionOptions)> {
    let session = take(&mut options)?;
    Ok((parse_with(&options, &SESSION_KEYS)?, session))
}

/// The session-only options.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SessionOptions {
    /// The session's id (default: generated).
    pub id: Option<String>,
    /// The background threshold as a fraction of the usable window, in (0, 1).
    pub background: Option<f64>,
    /// `Session.fromJSONL`: refuse a torn last line instead of loading up to it (a no-op for
    /// `new Session`).
    pub strict: bool,
}

impl SessionOptions {
    /// A branch's session options: these without the id (a branch has an id of its own).
    pub fn for_branch(&self) -> Self {
        SessionOptions {
            id: None,
            ..self.clone()
        }
    }

    /// The configuration of a session made with `options` and these session options, counting
    /// with `estimator` (the options' own: the binding loads an exact encoding).
    pub fn config(&self, options: &Options, estimator: Estimator) -> super::Config {
        super::Config {
            settings: options.settings.clone(),
            estimator,
            background_tokens: self.background_tokens(&options.settings.budget),
            calibration: Learned::new(options.profile.error),
            self_calibration: options.self_calibration,
        }
    }

    /// The background threshold in tokens for `budget`.
    pub fn background_tokens(&self, budget: &Budget) -> Option<usize> {
        self.background.map(|f| {
            #[allow(
                clippy::cast_possible_truncation,
                clippy::cast_sign_loss,
                clippy::cast_precision_loss
            )]
            let tokens = (f * budget.available() as f64).floor() as usize;
            tokens.max(1)
        })
    }
}

/// Removes `sessionId`, `background` and `strict` from `options` (an object) and validates them.
pub fn take(options: &mut Value) -> Result<SessionOptions> {
    let Some(obj) = options.as_object_mut() else {
        return Ok(SessionOptions::default());
    };
    let id = match obj.remove("sessionId") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if !s.is_empty() => Some(s),
        Some(_) => {
            return Err(Error::invalid_option(
                "sessionId",
                "sessionId must be a non-empty string",
            ))
        }
    };
    let background = match obj.remove("background") {
        None | Some(Value::Null) | Some(Value::Bool(false)) => None,
        Some(Value::Number(n)) => match n.as_f64() {
            Some(f) if f > 0.0 && f < 1.0 => Some(f),
            _ => return Err(Error::invalid_option(
                "background",
                "background must be a fraction of the usable window between 0 and 1 (e.g. 0.75)",
            )),
        },
        Some(_) => {
            return Err(Error::invalid_option(
                "background",
                "background must be a number between 0 and 1 (e.g. 0.75) or false",
            ))
        }
    };
    let strict = match obj.remove("strict") {
        None | Some(Value::Null) | Some(Value::Bool(false)) => false,
        Some(Value::Bool(true)) => true,
        Some(_) => {
            return Err(Error::invalid_option(
                "strict",
                "strict must be true or false",
            ))
        }
    };
    Ok(SessionOptions {
        id,
        background,
        strict,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn takes_and_validates_the_session_keys() {
        let mut v = json!({"contextWindow": 1000, "background": 0.75, "sessionId": "s1"});
        let o = take(&mut v).unwrap();
        assert_eq!(o.id.as_deref(), Some("s1"));
        assert_eq!(o.background, Some(0.75));
        assert_eq!(v, json!({"contextWindow": 1000}));
        for bad in [
            json!({"background": 1.5}),
            json!({"background": "x"}),
            json!({"sessionId": 3}),
        ] {
            let mut v = bad;
            assert!(take(&mut v).is_err());
        }
        let branch = o.for_branch();
        assert_eq!((branch.id, branch.background), (None, Some(0.75)));
    }
}
