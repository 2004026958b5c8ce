//! A compaction of a session, planned and handed to the pipeline: the core's `prepare` over the
//! session's [`Snapshot`] with the session's budget (the margin of `safetyMargin: "auto"`
//! included), the round it would write, and the pipeline's [`Input`] for it. `Session.plan()`
//! previews the same plan that `compact()` and `prepare()` run. Also seed 003's expiry prune as
//! the session runs it before a render, at the caller's clock.

use super::{Session, Snapshot};
use crate::core::error::Result;
use crate::core::estimate::Estimator;
use crate::core::message::Part;
use crate::core::options::Options;
use crate::core::pipeline::{Input, Kind};
use crate::core::prepare::{prepare_floored, History, Prepared};
use crate::core::prune::{Style, TtlOptions};
use crate::core::settings::Settings;
use crate::core::summary::Recognizer;

/// A compaction of a session as it would run now.
pub struct Planned {
    /// The live context it was planned from (`None` for an empty session: nothing to compact).
    pub snapshot: Option<Snapshot>,
    /// The settings it was planned with: the options', with the session's budget.
    pub settings: Settings,
    /// The trigger's decision and the plan.
    pub prepared: Prepared,
    /// The round of the summary it would write (1 for an empty session).
    pub round: u32,
}

impl Planned {
    /// The snapshot's messages and their (calibrated) counts; empty without a snapshot.
    pub fn history(&self) -> (&[crate::core::message::Message], &[usize]) {
        self.snapshot
            .as_ref()
            .map_or((&[], &[]), |s| (&s.messages[..], &s.tokens[..]))
    }
}

/// Plans a compaction of `session` (`None`: empty) with `options`; `force` plans it below the
/// trigger too, as `compact({ force })` does.
pub fn plan(
    session: Option<&Session>,
    options: &Options,
    estimator: &Estimator,
    force: bool,
) -> Result<Planned> {
    let snapshot = session.map(Session::snapshot);
    let mut settings = options.settings.clone();
    if let Some(s) = session {
        settings.budget = s.budget();
    }
    let cost = |p: &Part| estimator.part_tokens(p);
    let (messages, tokens, total, floor) = match &snapshot {
        Some(s) => (&s.messages[..], &s.tokens[..], s.total, s.floor),
        None => (&[][..], &[][..], 0, 0),
    };
    let history = History {
        messages,
        tokens,
        total,
        part_cost: &cost,
    };
    let prepared = prepare_floored(&settings, &history, floor, force)?;
    let recognizer = Recognizer::with(&options.settings.summary);
    let round = snapshot
        .as_ref()
        .map_or(1, |s| s.round(&prepared.plan, &recognizer));
    Ok(Planned {
        snapshot,
        settings,
        prepared,
        round,
    })
}

/// How a compaction is asked for: its kind, `force`, the caller's `instructions`, and whether
/// the caller gave a summarizer.
pub struct Call {
    pub kind: Kind,
    pub force: bool,
    pub instructions: Option<String>,
    pub summarizer: bool,
}

/// The job of the compaction `call` asks for now: [`plan`] of `session`, then
/// [`Planned::into_job`] (`None` for an empty session).
pub fn job(
    session: Option<&Session>,
    options: &Options,
    estimator: Estimator,
    call: Call,
) -> Result<Option<(Snapshot, Input)>> {
    let planned = plan(session, options, &estimator, call.force)?;
    let Call {
        kind,
        force,
        instructions,
        summarizer,
    } = call;
    Ok(planned.into_job(kind, force, options, estimator, instructions, summarizer))
}

impl Planned {
    /// `Session.plan()`'s result: the plan's fields ([`crate::core::report::plan_json`]) and its
    /// `cost` (`null` when there is nothing to summarize), counted by `estimator`.
    pub fn result(&self, estimator: &Estimator) -> serde_json::Value {
        let (plan, (messages, tokens)) = (&self.prepared.plan, self.history());
        let mut dto = crate::core::report::plan_json(plan, &self.prepared);
        let count = |t: &str| estimator.counter.count(t);
        let forecast = match messages.is_empty() {
            true => serde_json::Value::Null,
            false => crate::core::report::forecast_json(
                &self.settings,
                messages,
                tokens,
                plan,
                self.round,
                &count,
            ),
        };
        if let serde_json::Value::Object(obj) = &mut dto {
            obj.insert("cost".into(), forecast);
        }
        dto
    }

    /// The pipeline's input for a compaction of `kind` and the snapshot to commit it against
    /// (its messages are moved into the input, not copied: the commit gives them back).
    /// `None` for an empty session.
    pub fn into_job(
        self,
        kind: Kind,
        force: bool,
        options: &Options,
        estimator: Estimator,
        instructions: Option<String>,
        summarizer: bool,
    ) -> Option<(Snapshot, Input)> {
        let mut snapshot = self.snapshot?;
        let state = snapshot.previous.as_ref().and_then(|c| c.state.clone());
        let input = Input {
            kind,
            should_compact: self.prepared.decision.should_compact || force,
            tokens_before: snapshot.total,
            messages: std::mem::take(&mut snapshot.messages),
            plan: self.prepared.plan,
            options: options.clone(),
            estimator,
            round: self.round,
            instructions,
            state,
            summarizer,
            // The continue message, when the style has one, is appended to the log after the
            // commit (`formats::session_append::commit`).
            continues: false,
            warn_repeat: false,
        };
        Some((snapshot, input))
    }
}

impl Session {
    /// Seed 003's first render step, when the session's prune style is the cache lifetime's:
    /// hides tool results older than it at `now` (milliseconds since the Unix epoch). Returns the
    /// prune entry's id when it hid anything.
    pub fn prune_expired(&mut self, now: i64) -> Option<String> {
        let prune = self.config().settings.plan.prune.as_ref()?;
        let Style::Ttl(ttl) = &prune.style else {
            return None;
        };
        let ttl = TtlOptions { now, ..ttl.clone() };
        self.prune_ttl(&ttl)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::core::estimate::Counter;
    use crate::core::message::{Message, Role};
    use crate::core::session::Config;

    fn options() -> Options {
        crate::core::options::parse(&serde_json::json!({"contextWindow": 100_000})).unwrap()
    }

    fn session(options: &Options, n: usize) -> Session {
        let config = Config::heuristic(options.settings.clone());
        let mut s = Session::new(config, "s".into(), "ai-sdk".into());
        let messages = (0..n)
            .map(|i| {
                let role = if i % 2 == 0 {
                    Role::User
                } else {
                    Role::Assistant
                };
                Message::text(role, "word ".repeat(400))
            })
            .collect();
        s.append(messages);
        s
    }

    #[test]
    fn an_empty_session_plans_nothing_and_has_no_job() {
        let options = options();
        let estimator = Estimator::new(Counter::Heuristic);
        let planned = plan(None, &options, &estimator, false).unwrap();
        assert_eq!(planned.round, 1);
        assert!(planned.history().0.is_empty());
        assert!(!planned.prepared.decision.should_compact);
        let job = planned.into_job(Kind::Manual, true, &options, estimator, None, false);
        assert!(job.is_none());
    }

    #[test]
    fn a_job_is_planned_with_the_call() {
        let options = options();
        let s = session(&options, 6);
        let call = |force| Call {
            kind: Kind::Forced,
            force,
            instructions: Some("focus".into()),
            summarizer: true,
        };
        let estimator = || Estimator::new(Counter::Heuristic);
        let (_, input) = job(Some(&s), &options, estimator(), call(true))
            .unwrap()
            .unwrap();
        assert!(input.should_compact && input.summarizer);
        assert_eq!(input.instructions.as_deref(), Some("focus"));
        let (_, input) = job(Some(&s), &options, estimator(), call(false))
            .unwrap()
            .unwrap();
        assert!(!input.should_compact, "below the trigger without force");
        assert!(job(None, &options, estimator(), call(true))
            .unwrap()
            .is_none());
    }

    #[test]
    fn the_plan_result_has_a_cost_only_when_there_is_a_history() {
        let options = options();
        let estimator = Estimator::new(Counter::Heuristic);
        let empty = plan(None, &options, &estimator, false).unwrap();
        let result = empty.result(&estimator);
        assert!(result["cost"].is_null());
        assert_eq!(result["shouldCompact"], false);
        let s = session(&options, 6);
        let planned = plan(Some(&s), &options, &estimator, false).unwrap();
        let result = planned.result(&estimator);
        assert!(result["cost"].is_object(), "{result}");
        assert_eq!(
            result["cost"]["mode"],
            options.settings.summary_mode.as_str()
        );
    }

    #[test]
    fn the_job_takes_the_snapshot_messages_and_forcing_compacts_below_the_trigger() {
        let options = options();
        let estimator = Estimator::new(Counter::Heuristic);
        let s = session(&options, 6);
        let planned = plan(Some(&s), &options, &estimator, true).unwrap();
        assert_eq!(planned.history().0.len(), 6);
        let total = s.tokens();
        let (snapshot, input) = planned
            .into_job(Kind::Forced, true, &options, estimator, None, true)
            .unwrap();
        assert!(snapshot.messages.is_empty(), "moved into the input");
        assert_eq!(input.messages.len(), 6);
        assert!(input.should_compact);
        assert_eq!(input.tokens_before, total);
        assert_eq!(input.round, 1);
        assert!(!input.continues);
    }
}
