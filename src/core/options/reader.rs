//! Typed, path-aware reading of a JSON options object: every unknown key, wrong type or impossible
//! number is `INVALID_OPTIONS` naming the key (`trigger.anyOf[1].fraction`).
//!
//! A reader made [`Reader::listed`] knows the keys its object accepts: a key outside the list is
//! unknown (the error names the accepted ones), and reading a key that is not listed is an
//! `INTERNAL` error at [`Reader::finish`], so the list cannot drift from what the code reads. A
//! reader made with [`Reader::new`] (objects whose keys depend on a variant, such as `prune`'s
//! style) calls unknown every key nobody read.

use crate::core::error::{Error, ErrorCode, Result};
use serde_json::{Map, Value};
use std::cell::RefCell;

/// Reads one object; [`Reader::finish`] rejects the keys nobody asked for.
pub struct Reader<'a> {
    obj: &'a Map<String, Value>,
    path: String,
    used: RefCell<Vec<&'static str>>,
    accepted: Option<Vec<&'static str>>,
}

impl<'a> Reader<'a> {
    /// A reader over `value`, which must be an object (`path` names it; empty for the root).
    pub fn new(value: &'a Value, path: &str) -> Result<Reader<'a>> {
        let obj = value.as_object().ok_or_else(|| {
            Error::invalid_option(root(path), format!("{} must be an object", name(path)))
        })?;
        Ok(Reader {
            obj,
            path: path.to_string(),
            used: RefCell::new(Vec::new()),
            accepted: None,
        })
    }

    /// A reader over `value` that accepts exactly the keys of `lists` (see the module
    /// documentation).
    pub fn listed(value: &'a Value, path: &str, lists: &[&[&'static str]]) -> Result<Reader<'a>> {
        let mut r = Reader::new(value, path)?;
        r.accepted = Some(lists.iter().flat_map(|l| l.iter().copied()).collect());
        Ok(r)
    }

    /// The path of `key` inside this object.
    pub fn key_path(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    /// The raw value of `key` (null counts as absent).
    pub fn value(&self, key: &'static str) -> Option<&'a Value> {
        self.used.borrow_mut().push(key);
        self.obj.get(key).filter(|v| !v.is_null())
    }

    /// True when `key` is present with the value null (an explicit "none").
    pub fn obj_has_null(&self, key: &str) -> bool {
        self.obj.get(key).is_some_and(Value::is_null)
    }

    /// True when `key` is present (not null).
    pub fn has(&self, key: &str) -> bool {
        self.obj.get(key).is_some_and(|v| !v.is_null())
    }

    /// A whole number ≥ `min`.
    pub fn count(&self, key: &'static str, min: u64) -> Result<Option<usize>> {
        let Some(v) = self.value(key) else {
            return Ok(None);
        };
        let n = v
            .as_u64()
            .or_else(|| {
                v.as_f64()
                    .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= 9.0e15)
                    .map(|f| f as u64)
            })
            .ok_or_else(|| {
                Error::invalid_option(
                    self.key_path(key),
                    format!("{key} must be a whole number, got {v}"),
                )
            })?;
        if n < min {
            return Err(Error::invalid_option(
                self.key_path(key),
                format!("{key} must be at least {min}, got {n}"),
            ));
        }
        usize::try_from(n)
            .map(Some)
            .map_err(|_| Error::invalid_option(self.key_path(key), format!("{key} is too large")))
    }

    /// A number in `(low, high]`.
    pub fn fraction(&self, key: &'static str) -> Result<Option<f64>> {
        let Some(v) = self.value(key) else {
            return Ok(None);
        };
        match v.as_f64() {
            Some(f) if f > 0.0 && f <= 1.0 => Ok(Some(f)),
            _ => Err(Error::invalid_option(
                self.key_path(key),
                format!("{key} must be a number above 0 and at most 1, got {v}"),
            )),
        }
    }

    /// A string.
    pub fn string(&self, key: &'static str) -> Result<Option<&'a str>> {
        let Some(v) = self.value(key) else {
            return Ok(None);
        };
        v.as_str().map(Some).ok_or_else(|| {
            Error::invalid_option(
                self.key_path(key),
                format!("{key} must be a string, got {v}"),
            )
        })
    }

    /// One of `choices`.
    pub fn choice(&self, key: &'static str, choices: &[&str]) -> Result<Option<&'a str>> {
        match self.string(key)? {
            Some(s) if choices.contains(&s) => Ok(Some(s)),
            Some(s) => Err(Error::invalid_option(
                self.key_path(key),
                format!(
                    "{key} must be one of {}, got \"{s}\"",
                    choices
                        .iter()
                        .map(|c| format!("\"{c}\""))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )),
            None => Ok(None),
        }
    }

    /// A boolean.
    pub fn boolean(&self, key: &'static str) -> Result<Option<bool>> {
        let Some(v) = self.value(key) else {
            return Ok(None);
        };
        v.as_bool().map(Some).ok_or_else(|| {
            Error::invalid_option(
                self.key_path(key),
                format!("{key} must be true or false, got {v}"),
            )
        })
    }

    /// A list of strings.
    pub fn strings(&self, key: &'static str) -> Result<Option<Vec<String>>> {
        let Some(v) = self.value(key) else {
            return Ok(None);
        };
        let list = v.as_array().ok_or_else(|| {
            Error::invalid_option(
                self.key_path(key),
                format!("{key} must be an array of strings"),
            )
        })?;
        list.iter()
            .enumerate()
            .map(|(i, item)| {
                item.as_str().map(str::to_string).ok_or_else(|| {
                    Error::invalid_option(
                        format!("{}[{i}]", self.key_path(key)),
                        "must be a string",
                    )
                })
            })
            .collect::<Result<Vec<_>>>()
            .map(Some)
    }

    /// Fails on the first unknown key: one outside the accepted list, or (without a list) one
    /// that was not read.
    pub fn finish(self) -> Result<()> {
        let used = self.used.borrow();
        let Some(accepted) = &self.accepted else {
            return match self.obj.keys().find(|k| !used.contains(&k.as_str())) {
                Some(unknown) => Err(Error::invalid_option(
                    self.key_path(unknown),
                    format!("unknown option \"{unknown}\""),
                )),
                None => Ok(()),
            };
        };
        if let Some(unlisted) = used.iter().find(|k| !accepted.contains(k)) {
            return Err(Error::new(
                ErrorCode::Internal,
                format!(
                    "the option \"{unlisted}\" is read but not in the accepted list of {}",
                    name(&self.path)
                ),
            ));
        }
        match self.obj.keys().find(|k| !accepted.contains(&k.as_str())) {
            Some(unknown) => Err(Error::invalid_option(
                self.key_path(unknown),
                format!(
                    "unknown option \"{unknown}\" (expected {})",
                    accepted.join(", ")
                ),
            )),
            None => Ok(()),
        }
    }
}

fn root(path: &str) -> String {
    if path.is_empty() {
        "options".into()
    } else {
        path.into()
    }
}

fn name(path: &str) -> &str {
    if path.is_empty() {
        "options"
    } else {
        path
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_listed_reader_refuses_keys_outside_its_list_and_reads_of_unlisted_keys() {
        let v = json!({"a": 1, "b": 2});
        let r = Reader::listed(&v, "", &[&["a"], &["b", "c"]]).unwrap();
        assert_eq!(r.count("a", 0).unwrap(), Some(1));
        r.finish().unwrap();
        let r = Reader::listed(&v, "x", &[&["a"]]).unwrap();
        let e = r.finish().unwrap_err();
        assert_eq!(e.path.as_deref(), Some("x.b"));
        assert!(e.message.contains("(expected a)"), "{}", e.message);
        let r = Reader::listed(&v, "", &[&["a", "b"]]).unwrap();
        let _ = r.value("z");
        assert_eq!(r.finish().unwrap_err().code, ErrorCode::Internal);
    }
}
