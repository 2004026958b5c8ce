//! One call of a `Compactor` as the core plans it: the stored messages of the call copied out of
//! the store ([`Call`]), continued from the last automatic compaction when the call starts with
//! exactly the messages it replaced, and every step a call takes on them: `plan()`'s report with
//! its cost, `prune()`'s outcome per message and its output, `trim()`, the pipeline's input of a
//! compaction (its round) and its commit (the digest's `hidden` list, and the memo a committed
//! `maybeCompact` leaves for the next call). The binding resolves the caller's objects to store
//! ids and hands the results to JS; nothing here reads JS.

use serde_json::Value;

use super::{CompactorState, PrunedMessage};
use crate::core::driver::next_round;
use crate::core::error::{Error, Result};
use crate::core::estimate::{Estimate, Estimator, Usage};
use crate::core::format::Format;
use crate::core::message::{Message, Part};
use crate::core::options::{trim::parse_trim, Options};
use crate::core::pipeline::{Compacted, Input, Kind};
use crate::core::plan::Plan;
use crate::core::prepare::Prepared;
use crate::core::prune::{apply_one, PruneKind};
use crate::core::render::{Origin, Rendered};
use crate::core::report::{forecast_json, plan_json, unchanged_continued};
use crate::core::trim::{trim, TrimOptions, Trimmed};

/// One call's messages, copied out of the store for planning.
pub struct Call {
    /// The caller's message format.
    pub format: Format,
    /// Store ids of the caller's messages.
    pub ids: Vec<u32>,
    /// The history to plan: the caller's messages, or the memo's head followed by the caller's
    /// messages after the ones it replaced ([`Call::continued`]). A compaction takes them.
    pub messages: Vec<Message>,
    /// The estimate of `messages`.
    pub estimate: Estimate,
    /// Set when the history continues the last automatic compaction.
    pub continued: Option<Continued>,
    /// Counts the call's texts (the options' tokenizer).
    pub estimator: Estimator,
}

/// How a continued history maps to the caller's messages.
pub struct Continued {
    /// The caller's messages that the head stands for.
    pub prefix_len: usize,
    /// Messages of the head at the start of the history.
    pub head_len: usize,
    /// The caller's messages (to remember the next prefix).
    pub caller: Vec<Message>,
}

impl Call {
    /// `Compactor.trim` on the call: `trimMessages` with the Compactor's counts.
    pub fn trim(&self, options: &TrimOptions) -> Result<Trimmed> {
        let cost = |p: &Part| self.estimator.part_tokens(p);
        trim(&self.messages, &self.estimate.per_message, &cost, options)
    }

    /// The result of the call when its compaction changed nothing (`tokens`, `warning`), as
    /// [`unchanged_continued`] says it for a call that continued the last compaction or not.
    pub fn unchanged(&self, tokens: usize, warning: &str) -> Value {
        unchanged_continued(tokens, warning, self.continued.is_some())
    }
}

/// `Compactor.trim`'s options (`trimMessages`'): the tokenizer and the format are the Compactor's,
/// so giving either is `INVALID_OPTIONS`.
pub fn trim_options(value: &Value) -> Result<TrimOptions> {
    for key in ["tokenizer", "format"] {
        if value.get(key).is_some() {
            return Err(Error::invalid_option(
                key,
                format!("Compactor.trim counts with the compactor's {key}: set it on the Compactor, or call trimMessages"),
            ));
        }
    }
    Ok(parse_trim(value)?.0)
}

/// What `Compactor.prune` returns for one message ([`CompactorState::prune_call`]).
pub enum Pruned<V> {
    /// Not pruned: the caller's own object.
    Same,
    /// Pruned as in the previous call: the values of that pruned form, again.
    Again(Vec<V>),
    /// Pruned anew: the pruned message and its replacements (for
    /// [`CompactorState::keep_pruned`]).
    New(Message, Vec<(usize, PruneKind)>),
}

impl<V> Pruned<V> {
    /// A message pruned anew, as the compacted context shows the caller's message `i` changed
    /// (to export in the caller's format, keeping its binary values); `None` for the others.
    pub fn rendered(&self, i: usize) -> Option<Rendered> {
        match self {
            Pruned::New(message, _) => Some(Rendered {
                message: message.clone(),
                origin: Origin::Changed(i),
            }),
            _ => None,
        }
    }
}

impl<V> CompactorState<V> {
    /// The stored messages `ids` (in `format`) copied out for planning, but for those the last
    /// [`CompactorState::restore_call`] gave back, which are moved. `continuing` (an automatic
    /// call): the history continues the last automatic compaction when the call starts with
    /// exactly the messages it replaced and holds something after them.
    pub fn take_call(
        &mut self,
        (format, ids): (Format, Vec<u32>),
        estimator: Estimator,
        continuing: bool,
    ) -> Call {
        let n = continuing
            .then(|| self.continuation(format, &ids))
            .flatten();
        let mut messages = self.store.take_messages(&ids);
        self.recognizer.mark_leading(&mut messages);
        let kinds = self.store.kinds(&ids);
        match (n, &self.memo) {
            (Some(n), Some(memo)) => {
                let (history, kinds) = memo.continue_with(n, &messages, &kinds);
                Call {
                    format,
                    ids,
                    messages: history,
                    estimate: Estimate::from_kinds(kinds),
                    continued: Some(Continued {
                        prefix_len: n,
                        head_len: memo.head.len(),
                        caller: messages,
                    }),
                    estimator,
                }
            }
            _ => Call {
                format,
                ids,
                messages,
                estimate: Estimate::from_kinds(kinds),
                continued: None,
                estimator,
            },
        }
    }

    /// `Compactor.trim` on `call` ([`Call::trim`]): the kept messages, rendered (the caller's
    /// index of each, and the kept parts of one kept in part). The call is then over: its
    /// messages go back to the store ([`CompactorState::restore_call`]).
    pub fn trim_call(&mut self, call: Call, options: &TrimOptions) -> Result<Vec<Rendered>> {
        let rendered = call.trim(options)?.rendered(&call.messages);
        self.restore_call(call);
        Ok(rendered)
    }

    /// Gives the messages of a call that only read them back to the store, so that the next call
    /// over the same (or a longer) history does not copy them again.
    pub fn restore_call(&mut self, call: Call) {
        if call.continued.is_none() {
            self.store.restore(call.ids, call.messages);
        }
    }

    /// Decides and plans a compaction of `call` ([`CompactorState::prepare`]), `usage` anchored,
    /// the cut floored past what the last compaction returned ([`CompactorState::floor`]).
    pub fn plan_call(
        &self,
        options: &Options,
        call: &Call,
        usage: Option<&Usage>,
        forced: bool,
    ) -> Result<Prepared> {
        let floor = self.floor(&call.ids, call.continued.as_ref().map(|c| c.prefix_len));
        let (kinds, estimator) = (&call.estimate.per_message_kinds, &call.estimator);
        self.prepare(
            options,
            &call.messages,
            kinds,
            usage,
            estimator,
            floor,
            forced,
        )
    }

    /// `plan()`'s result for `call`: the plan ([`plan_json`]) with its `cost` ([`forecast_json`]).
    /// The call is over: its messages go back to the store ([`CompactorState::restore_call`]).
    pub fn plan_report(
        &mut self,
        options: &Options,
        call: Call,
        usage: Option<&Usage>,
    ) -> Result<Value> {
        let report = self.plan_cost(options, &call, usage);
        self.restore_call(call);
        report
    }

    /// [`CompactorState::plan_report`] on a call that stays out of the store.
    fn plan_cost(&self, options: &Options, call: &Call, usage: Option<&Usage>) -> Result<Value> {
        let prepared = self.plan_call(options, call, usage, false)?;
        let plan = &prepared.plan;
        let mut report = plan_json(plan, &prepared);
        let count = |t: &str| call.estimator.counter.count(t);
        let round = self.round_of(&call.messages, plan);
        let tokens = &call.estimate.per_message;
        let cost = forecast_json(
            &options.settings,
            &call.messages,
            tokens,
            plan,
            round,
            &count,
        );
        if let Some(fields) = report.as_object_mut() {
            fields.insert("cost".into(), cost);
        }
        Ok(report)
    }

    /// The round of a compaction of `messages` by `plan`: one past its previous summary's, else
    /// one past the compactions made here.
    pub fn round_of(&self, messages: &[Message], plan: &Plan) -> u32 {
        let previous = plan.previous_summary.map(|i| {
            messages
                .get(i)
                .and_then(|m| self.recognizer.round(&m.plain_text()))
        });
        next_round(previous, self.pipeline.compactions())
    }

    /// Plans a compaction of `call` ([`CompactorState::plan_call`], `forced` after a provider's
    /// context-limit error) and makes the pipeline's input of it: the call's messages move into
    /// it. `summarizer`: the caller gave a summarize function.
    #[allow(clippy::too_many_arguments)]
    pub fn job_input(
        &self,
        options: &Options,
        call: &mut Call,
        kind: Kind,
        forced: bool,
        instructions: Option<String>,
        summarizer: bool,
    ) -> Result<Input> {
        let prepared = self.plan_call(options, call, None, forced)?;
        Ok(Input {
            kind,
            should_compact: prepared.decision.should_compact,
            tokens_before: call.estimate.total,
            round: self.round_of(&call.messages, &prepared.plan),
            messages: std::mem::take(&mut call.messages),
            plan: prepared.plan,
            options: options.clone(),
            estimator: call.estimator.clone(),
            instructions,
            state: None,
            summarizer,
            continues: kind.continues(),
            warn_repeat: true,
        })
    }

    /// Commits a compaction of `call` (`input`, started by `kind`) that rendered `rendered`: its
    /// `digest` with the parts of the summarized messages a prune hid ([`super::hidden`]), and
    /// for an automatic one the memo ([`CompactorState::remember_call`]; `head_value`, `now`).
    pub fn commit_call(
        &mut self,
        (call, input, kind): (&Call, &Input, Kind),
        rendered: &[Rendered],
        digest: Value,
        head_value: impl Fn(usize) -> V,
        now: Option<i64>,
    ) -> Value {
        let digest = self.hidden_digest(call, &input.messages, &input.plan, digest);
        if kind.is_automatic() {
            let record = (now, digest.clone());
            let (messages, plan) = (&input.messages, &input.plan);
            self.remember_call(call, messages, plan, rendered, head_value, record);
        }
        digest
    }

    /// [`CompactorState::commit_call`] on `done`, the compaction of `call` ready to commit: its
    /// digest becomes the committed one.
    pub fn commit_compacted(
        &mut self,
        call: (&Call, &Input, Kind),
        done: &mut Compacted,
        head_value: impl Fn(usize) -> V,
        now: Option<i64>,
    ) {
        let digest = std::mem::take(&mut done.digest);
        done.digest = self.commit_call(call, &done.rendered, digest, head_value, now);
    }

    /// `digest` with the parts of the messages `plan` summarizes that a prune hid
    /// ([`super::hidden`]); `history`: the planned messages of `call`.
    pub fn hidden_digest(
        &self,
        call: &Call,
        history: &[Message],
        plan: &Plan,
        digest: Value,
    ) -> Value {
        let caller = |i: usize| {
            let index = match &call.continued {
                None => i,
                Some(c) => i.checked_sub(c.head_len)? + c.prefix_len,
            };
            Some((*call.ids.get(index)?, index))
        };
        super::hidden::with_hidden(digest, &self.store, history, plan, caller)
    }

    /// Remembers a successful automatic compaction of `call` (whose messages the compaction took:
    /// `messages`, planned by `plan`) that rendered `rendered`: what replaced the messages before
    /// the kept tail (Codex's kept user messages before it included) becomes the memo's head,
    /// `head_value(i)` the binding's value of rendered message `i`. The record carries `now` (ms
    /// since the epoch) and `digest`.
    pub fn remember_call(
        &mut self,
        call: &Call,
        messages: &[Message],
        plan: &Plan,
        rendered: &[Rendered],
        head_value: impl Fn(usize) -> V,
        (now, digest): (Option<i64>, Value),
    ) {
        let first_kept = plan.tail_start();
        let kept = |i: usize| i >= first_kept;
        let head_len = rendered
            .iter()
            .take_while(|r| !matches!(r.origin, Origin::Input(i) | Origin::Changed(i) if kept(i)))
            .count();
        let head = rendered.iter().take(head_len).map(|r| r.message.clone());
        let head = (head.collect(), (0..head_len).map(head_value).collect());
        let caller = call.continued.as_ref().map_or(messages, |c| &c.caller);
        let continued = call.continued.as_ref().map(|c| (c.prefix_len, c.head_len));
        self.remember(
            call.format,
            caller,
            &call.ids,
            continued,
            first_kept,
            head,
            (now, digest),
            &call.estimator,
        );
    }

    /// `Compactor.prune` on `call` at `now` ([`CompactorState::prune`]): what comes back for each
    /// of its messages.
    pub fn prune_call(&mut self, options: &Options, call: &mut Call, now: i64) -> Vec<Pruned<V>>
    where
        V: Clone,
    {
        let (ids, estimator) = (&call.ids, &call.estimator);
        let (actions, pruned) = self.prune(options, &mut call.messages, ids, estimator, now);
        let messages = &call.messages;
        let one = |(i, (done, reused)): (usize, PrunedMessage<V>)| match reused {
            _ if done.is_empty() => Pruned::Same,
            Some(values) => Pruned::Again(values),
            None => messages.get(i).map_or(Pruned::Same, |m| {
                Pruned::New(apply_one(m, i, &actions), done)
            }),
        };
        pruned.into_iter().enumerate().map(one).collect()
    }

    /// `Compactor.prune`'s output from `pruned` ([`CompactorState::prune_call`]'s, in order):
    /// each message's values in order, `original(i)` for message `i` when it was not pruned and
    /// the next of `made` (the binding's values of each [`Pruned::New`] form, in order) for a new
    /// pruned form, kept for the next prune ([`CompactorState::keep_pruned`]). With it, where
    /// each new pruned form of one value lands and the parts that replaced hidden ones (for
    /// [`CompactorState::mark_hidden`]).
    pub fn prune_output(
        &mut self,
        ids: &[u32],
        pruned: Vec<Pruned<V>>,
        made: Vec<Vec<V>>,
        original: impl Fn(usize) -> V,
    ) -> (Vec<V>, Vec<(u32, Vec<usize>)>)
    where
        V: Clone,
    {
        let (mut out, mut forms, mut made) = (Vec::new(), Vec::new(), made.into_iter());
        for (i, p) in pruned.into_iter().enumerate() {
            match p {
                Pruned::Same => out.push(original(i)),
                Pruned::Again(values) => out.extend(values),
                Pruned::New(_, done) => {
                    let values = made.next().unwrap_or_default();
                    if values.len() == 1 {
                        let at = u32::try_from(out.len()).unwrap_or(u32::MAX);
                        forms.push((at, done.iter().map(|(part, _)| *part).collect()));
                    }
                    out.extend(values.iter().cloned());
                    self.keep_pruned(ids.get(i).copied().unwrap_or(0), done, values);
                }
            }
        }
        (out, forms)
    }

    /// [`CompactorState::prune_output`] for `call`, whose messages then go back to the store
    /// ([`CompactorState::restore_call`]): the call is over.
    pub fn finish_prune(
        &mut self,
        call: Call,
        pruned: Vec<Pruned<V>>,
        made: Vec<Vec<V>>,
        original: impl Fn(usize) -> V,
    ) -> (Vec<V>, Vec<(u32, Vec<usize>)>)
    where
        V: Clone,
    {
        let output = self.prune_output(&call.ids, pruned, made, original);
        self.restore_call(call);
        output
    }

    /// Marks, for each pruned form a prune returned (`forms`: its index among the stored messages
    /// `ids` and the parts that replaced hidden ones), which parts a compaction's digest lists as
    /// `hidden` ([`super::hidden`]).
    pub fn mark_hidden(&mut self, ids: &[u32], forms: &[(u32, Vec<usize>)]) {
        for (at, parts) in forms {
            let id = ids.get(*at as usize).copied().unwrap_or(0);
            if let Some(e) = self.store.get_mut(id) {
                e.hidden.clone_from(parts);
            }
        }
    }
}
