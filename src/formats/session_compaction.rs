//! A session's compactions as the `Session` handle runs them, from start to commit: [`start`]
//! plans the compaction a call asks for (`core::session::planning`) and says which of the
//! caller's messages its snapshot holds; a [`Pending`] compaction commits its outcome with the
//! core's rule (`session_input::commit`) and gives the result; [`notes_request`] is the memory
//! block's single summarizer request when its notes are due. The binding only turns these into
//! JS values.

use serde_json::Value;

use super::session_context::{format_of, snapshot_slots, Slot};
use super::session_input::commit;
use super::Format;
use crate::core::error::{Error, Result};
use crate::core::estimate::Estimator;
use crate::core::options::Options;
use crate::core::pipeline::{Compacted, Input, Kind, Once};
use crate::core::session::planning::{self, Call};
use crate::core::session::{notes, results, Session, Snapshot};

/// A compaction a call started: the pipeline's input, the caller's messages it is planned over
/// (index-aligned with the input's messages) and what its commit needs.
pub struct Started {
    pub input: Input,
    pub slots: Vec<Slot>,
    pub pending: Pending,
}

/// A compaction waiting for its outcome: the snapshot it was planned from, the session's format
/// and its kind (a kind that continues appends the style's continue message after the commit).
pub struct Pending {
    snapshot: Snapshot,
    pub format: Format,
    pub kind: Kind,
}

/// The compaction `call` asks for now ([`planning::job`]); `None` when there is nothing to
/// compact (an empty session). The format is the session's (`ai-sdk` when not known yet).
pub fn start(
    session: Option<&Session>,
    options: &Options,
    estimator: Estimator,
    call: Call,
) -> Result<Option<Started>> {
    let kind = call.kind;
    let job = planning::job(session, options, estimator, call)?;
    let (Some((snapshot, input)), Some(session)) = (job, session) else {
        return Ok(None);
    };
    let format = format_of(Some(session), options.format).unwrap_or(Format::AiSdk);
    let slots = snapshot_slots(session, &snapshot, format);
    let pending = Pending {
        snapshot,
        format,
        kind,
    };
    Ok(Some(Started {
        input,
        slots,
        pending,
    }))
}

impl Pending {
    /// Commits the outcome `done` of the job run on `input` to `session` (`None`: emptied
    /// meanwhile, `INVALID_INPUT`) at `now`; returns the result without its messages
    /// ([`results::committed`]). The job's messages are taken back from `input` for the
    /// commit's checks.
    pub fn commit(
        &mut self,
        session: Option<&mut Session>,
        input: &mut Input,
        done: &Compacted,
        now: i64,
    ) -> Result<Value> {
        let session = session.ok_or_else(|| Error::invalid_input("session", "empty"))?;
        self.snapshot.messages = std::mem::take(&mut input.messages);
        let continues = self.kind.continues().then_some(self.format);
        let id = commit(session, &self.snapshot, &input.plan, done, now, continues)?;
        Ok(results::committed(done, &id))
    }
}

/// The memory block's request when its notes are due and a model writes the summary
/// (`summarizer`, unless the options are extractive): the request and the count of the oldest
/// notes it condenses. Without a model the notes are condensed here (`None`); an empty session
/// (`None`) has none.
pub fn notes_request(
    session: Option<&mut Session>,
    options: &Options,
    summarizer: bool,
) -> Option<(Once, usize)> {
    let session = session?;
    let max = options.settings.plan.summary_tokens;
    let by_model = !options.extractive && summarizer;
    let (prompt, count) = session.notes_request(max, by_model)?;
    Some((Once::new(options, notes::NOTES_SYSTEM, &prompt, max), count))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::core::estimate::Counter;
    use crate::core::message::{Message, Role};
    use crate::core::session::Config;
    use serde_json::json;

    fn options() -> Options {
        crate::core::options::parse(&json!({"contextWindow": 100_000})).unwrap()
    }

    fn session(options: &Options, n: usize) -> Session {
        let config = Config::heuristic(options.settings.clone());
        let mut s = Session::new(config, "s".into(), "openai".into());
        let messages = (0..n)
            .map(|i| {
                let role = [Role::User, Role::Assistant][i % 2];
                Message::text(role, "word ".repeat(400))
            })
            .collect();
        s.append(messages);
        s
    }

    fn call(kind: Kind) -> Call {
        Call {
            kind,
            force: true,
            instructions: None,
            summarizer: false,
        }
    }

    fn estimator() -> Estimator {
        Estimator::new(Counter::Heuristic)
    }

    #[test]
    fn an_empty_session_starts_nothing() {
        let started = start(None, &options(), estimator(), call(Kind::Manual)).unwrap();
        assert!(started.is_none());
    }

    #[test]
    fn a_start_names_the_logged_messages_in_the_session_format() {
        let options = options();
        let s = session(&options, 6);
        let started = start(Some(&s), &options, estimator(), call(Kind::Forced))
            .unwrap()
            .unwrap();
        assert_eq!(started.pending.format, Format::OpenAi);
        assert_eq!(started.pending.kind, Kind::Forced);
        assert_eq!(started.slots, (0..6).map(Slot::Entry).collect::<Vec<_>>());
        assert_eq!(started.input.messages.len(), 6);
    }

    #[test]
    fn a_commit_to_an_emptied_session_is_refused() {
        let options = options();
        let s = session(&options, 6);
        let mut started = start(Some(&s), &options, estimator(), call(Kind::Forced))
            .unwrap()
            .unwrap();
        let done = Compacted {
            tokens_before: 0,
            round: 1,
            split_turn: false,
            removed: vec![0, 1],
            summary: Some("done".into()),
            digest: Value::Null,
            rendered: Vec::new(),
            tokens_after: 10,
            state: None,
            warnings: Vec::new(),
        };
        let refused = started.pending.commit(None, &mut started.input, &done, 0);
        let error = refused.unwrap_err();
        assert_eq!(error.code, crate::core::error::ErrorCode::InvalidInput);
        assert_eq!(
            started.input.messages.len(),
            6,
            "the input is left as it was"
        );
    }

    #[test]
    fn the_notes_are_asked_of_the_model_only_with_a_summarizer() {
        let options = options();
        let mut s = session(&options, 2);
        for i in 0..15 {
            s.add_note(format!("note {i}"));
        }
        let mut condensed = s.clone();
        assert!(notes_request(Some(&mut condensed), &options, false).is_none());
        assert!(
            notes_request(Some(&mut condensed), &options, true).is_none(),
            "condensed"
        );
        let (_, count) = notes_request(Some(&mut s), &options, true).unwrap();
        assert_eq!(count, 10);
        assert!(notes_request(None, &options, true).is_none());
    }
}
