//! The caller's object of each log entry, kept by a binding beside the core's log so that an
//! untouched message renders as the very same object: one slot per entry, in log order, empty
//! for an entry the caller never gave (a loaded log, a compaction) until one is made for it.
//! The rules for keeping the slots in step with the log (an append, a commit, a merge, a
//! branch) are here; what an object is stays the binding's (`T`).

/// One slot per log entry: the object given or made for it, if any.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EntryObjects<T> {
    slots: Vec<Option<T>>,
}

impl<T: Clone> EntryObjects<T> {
    /// `len` empty slots (a log of `len` entries read from text).
    pub fn new(len: usize) -> Self {
        EntryObjects {
            slots: vec![None; len],
        }
    }

    /// The object of entry `i`: the one kept, or one `make` makes, kept from now on.
    pub fn get_or_make(&mut self, i: usize, make: impl FnOnce() -> T) -> T {
        if self.slots.len() <= i {
            self.slots.resize(i + 1, None);
        }
        match self.slots.get_mut(i) {
            Some(Some(kept)) => kept.clone(),
            Some(slot) => slot.insert(make()).clone(),
            None => make(),
        }
    }

    /// After an append that left the log `len` entries long, the last of them the caller's
    /// `added` objects (entries the append made before them, if any, have none).
    pub fn appended(&mut self, len: usize, added: Vec<T>) {
        self.slots.resize(len.saturating_sub(added.len()), None);
        self.slots.extend(added.into_iter().map(Some));
    }

    /// After a commit that left the log `len` entries long: the entries it added have none.
    pub fn grown(&mut self, len: usize) {
        self.slots.resize(len, None);
    }

    /// After a merge: entry `i` of the merged log is entry `moved[i]` of the log before it
    /// (`None`: another writer's, without an object).
    pub fn remap(&mut self, moved: &[Option<usize>]) {
        let before = std::mem::take(&mut self.slots);
        let at = |i: &Option<usize>| i.and_then(|i| before.get(i).cloned().flatten());
        self.slots = moved.iter().map(at).collect();
    }

    /// The slots of a branch `len` entries long: the objects of all its entries but its last,
    /// the branch entry, which has none.
    pub fn branched(&self, len: usize) -> Self {
        let kept = len.saturating_sub(1);
        let mut slots: Vec<Option<T>> = self.slots.iter().take(kept).cloned().collect();
        slots.resize(len, None);
        EntryObjects { slots }
    }

    /// How many slots there are (the log's length when in step).
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// No slots.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn slots(o: &EntryObjects<&'static str>) -> Vec<Option<&'static str>> {
        o.slots.clone()
    }

    #[test]
    fn an_object_is_made_once_and_kept() {
        let mut o = EntryObjects::new(2);
        assert_eq!(o.get_or_make(1, || "made"), "made");
        assert_eq!(o.get_or_make(1, || "again"), "made");
        // Past the end the slots grow to it.
        assert_eq!(o.get_or_make(3, || "far"), "far");
        assert_eq!(slots(&o), [None, Some("made"), None, Some("far")]);
    }

    #[test]
    fn appends_and_commits_keep_the_slots_in_step_with_the_log() {
        let mut o = EntryObjects::new(1);
        // The append made a header-like entry first: 1 + 1 + 2 entries.
        o.appended(4, vec!["a", "b"]);
        assert_eq!(slots(&o), [None, None, Some("a"), Some("b")]);
        o.grown(6);
        assert_eq!(o.len(), 6);
        assert_eq!(slots(&o)[4..], [None, None]);
    }

    #[test]
    fn a_merge_moves_the_objects_with_their_entries() {
        let mut o = EntryObjects::new(0);
        o.appended(3, vec!["a", "b", "c"]);
        o.remap(&[Some(0), None, Some(2), Some(9)]);
        assert_eq!(slots(&o), [Some("a"), None, Some("c"), None]);
    }

    #[test]
    fn a_branch_keeps_the_objects_before_its_entry() {
        let mut o = EntryObjects::new(0);
        o.appended(3, vec!["a", "b", "c"]);
        assert_eq!(slots(&o.branched(3)), [Some("a"), Some("b"), None]);
        assert_eq!(
            slots(&o.branched(5)),
            [Some("a"), Some("b"), Some("c"), None, None]
        );
        assert!(o.branched(0).is_empty());
    }
}
