//! A message's parts behind a shared pointer: cloning a message (a compaction's snapshot of the
//! live context, the view's copy of each message) shares its parts instead of copying every
//! string and tool input; a change to a shared list copies it first (copy on write), so no
//! other holder ever sees it.

use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use super::Part;

/// The parts of a [`Message`](super::Message): a `Vec<Part>` to read and to change (see the
/// module documentation).
#[derive(Clone, Default, PartialEq)]
pub struct Parts(Arc<Vec<Part>>);

impl Parts {
    /// The parts as a list of their own (copied when shared).
    pub fn into_vec(self) -> Vec<Part> {
        Arc::try_unwrap(self.0).unwrap_or_else(|shared| shared.as_ref().clone())
    }
}

impl std::fmt::Debug for Parts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.as_ref().fmt(f)
    }
}

impl Deref for Parts {
    type Target = Vec<Part>;

    fn deref(&self) -> &Vec<Part> {
        &self.0
    }
}

impl DerefMut for Parts {
    fn deref_mut(&mut self) -> &mut Vec<Part> {
        Arc::make_mut(&mut self.0)
    }
}

impl From<Vec<Part>> for Parts {
    fn from(parts: Vec<Part>) -> Parts {
        Parts(Arc::new(parts))
    }
}

impl FromIterator<Part> for Parts {
    fn from_iter<I: IntoIterator<Item = Part>>(iter: I) -> Parts {
        Parts::from(iter.into_iter().collect::<Vec<Part>>())
    }
}

impl PartialEq<Vec<Part>> for Parts {
    fn eq(&self, other: &Vec<Part>) -> bool {
        self.0.as_ref() == other
    }
}

impl PartialEq<Parts> for Vec<Part> {
    fn eq(&self, other: &Parts) -> bool {
        self == other.0.as_ref()
    }
}

impl<'a> IntoIterator for &'a Parts {
    type Item = &'a Part;
    type IntoIter = std::slice::Iter<'a, Part>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<'a> IntoIterator for &'a mut Parts {
    type Item = &'a mut Part;
    type IntoIter = std::slice::IterMut<'a, Part>;

    fn into_iter(self) -> Self::IntoIter {
        Arc::make_mut(&mut self.0).iter_mut()
    }
}

impl IntoIterator for Parts {
    type Item = Part;
    type IntoIter = std::vec::IntoIter<Part>;

    fn into_iter(self) -> Self::IntoIter {
        self.into_vec().into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clone_shares_until_one_changes() {
        let a = Parts::from(vec![Part::text("x".repeat(100))]);
        let mut b = a.clone();
        assert!(std::ptr::eq(a.as_ptr(), b.as_ptr()));
        b.push(Part::text("y"));
        assert_eq!(a.len(), 1);
        assert_eq!(b.len(), 2);
        assert!(!std::ptr::eq(a.as_ptr(), b.as_ptr()));
        assert_eq!(a, vec![Part::text("x".repeat(100))]);
        assert_eq!(a.into_vec(), vec![Part::text("x".repeat(100))]);
    }
}
