//! The compacted context a plan and a summary make: system messages, the summary block, pinned
//! messages, the kept tail (with pruning and truncation applied), and an optional continue message.

use crate::core::message::{Message, Role};
use crate::core::plan::truncate::truncate_part;
use crate::core::plan::{Disposition, Plan};
use crate::core::prune;
use crate::core::settings::SummaryStyle;
use crate::core::summary::wrap;

/// Where an output message comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The caller's message at this index, unchanged: hand back the caller's own object.
    Input(usize),
    /// The caller's message at this index with pruned or truncated parts.
    Changed(usize),
    /// Made by the package (the summary, its question, the continue message).
    New,
}

/// One message of the compacted context.
#[derive(Clone, Debug, PartialEq)]
pub struct Rendered {
    /// The message.
    pub message: Message,
    /// Where it comes from.
    pub origin: Origin,
}

/// The summary block for `summary` in round `round`: an optional question (a user message) and the
/// summary message itself ([`wrap`]ped in the style's prefix and suffix), both marked as summaries.
pub fn summary_block(summary: &str, style: &SummaryStyle, round: u32) -> Vec<Message> {
    let mut block = Vec::new();
    if let Some(question) = &style.question {
        let mut q = Message::text(Role::User, question.clone());
        q.summary = true;
        block.push(q);
    }
    let mut m = Message::text(style.role, wrap(style, summary, round));
    m.summary = true;
    block.push(m);
    block
}

/// Renders the compacted context. `summary` is `None` when the plan summarizes nothing (for
/// example when it only drops). `automatic` adds the style's continue message, when it has one and
/// the context does not already end with a user message.
pub fn render(
    messages: &[Message],
    plan: &Plan,
    summary: Option<&str>,
    style: &SummaryStyle,
    round: u32,
    automatic: bool,
) -> Vec<Rendered> {
    let pruned = prune::apply(messages, &plan.pruned);
    let changed: Vec<bool> = (0..messages.len())
        .map(|i| {
            plan.pruned.iter().any(|a| a.message == i)
                || plan.truncations.iter().any(|t| t.message == i)
        })
        .collect();
    let take = |i: usize| -> Option<Rendered> {
        let mut message = pruned.get(i)?.clone();
        for t in plan.truncations.iter().filter(|t| t.message == i) {
            if let Some(part) = message.parts.get_mut(t.part) {
                *part = truncate_part(part, t);
            }
        }
        let origin = if changed.get(i).copied().unwrap_or(false) {
            Origin::Changed(i)
        } else {
            Origin::Input(i)
        };
        Some(Rendered { message, origin })
    };
    let of = |d: Disposition| {
        plan.dispositions
            .iter()
            .enumerate()
            .filter(move |(_, x)| **x == d)
            .map(|(i, _)| i)
    };
    let mut out: Vec<Rendered> = of(Disposition::System).filter_map(take).collect();
    if let Some(text) = summary {
        out.extend(
            summary_block(text, style, round)
                .into_iter()
                .map(|message| Rendered {
                    message,
                    origin: Origin::New,
                }),
        );
    }
    out.extend(of(Disposition::Pinned).filter_map(take));
    out.extend(of(Disposition::Keep).filter_map(take));
    if let (true, Some(text)) = (automatic, &style.continue_message) {
        if out.last().is_none_or(|r| r.message.role != Role::User) {
            out.push(Rendered {
                message: Message::text(Role::User, text.clone()),
                origin: Origin::New,
            });
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::core::cut::{Direction, TurnBoundary};
    use crate::core::message::Part;
    use crate::core::plan::{plan, PlanInput, PlanOptions, Strategy};

    fn style() -> SummaryStyle {
        SummaryStyle {
            role: Role::User,
            prefix: "Summary: ".into(),
            suffix: String::new(),
            later_rounds_note: None,
            question: Some("What did we do?".into()),
            continue_message: Some("Continue".into()),
            turn_context: crate::core::summary::prompt::default_turn_context(),
        }
    }

    #[test]
    fn renders_system_summary_pinned_and_kept_in_order() {
        let mut m = vec![
            Message::text(Role::System, "rules"),
            Message::text(Role::User, "task"),
            Message::text(Role::Assistant, "a"),
            Message::text(Role::User, "next"),
            Message::text(Role::Assistant, "b"),
        ];
        m[1].pinned = true;
        let tokens = vec![1; 5];
        let cost = |_: &Part| 1;
        let options = PlanOptions {
            strategy: Strategy::LastTurns { keep: 1 },
            boundary: TurnBoundary::Snap,
            direction: Direction::Forward,
            summarize: true,
            summary_tokens: 10,
            prefix_summary_tokens: 5,
            limit: None,
            keep_small_prefix: true,
            floor: 0,
            prune: None,
        };
        let p = plan(
            &PlanInput {
                messages: &m,
                tokens: &tokens,
                part_cost: &cost,
            },
            &options,
        )
        .unwrap();
        let out = render(&m, &p, Some("did a"), &style(), 1, true);
        let origins: Vec<Origin> = out.iter().map(|r| r.origin).collect();
        assert_eq!(
            origins,
            vec![
                Origin::Input(0),
                Origin::New,
                Origin::New,
                Origin::Input(1),
                Origin::Input(3),
                Origin::Input(4),
                Origin::New
            ]
        );
        assert_eq!(out[2].message.plain_text(), "Summary: did a");
        assert!(out[1].message.summary && out[2].message.summary);
        assert_eq!(out[6].message.plain_text(), "Continue");
        // Not automatic: no continue message.
        assert_eq!(render(&m, &p, Some("did a"), &style(), 1, false).len(), 6);
    }
}
