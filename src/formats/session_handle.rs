//! What a `Session` handle keeps beside its core session ([`HandleState`], generic over the
//! binding's value `T`): the caller's object of each log entry, kept in step with the log through
//! every change (an append, a commit, a merge of a store's lines, a branch), the pipeline that
//! decides compactions, whether one runs, the failure of a background one, and the tag of new
//! entry ids when a store shares the log. The binding holds it in a `RefCell` and only converts.

use serde_json::Value;

use super::session_input::{self as input, Fresh};
use super::Format;
use crate::core::error::Result;
use crate::core::options::Options;
use crate::core::pipeline::Pipeline;
use crate::core::session::objects::EntryObjects;
use crate::core::session::{results, Config, Session};

/// A session handle's state: borrowed briefly, never across a call into caller code.
pub struct HandleState<T> {
    /// `None` until the format is known (the first append detects it unless the options name it).
    pub core: Option<Session>,
    /// The caller's object of each log entry (none until rendered, for loaded logs).
    pub originals: EntryObjects<T>,
    /// A compaction is running (the binding's driver says when; it keeps what waits for it).
    pub running: bool,
    /// The breaker and the count of compactions: the core's pipeline decides every compaction.
    pub pipeline: Pipeline,
    /// The outcome of the latest background compaction, if it failed.
    pub background_error: Option<T>,
    /// The tag of new entry ids when a store shares the log.
    pub id_tag: Option<String>,
}

impl<T: Clone> HandleState<T> {
    /// The state around `core` (`None`: empty) for `options`, without any of the caller's objects.
    pub fn new(core: Option<Session>, options: &Options) -> Self {
        let len = core.as_ref().map_or(0, |c| c.log().len());
        HandleState {
            core,
            originals: EntryObjects::new(len),
            running: false,
            pipeline: Pipeline::new(options),
            background_error: None,
            id_tag: None,
        }
    }

    /// The log's length.
    fn len(&self) -> usize {
        self.core.as_ref().map_or(0, |c| c.log().len())
    }

    /// An append of `count` messages makes the session (none yet; it then needs a [`Fresh`]):
    /// when there are messages, or the options name the format (`given`).
    pub fn makes_session(&self, count: usize, given: Option<Format>) -> bool {
        self.core.is_none() && (count > 0 || given.is_some())
    }

    /// Appends the caller's messages `values`, of which `added` are the caller's objects
    /// ([`input::append`]; `fresh` when [`Self::makes_session`]); returns their ids. A refused
    /// message changes nothing.
    pub fn append(
        &mut self,
        values: &[Value],
        added: Vec<T>,
        fresh: Option<Fresh>,
        given: Option<Format>,
        now: i64,
        grow: &dyn Fn(),
    ) -> Result<Vec<String>> {
        let ids = input::append(&mut self.core, fresh, given, values, now, grow)?;
        let len = self.len();
        self.originals.appended(len, added);
        Ok(ids)
    }

    /// After a commit: the entries it added have no object of the caller's.
    pub fn committed(&mut self) {
        let len = self.len();
        self.originals.grown(len);
    }

    /// Tags the ids of new entries from now on, so that writers sharing the log never make the
    /// same id.
    pub fn attach(&mut self, tag: String) {
        self.id_tag = Some(tag.clone());
        if let Some(core) = self.core.as_mut() {
            core.set_id_tag(Some(tag));
        }
    }

    /// Merges the lines other writers stored ([`input::merge`]; `config` when there is no session
    /// yet); returns `{ merged, dropped }`. Each entry keeps the caller's object it had.
    pub fn merge(
        &mut self,
        header: String,
        lines: Vec<String>,
        config: Option<Config>,
    ) -> Result<Value> {
        let tag = self.id_tag.clone();
        let (result, moved) = input::merge(&mut self.core, header, lines, config, tag)?;
        self.originals.remap(&moved);
        Ok(result)
    }

    /// A new state from entry `entry_id` ([`results::branch`]) with the session id `id`: the
    /// caller's objects of the entries it keeps, all but its branch entry. `INVALID_INPUT` for
    /// an empty session.
    pub fn branch(&self, entry_id: Option<&str>, id: String, options: &Options) -> Result<Self> {
        let branched = results::branch(self.core.as_ref(), entry_id, id)?;
        let originals = self.originals.branched(branched.log().len());
        let mut state = HandleState::new(Some(branched), options);
        state.originals = originals;
        Ok(state)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::core::estimate::{Counter, Estimator};
    use serde_json::json;

    fn options() -> Options {
        crate::core::options::parse(&json!({"contextWindow": 100_000})).unwrap()
    }

    fn fresh() -> Fresh {
        Fresh {
            config: Config {
                settings: options().settings,
                estimator: Estimator::new(Counter::Heuristic),
                background_tokens: None,
                calibration: Default::default(),
                self_calibration: false,
            },
            id: "s".into(),
            tag: None,
        }
    }

    fn chat() -> Vec<Value> {
        vec![
            json!({"role": "user", "content": "read src/lib.rs"}),
            json!({"role": "assistant", "content": "Reading it."}),
        ]
    }

    #[test]
    fn an_append_makes_the_session_and_keeps_the_caller_s_objects() {
        let mut state = HandleState::<&str>::new(None, &options());
        assert!(!state.makes_session(0, None));
        assert!(state.makes_session(0, Some(Format::AiSdk)));
        assert!(state.makes_session(2, None));
        let ids = state
            .append(&chat(), vec!["a", "b"], Some(fresh()), None, 0, &|| ())
            .unwrap();
        assert_eq!(ids.len(), 2);
        assert!(!state.makes_session(2, None), "made");
        assert_eq!(state.originals.get_or_make(1, || "made"), "b");
        // A refused message changes nothing.
        let refused = state.append(&[json!(7)], vec!["c"], None, None, 0, &|| ());
        assert!(refused.is_err());
        assert_eq!(state.len(), 2);
        assert_eq!(state.originals.get_or_make(2, || "made"), "made");
    }

    #[test]
    fn a_branch_keeps_the_objects_of_the_entries_before_its_branch_entry() {
        let mut state = HandleState::<&str>::new(None, &options());
        let empty = state.branch(None, "b".into(), &options());
        assert_eq!(
            empty.err().map(|e| e.code),
            Some(crate::core::error::ErrorCode::InvalidInput)
        );
        let ids = state
            .append(&chat(), vec!["a", "b"], Some(fresh()), None, 0, &|| ())
            .unwrap();
        let mut branch = state.branch(Some(&ids[0]), "b".into(), &options()).unwrap();
        let len = branch.len();
        assert_eq!(branch.originals.get_or_make(0, || "made"), "a");
        assert_eq!(branch.originals.get_or_make(len - 1, || "made"), "made");
        assert_eq!(branch.core.as_ref().unwrap().header().id, "b");
    }

    #[test]
    fn a_tag_names_new_entries_and_a_commit_leaves_new_entries_without_objects() {
        let mut state = HandleState::<&str>::new(None, &options());
        state.attach("k1".into());
        assert_eq!(state.id_tag.as_deref(), Some("k1"));
        let mut fresh = fresh();
        fresh.tag = state.id_tag.clone();
        let ids = state
            .append(&chat(), vec!["a", "b"], Some(fresh), None, 0, &|| ())
            .unwrap();
        assert!(ids.iter().all(|id| id.contains("k1")), "{ids:?}");
        state.core.as_mut().unwrap().add_note("a note".into());
        state.committed();
        assert_eq!(state.originals.get_or_make(2, || "made"), "made");
        assert_eq!(state.originals.get_or_make(1, || "made"), "b");
    }
}
