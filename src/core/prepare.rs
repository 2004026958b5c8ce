//! Deciding and planning together: whether the trigger fires, and a plan whose result it will not
//! fire on again — neither by tokens (the plan's limit) nor by turn or message counts.

use crate::core::error::{Error, ErrorCode, Result};
use crate::core::message::{Message, Part};
use crate::core::plan::{self, Disposition, Plan, PlanInput, PlanOptions, Strategy};
use crate::core::settings::Settings;
use crate::core::trigger::{Decision, Trigger, TriggerInput};

/// The decision and the plan for one history.
#[derive(Clone, Debug, PartialEq)]
pub struct Prepared {
    /// Whether to compact, the token threshold and why.
    pub decision: Decision,
    /// What a compaction would do (computed whether or not the trigger fires).
    pub plan: Plan,
}

/// The history as the planner needs it.
pub struct History<'a> {
    /// The messages, oldest first.
    pub messages: &'a [Message],
    /// Tokens of each message.
    pub tokens: &'a [usize],
    /// Tokens of the whole context (the sum, or a calibrated total from provider usage).
    pub total: usize,
    /// Tokens of one part.
    pub part_cost: &'a dyn Fn(&Part) -> usize,
}

/// Evaluates the trigger (`forced` after a provider's context-limit error) and plans a compaction
/// that brings the context under every threshold of the trigger.
pub fn prepare(settings: &Settings, history: &History<'_>, forced: bool) -> Result<Prepared> {
    prepare_floored(settings, history, 0, forced)
}

/// [`prepare`] for a session's snapshot whose first `floor` messages (its previous summary and the
/// messages its previous compaction kept, [`crate::core::session::Snapshot::floor`]) the kept tail
/// may not reach back to, when the settings say so ([`Settings::keep_after_compaction`]).
pub fn prepare_floored(
    settings: &Settings,
    history: &History<'_>,
    floor: usize,
    forced: bool,
) -> Result<Prepared> {
    let input = TriggerInput {
        forced,
        ..TriggerInput::new(history.messages, history.total, settings.budget)
    };
    let decision = settings.trigger.evaluate(&input);
    let options = PlanOptions {
        limit: Some(settings.token_limit()),
        floor: if settings.keep_after_compaction {
            floor
        } else {
            0
        },
        ..settings.plan.clone()
    };
    let plan_with = |o: &PlanOptions| {
        plan::plan(
            &PlanInput {
                messages: history.messages,
                tokens: history.tokens,
                part_cost: history.part_cost,
            },
            o,
        )
    };
    let mut best = plan_with(&options)?;
    if fires_after(settings, history.messages, &best) {
        // Count triggers: cap the kept tail by turns or messages as well, keeping the plan that
        // keeps least among those that satisfy the trigger.
        let mut caps = Vec::new();
        count_caps(&settings.trigger, &mut caps);
        let extra = usize::from(settings.summary.question.is_some()) + 1;
        for cap in caps {
            let strategy = match cap {
                Cap::Turns(n) => Strategy::LastTurns { keep: n },
                Cap::Messages(n) => Strategy::LastMessages {
                    keep: n.saturating_sub(extra),
                },
            };
            let capped = plan_with(&PlanOptions {
                strategy,
                ..options.clone()
            })?;
            if first_kept(&capped) > first_kept(&best) {
                best = capped;
            }
        }
        if fires_after(settings, history.messages, &best) {
            let nothing = plan_with(&PlanOptions {
                strategy: Strategy::TokenBudget { max: 0 },
                ..options.clone()
            })?;
            if fires_after(settings, history.messages, &nothing) {
                return Err(Error::new(
                    ErrorCode::CannotCompact,
                    "the trigger would fire again even with only system messages, pinned messages and the summary kept: raise its turn or message count",
                ));
            }
            best = nothing;
        }
    }
    Ok(Prepared {
        decision,
        plan: best,
    })
}

enum Cap {
    Turns(usize),
    Messages(usize),
}

fn count_caps(trigger: &Trigger, caps: &mut Vec<Cap>) {
    match trigger {
        Trigger::Turns(n) => caps.push(Cap::Turns(*n)),
        Trigger::Messages(n) => caps.push(Cap::Messages(*n)),
        Trigger::AnyOf(list) | Trigger::AllOf(list) => {
            list.iter().for_each(|t| count_caps(t, caps))
        }
        _ => {}
    }
}

fn first_kept(plan: &Plan) -> usize {
    plan.dispositions
        .iter()
        .position(|d| *d == Disposition::Keep)
        .unwrap_or(plan.dispositions.len())
}

/// Whether the trigger fires on the context the plan produces (a plan that changes nothing leaves
/// the history as it is, which may itself fire).
fn fires_after(settings: &Settings, messages: &[Message], plan: &Plan) -> bool {
    let kept = |d: &Disposition| matches!(d, Disposition::Keep | Disposition::Pinned);
    let pairs = || {
        plan.dispositions
            .iter()
            .zip(messages)
            .filter(|(d, _)| kept(d))
    };
    let summaries = usize::from(
        plan.dispositions
            .iter()
            .any(|d| matches!(d, Disposition::Summarize | Disposition::TurnPrefix)),
    );
    let extra = summaries * (1 + usize::from(settings.summary.question.is_some()));
    let output = TriggerInput {
        tokens: plan.tokens_after,
        turns: pairs().filter(|(_, m)| m.is_user_turn_start()).count(),
        messages: pairs()
            .filter(|(_, m)| m.role != crate::core::message::Role::System)
            .count()
            + extra,
        budget: settings.budget,
        forced: false,
    };
    settings.trigger.fires(&output)
}
