//! The caller's values a driven compaction keeps (answers, thrown errors, abort reasons), named by
//! the [`ValueId`] the steps and events carry: the binding keeps them here and the core only ever
//! sees their ids.

use super::steps::ValueId;

/// Values kept in the order they came, each named by its place.
#[derive(Debug)]
pub struct Kept<T>(Vec<T>);

impl<T> Default for Kept<T> {
    fn default() -> Self {
        Kept(Vec::new())
    }
}

impl<T: Clone + Default> Kept<T> {
    /// Keeps `value` and names it.
    pub fn keep(&mut self, value: T) -> ValueId {
        self.0.push(value);
        ValueId(u32::try_from(self.0.len() - 1).unwrap_or(u32::MAX))
    }

    /// The value named `id` (the default value, `undefined` in JS, for an id never given).
    pub fn get(&self, id: ValueId) -> T {
        self.0.get(id.0 as usize).cloned().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_value_is_named_by_its_place_and_an_unknown_id_reads_as_the_default() {
        let mut kept = Kept::default();
        assert_eq!(kept.keep("answer".to_string()), ValueId(0));
        assert_eq!(kept.keep("thrown".to_string()), ValueId(1));
        assert_eq!(kept.get(ValueId(1)), "thrown");
        assert_eq!(kept.get(ValueId(0)), "answer");
        assert_eq!(kept.get(ValueId(2)), "");
    }
}
