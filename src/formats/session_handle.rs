//! What a `Session` handle keeps beside its core session ([`HandleState`], generic over the
//! binding's value `T`): the caller's object of each log entry, kept in step with the log through
//! every change (an append, a commit, a merge of a store's lines, a branch), the pipeline that
//! decides compactions, whether one runs, the failure of a background one, and the tag of new
//! entry ids when a store shares the log; and what the handle reads of it: the messages as the
//! caller's objects (`session_objects`), the log as text, what `prepare()` does next, the
//! cache-lifetime prune at the caller's clock, the memory block's request, a compaction's start
//! and commit. The binding holds it in a `RefCell` and only converts.

use serde_json::Value;

use super::session_compaction::{self, notes_request, Pending};
use super::session_context::Slot;
use super::session_input::{self as input, Fresh};
use super::session_objects::{self, Make, Render};
use super::Format;
use crate::core::error::Result;
use crate::core::estimate::Estimator;
use crate::core::options::Options;
use crate::core::pipeline::{on_pressure, Compacted, Input, Once, Pipeline};
use crate::core::session::objects::EntryObjects;
use crate::core::session::planning::Call;
use crate::core::session::{results, Config, LogCopy, Pressure, Session};
use crate::core::surrogates::marks_to_escapes_owned;

/// A fresh session id, 16 hex digits, from two random numbers in `[0, 1)`.
pub fn fresh_id(a: f64, b: f64) -> String {
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let [a, b] = [a, b].map(|r| (r * 4_294_967_296.0) as u64);
    format!("{:016x}", (a << 32) | b)
}

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

    /// The log's version (it grows with every change; 0 for an empty session).
    pub fn version(&self) -> f64 {
        self.core.as_ref().map_or(0.0, |c| c.version() as f64)
    }

    /// The values of `slots` in `format`, the caller's objects kept or made
    /// ([`session_objects::slot_values`]).
    pub fn values(&mut self, slots: Vec<Slot>, format: Format, make: &Make<'_, T>) -> Vec<T> {
        session_objects::slot_values(self.core.as_ref(), &mut self.originals, slots, format, make)
    }

    /// The live context's values ([`session_objects::live_values`]; `given`: the options' format).
    pub fn live(&mut self, given: Option<Format>, make: &Make<'_, T>) -> Vec<T> {
        session_objects::live_values(self.core.as_ref(), given, &mut self.originals, make)
    }

    /// The render ([`session_objects::render`]; `given`: the options' format).
    pub fn render(&mut self, given: Option<Format>, make: &Make<'_, T>) -> Render<T> {
        session_objects::render(self.core.as_ref(), given, &mut self.originals, make)
    }

    /// The memory block's request when its notes are due ([`notes_request`]).
    pub fn notes_request(&mut self, options: &Options, summarizer: bool) -> Option<(Once, usize)> {
        notes_request(self.core.as_mut(), options, summarizer)
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

    /// What an append of `count` messages needs to make the session: `None` unless it makes one
    /// ([`Self::makes_session`]), else a [`Fresh`] with `config()`, the id `id()` and the tag of
    /// the store sharing the log (`config` and `id` are called only then).
    pub fn fresh<E>(
        &self,
        count: usize,
        given: Option<Format>,
        config: impl FnOnce() -> std::result::Result<Config, E>,
        id: impl FnOnce() -> String,
    ) -> std::result::Result<Option<Fresh>, E> {
        if !self.makes_session(count, given) {
            return Ok(None);
        }
        let tag = self.id_tag.clone();
        Ok(Some(Fresh {
            config: config()?,
            id: id(),
            tag,
        }))
    }

    /// Appends the caller's messages `values`, of which `added` are the caller's objects, at
    /// `now` (milliseconds since the Unix epoch) ([`input::append`]; `fresh` as
    /// [`Self::fresh`] gives it); returns their ids. A refused message changes nothing.
    pub fn append(
        &mut self,
        values: &[Value],
        added: Vec<T>,
        fresh: Option<Fresh>,
        given: Option<Format>,
        now: f64,
        grow: &dyn Fn(),
    ) -> Result<Vec<String>> {
        #[allow(clippy::cast_possible_truncation)]
        let now = now as i64;
        let ids = input::append(&mut self.core, fresh, given, values, now, grow)?;
        let len = self.len();
        self.originals.appended(len, added);
        Ok(ids)
    }

    /// Starts the compaction `call` asks for now ([`session_compaction::start`]): its input, what
    /// waits for its outcome, and the values of the messages it is planned over (the caller's
    /// objects kept or made, [`Self::values`]); `None` when there is nothing to compact.
    pub fn start(
        &mut self,
        options: &Options,
        estimator: Estimator,
        call: Call,
        make: &Make<'_, T>,
    ) -> Result<Option<(Input, Pending, Vec<T>)>> {
        let started = session_compaction::start(self.core.as_ref(), options, estimator, call)?;
        let Some(started) = started else {
            return Ok(None);
        };
        let values = self.values(started.slots, started.pending.format, make);
        Ok(Some((started.input, started.pending, values)))
    }

    /// Commits the outcome `done` of `pending`'s job run on `input`, at `now` (milliseconds
    /// since the Unix epoch) ([`Pending::commit`]); the entries the commit adds have no object
    /// of the caller's. Returns the result without its messages.
    pub fn commit(
        &mut self,
        pending: &mut Pending,
        input: &mut Input,
        done: &Compacted,
        now: f64,
    ) -> Result<Value> {
        #[allow(clippy::cast_possible_truncation)]
        let now = now as i64;
        let result = pending.commit(self.core.as_mut(), input, done, now)?;
        let len = self.len();
        self.originals.grown(len);
        Ok(result)
    }

    /// What `prepare()` does now, as the driver reads it ([`on_pressure`],
    /// [`results::prepare_action`]).
    pub fn prepare_action(&self, force: bool, background: bool) -> Value {
        let pressure = self.core.as_ref().map(|c| c.pressure().1);
        results::prepare_action(on_pressure(pressure, force, background))
    }

    /// The context is past the trigger.
    pub fn past_trigger(&self) -> bool {
        self.core.as_ref().map(|c| c.pressure().1) == Some(Pressure::Hard)
    }

    /// Seed 003's first render step at `now` (milliseconds since the Unix epoch):
    /// [`Session::prune_expired`].
    pub fn prune_expired(&mut self, now: f64) {
        if let Some(core) = self.core.as_mut() {
            #[allow(clippy::cast_possible_truncation)]
            core.prune_expired(now as i64);
        }
    }

    /// The whole log as JSONL (`""` for an empty session), lone surrogates written as the
    /// `\udXXX` escapes `JSON.stringify` writes, as every text below.
    pub fn to_jsonl(&self) -> String {
        let text = self.core.as_ref().map(Session::to_jsonl);
        marks_to_escapes_owned(text.unwrap_or_default())
    }

    /// The lines written since the previous flush (the header the first time).
    pub fn flush(&mut self) -> String {
        let text = self.core.as_mut().map(Session::take_new_lines);
        marks_to_escapes_owned(text.unwrap_or_default())
    }

    /// The lines a copy of the log lacks, up to about `byte_limit` bytes ([`LogCopy`]); `""`
    /// when the copy is up to date.
    pub fn log_since(&mut self, byte_limit: usize) -> String {
        let copy = self.core.as_mut().and_then(|c| c.log_since(byte_limit));
        copy.map_or_else(String::new, LogCopy::into_text)
    }

    /// Records that the store holds the header and the first `count` pending lines (and the
    /// live set of change `live_epoch`, when given): [`Session::mark_stored`].
    pub fn mark_stored(&mut self, count: usize, live_epoch: Option<f64>) {
        if let Some(core) = self.core.as_mut() {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            core.mark_stored(count, live_epoch.map(|e| e as u64));
        }
    }

    /// After an instance reset: `entries` pending lines again, and a pending header and live
    /// set when asked ([`Session::restore_pending`]).
    pub fn restore_pending(&mut self, entries: usize, header: bool, live: bool) {
        if let Some(core) = self.core.as_mut() {
            core.restore_pending(entries, header, live);
        }
    }

    /// The summary of the oldest `count` notes came back: they are condensed into it (notes
    /// added meanwhile are newer, so the oldest `count` are still the ones summarized).
    pub fn notes_answered(&mut self, summary: String, count: usize) {
        if let Some(core) = self.core.as_mut() {
            core.compact_notes(summary, count);
        }
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
    use crate::core::estimate::Counter;
    use serde_json::json;

    fn options() -> Options {
        crate::core::options::parse(&json!({"contextWindow": 100_000})).unwrap()
    }

    fn fresh() -> Fresh {
        Fresh {
            config: Config::heuristic(options().settings),
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
        let none = state.fresh(0, None, || Err("config"), || "s".into());
        assert!(matches!(none, Ok(None)), "makes none: asks for no config");
        let failed = state.fresh(2, None, || Err("config"), || "s".into());
        assert!(matches!(failed, Err("config")));
        state.id_tag = Some("w1".into());
        let made = state.fresh(1, None, || Ok::<_, ()>(fresh().config), || "id".into());
        let made = made.unwrap().unwrap();
        assert_eq!((made.id.as_str(), made.tag.as_deref()), ("id", Some("w1")));
        state.id_tag = None;
        let ids = state
            .append(&chat(), vec!["a", "b"], Some(fresh()), None, 0.0, &|| ())
            .unwrap();
        assert_eq!(ids.len(), 2);
        assert!(!state.makes_session(2, None), "made");
        assert_eq!(
            state.to_jsonl().lines().count(),
            3,
            "the header and two entries"
        );
        assert_eq!(state.flush(), state.to_jsonl());
        assert_eq!(state.flush(), "", "flushed");
        assert!(!state.past_trigger());
        assert_eq!(state.prepare_action(false, true)["action"], "render");
        assert_eq!(state.prepare_action(true, true)["action"], "compact");
        assert_eq!(state.version(), 2.0);
        let make = Make {
            original: &|_: &crate::core::message::Original| "made",
            exported: &|_: &Value| "exported",
        };
        assert_eq!(state.live(None, &make), ["a", "b"]);
        assert_eq!(state.render(None, &make).messages, ["a", "b"]);
        assert_eq!(
            state.values(vec![Slot::Exported(json!(1))], Format::AiSdk, &make),
            ["exported"]
        );
        assert!(state.notes_request(&options(), true).is_none(), "no notes");
        assert_eq!(state.originals.get_or_make(1, || "made"), "b");
        // A refused message changes nothing.
        let refused = state.append(&[json!(7)], vec!["c"], None, None, 0.0, &|| ());
        assert!(refused.is_err());
        assert_eq!(state.len(), 2);
        assert_eq!(state.originals.get_or_make(2, || "made"), "made");
    }

    #[test]
    fn a_fresh_id_is_16_hex_digits() {
        assert_eq!(fresh_id(0.0, 0.0), "0000000000000000");
        assert_eq!(fresh_id(0.5, 0.25), "8000000040000000");
        assert_eq!(fresh_id(0.999_999_999_9, 0.0).len(), 16);
    }

    #[test]
    fn an_empty_state_writes_nothing_and_does_nothing() {
        let mut state = HandleState::<&str>::new(None, &options());
        assert_eq!(
            (state.to_jsonl(), state.flush()),
            (String::new(), String::new())
        );
        assert_eq!(state.log_since(1 << 20), "");
        state.prune_expired(0.0);
        assert!(state.core.is_none());
        assert_eq!(state.prepare_action(false, true)["action"], "render");
        state.mark_stored(1, Some(1.0));
        state.restore_pending(1, true, true);
        state.notes_answered("summary".into(), 10);
        assert_eq!(state.version(), 0.0);
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
            .append(&chat(), vec!["a", "b"], Some(fresh()), None, 0.0, &|| ())
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
            .append(&chat(), vec!["a", "b"], Some(fresh), None, 0.0, &|| ())
            .unwrap();
        assert!(ids.iter().all(|id| id.contains("k1")), "{ids:?}");
        let call = crate::core::session::planning::Call {
            kind: crate::core::pipeline::Kind::Manual,
            force: true,
            instructions: None,
            summarizer: false,
        };
        let estimator = Estimator::new(Counter::Heuristic);
        let make = Make {
            original: &|_: &crate::core::message::Original| "made",
            exported: &|_: &Value| "exported",
        };
        let started = state.start(&options(), estimator, call, &make);
        let (mut input, mut pending, values) = started.unwrap().unwrap();
        assert_eq!(values, ["a", "b"], "planned over the caller's objects");
        let done = Compacted {
            tokens_before: 0,
            round: 1,
            split_turn: false,
            removed: vec![0],
            summary: Some("read src/lib.rs".into()),
            digest: Value::Null,
            rendered: Vec::new(),
            tokens_after: 10,
            state: None,
            warnings: Vec::new(),
        };
        let result = state.commit(&mut pending, &mut input, &done, 0.0);
        let result = result.unwrap();
        assert!(result["entryId"].is_string(), "{result}");
        assert_eq!(state.len(), 3);
        assert_eq!(
            state.originals.get_or_make(2, || "made"),
            "made",
            "the compaction's"
        );
        assert_eq!(state.originals.get_or_make(1, || "made"), "b");
    }
}
