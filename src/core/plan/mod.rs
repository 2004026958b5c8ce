//! A compaction plan: a pure value saying what happens to every message, and the tokens after.
//!
//! [`plan`] places the cut with the strategy, then checks **convergence**: when a `limit` is given
//! (the most tokens the compacted context may hold, so the trigger does not fire again on the next
//! turn) and the plan would exceed it, it escalates in this order until the context fits:
//! 1. prune old tool outputs in the kept tail (when the caller supplies pruning actions),
//! 2. shrink the kept tail to the largest one that fits,
//! 3. allow a split turn (when the boundary was `Snap`),
//! 4. keep only the last cut candidate and truncate its oversized tool outputs with a marker,
//! 5. keep nothing but the system messages, pinned messages and the summary;
//!
//! and if even that exceeds the limit it returns `CANNOT_COMPACT` with the numbers.

pub mod strategy;
pub mod truncate;

use crate::core::cut::pairs::ToolPartners;
use crate::core::cut::{fit_back, select, Direction, Layout, TurnBoundary};
use crate::core::error::{Error, ErrorCode, Result};
use crate::core::message::{Message, Part};
use crate::core::prune::{self, PruneAction, Style};
use std::ops::Range;
pub use strategy::Strategy;
pub use truncate::Truncation;

/// What happens to one message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Disposition {
    /// A leading system message: kept first.
    System,
    /// Kept verbatim in the tail.
    Keep,
    /// Pinned (or the tool partner of a pinned message, or an earlier summary kept by a strategy
    /// that does not summarize): kept, placed right after the summary.
    Pinned,
    /// Replaced by the history summary.
    Summarize,
    /// The prefix of a split turn: summarized separately ("Turn Context (split turn)").
    TurnPrefix,
    /// Removed without a summary (strategies that make no model call).
    Drop,
}

/// A step taken to make the compacted context fit its limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Escalation {
    /// Tool outputs of kept messages were pruned, freeing `freed` tokens.
    Pruned { freed: usize },
    /// The kept tail was shrunk: it now starts at `to` instead of `from`.
    ShrankTail { from: usize, to: usize },
    /// A split turn was allowed although the boundary was `Snap`.
    SplitTurn,
    /// Oversized tool outputs in the kept tail were truncated, freeing `freed` tokens.
    Truncated { freed: usize },
    /// Only system messages, pinned messages and the summary remain.
    KeptNothing,
}

/// The knobs of a plan.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanOptions {
    /// What is kept.
    pub strategy: Strategy,
    /// Whether the kept tail may start inside a turn.
    pub boundary: TurnBoundary,
    /// Which way a raw cut moves to a candidate (for message-count strategies).
    pub direction: Direction,
    /// Summarize what is removed (`false`: drop it; seed 002's strategies without a model call).
    pub summarize: bool,
    /// Tokens the history summary may take.
    pub summary_tokens: usize,
    /// Tokens the split-turn prefix summary may take.
    pub prefix_summary_tokens: usize,
    /// A split turn whose prefix is no larger than `prefix_summary_tokens` is not split: the cut
    /// moves back to the turn's start (ours; `false` splits as pi and seed 003 do).
    pub keep_small_prefix: bool,
    /// The kept tail starts at this message or later (0: anywhere after the latest summary). A
    /// session sets it past the messages its previous compaction kept, for presets whose source
    /// never keeps them again (seed 000, pi): they are folded into the new summary.
    pub floor: usize,
    /// The most tokens the compacted context may hold; `None` skips the convergence check.
    pub limit: Option<usize>,
    /// Pruning tried first when the plan exceeds `limit`; `None` never prunes.
    pub prune: Option<PruneSettings>,
}

/// Pruning used as the first convergence step.
#[derive(Clone, Debug, PartialEq)]
pub struct PruneSettings {
    /// Prune superseded file reads first.
    pub supersede: bool,
    /// Then this style.
    pub style: Style,
}

/// The history and its token counts.
pub struct PlanInput<'a> {
    /// The messages, oldest first.
    pub messages: &'a [Message],
    /// Tokens of each message (same length).
    pub tokens: &'a [usize],
    /// Tokens of one part (used to price truncations).
    pub part_cost: &'a dyn Fn(&Part) -> usize,
}

/// What a compaction would do. Every input message has exactly one disposition, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// One per input message.
    pub dispositions: Vec<Disposition>,
    /// The latest earlier summary, folded into the new one.
    pub previous_summary: Option<usize>,
    /// The kept tail starts inside a turn (its start was removed).
    pub split_turn: bool,
    /// The split turn's prefix when it is summarized separately from older history (seed 003's
    /// "Turn Context (split turn)"); `None` when there is no older history, in which case the prefix
    /// is the history.
    pub turn_prefix: Option<Range<usize>>,
    /// Kept messages also shown to the summarizer for continuity (recursive strategy).
    pub overlap: Vec<usize>,
    /// Tool outputs (or inputs) of kept messages replaced by placeholders.
    pub pruned: Vec<PruneAction>,
    /// Oversized tool outputs truncated in the kept tail.
    pub truncations: Vec<Truncation>,
    /// Steps taken to fit the limit.
    pub escalations: Vec<Escalation>,
    /// Tokens of the input.
    pub tokens_before: usize,
    /// Estimated tokens of the compacted context (summaries counted at their budgets).
    pub tokens_after: usize,
}

impl Plan {
    /// Where the kept tail starts: the run of kept messages that reaches the end (the length when
    /// the last message is not kept). Kept messages before it (Codex's recent user messages from
    /// the summarized part) are not part of the tail: they are placed with the summary.
    pub fn tail_start(&self) -> usize {
        self.dispositions
            .iter()
            .rposition(|d| *d != Disposition::Keep)
            .map_or(0, |i| i + 1)
    }

    /// Indices with disposition `d`, ascending.
    pub fn indices(&self, d: Disposition) -> Vec<usize> {
        self.dispositions
            .iter()
            .enumerate()
            .filter(|(_, &x)| x == d)
            .map(|(i, _)| i)
            .collect()
    }

    /// True when the plan changes nothing: no message is removed other than an earlier summary
    /// that would only be re-summarized, and nothing is truncated. An earlier summary larger
    /// than the summary budget (the plan then counts fewer tokens after than before) is work: it
    /// is condensed (issue 23: a 20k-token summary at window 8,000 was "nothing to compact").
    pub fn is_noop(&self) -> bool {
        let removes_news = self.dispositions.iter().enumerate().any(|(i, d)| {
            matches!(
                d,
                Disposition::Summarize | Disposition::TurnPrefix | Disposition::Drop
            ) && Some(i) != self.previous_summary
        });
        let condenses = self
            .previous_summary
            .is_some_and(|i| self.dispositions.get(i) == Some(&Disposition::Summarize))
            && self.tokens_after < self.tokens_before;
        !removes_news && !condenses && self.truncations.is_empty() && self.pruned.is_empty()
    }
}

/// Plans a compaction of `input` with `options`. Pure: the same input always gives the same plan.
pub fn plan(input: &PlanInput<'_>, options: &PlanOptions) -> Result<Plan> {
    let messages = input.messages;
    if input.tokens.len() != messages.len() {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            format!(
                "{} token counts for {} messages",
                input.tokens.len(),
                messages.len()
            ),
        ));
    }
    let mut layout = Layout::new(messages);
    layout.raise_floor(options.floor);
    let tokens_before = input.tokens.iter().sum();
    let partners = ToolPartners::new(messages);
    let planner = Planner {
        input,
        options,
        layout: &layout,
        partners: &partners,
    };

    let first = match &options.strategy {
        Strategy::RecentUserMessages { max_tokens } => {
            let keep = strategy::recent_user_messages(messages, input.tokens, &layout, *max_tokens);
            planner.assign_mask(&keep)
        }
        other => {
            let reserved = strategy::reserved_for_summaries(
                messages,
                input.tokens,
                layout.tail_floor,
                options.summarize,
                options.summary_tokens,
            );
            let cut = strategy::initial_cut(
                other,
                messages,
                input.tokens,
                &layout,
                options.boundary,
                options.direction,
                reserved,
            )
            .unwrap_or(layout.tail_floor);
            let cut = keep_small_prefix(cut, &layout, input.tokens, options);
            planner.assign_cut(cut, options.boundary)
        }
    };
    let mut result = planner.finish(first, tokens_before, Vec::new());
    if let Some(limit) = options.limit {
        if result.tokens_after > limit {
            if let Some(settings) = &options.prune {
                if let Some(pruned) = plan_pruned(input, options, settings, tokens_before)? {
                    return Ok(pruned);
                }
            }
            result = planner.converge(result, limit, tokens_before)?;
        }
    }
    Ok(result)
}

/// A split turn whose prefix is no larger than its summary budget is not split: summarizing it
/// could not make it smaller, so the cut moves back to the turn's start and the prefix stays
/// verbatim (a short request followed by a huge tool result is the common case). Only for a tail of
/// about so many tokens: a message window or a token window (LangChain's `keep`) keeps what it was
/// asked for.
fn keep_small_prefix(
    cut: usize,
    layout: &Layout,
    tokens: &[usize],
    options: &PlanOptions,
) -> usize {
    if options.boundary != TurnBoundary::Split
        || !options.summarize
        || !options.keep_small_prefix
        || !matches!(options.strategy, Strategy::RecentTokens { .. })
    {
        return cut;
    }
    // Only a prefix summarized as a piece of its own (older history precedes it) is at stake.
    let separate = |start: usize| start > layout.system_end || layout.last_summary.is_some();
    match layout.split_prefix(cut) {
        Some(prefix)
            if separate(prefix.start)
                && layout.is_turn_start(prefix.start)
                && layout.safe.get(prefix.start).copied().unwrap_or(false) =>
        {
            let size: usize = tokens.get(prefix.clone()).map_or(0, |t| t.iter().sum());
            if size <= options.prefix_summary_tokens {
                prefix.start
            } else {
                cut
            }
        }
        _ => cut,
    }
}

/// Convergence step 1: plans again on the pruned history; `None` when pruning frees nothing.
fn plan_pruned(
    input: &PlanInput<'_>,
    options: &PlanOptions,
    settings: &PruneSettings,
    tokens_before: usize,
) -> Result<Option<Plan>> {
    let actions = prune::order(
        input.messages,
        settings.supersede,
        &settings.style,
        &input.part_cost,
    );
    if actions.is_empty() {
        return Ok(None);
    }
    let messages = prune::apply(input.messages, &actions);
    let mut tokens = input.tokens.to_vec();
    for action in &actions {
        if let Some(t) = tokens.get_mut(action.message) {
            *t = t.saturating_sub(action.tokens_freed);
        }
    }
    let again = PlanOptions {
        prune: None,
        ..options.clone()
    };
    let pruned_input = PlanInput {
        messages: &messages,
        tokens: &tokens,
        part_cost: input.part_cost,
    };
    let mut result = plan(&pruned_input, &again)?;
    // Pruning what is summarized anyway changes nothing in the context: keep the rest.
    result.pruned = actions
        .into_iter()
        .filter(|a| {
            matches!(
                result.dispositions.get(a.message),
                Some(Disposition::Keep | Disposition::Pinned | Disposition::System)
            )
        })
        .collect();
    result.tokens_before = tokens_before;
    if !result.pruned.is_empty() {
        let freed = prune::total_freed(&result.pruned);
        result.escalations.insert(0, Escalation::Pruned { freed });
    }
    Ok(Some(result))
}

struct Planner<'a, 'b> {
    input: &'a PlanInput<'b>,
    options: &'a PlanOptions,
    layout: &'a Layout,
    partners: &'a ToolPartners<'b>,
}

/// Dispositions and the split prefix of one placement.
struct Assignment {
    dispositions: Vec<Disposition>,
    cut: usize,
    split: bool,
    prefix: Option<Range<usize>>,
}

impl Planner<'_, '_> {
    fn removed(&self) -> Disposition {
        if self.options.summarize {
            Disposition::Summarize
        } else {
            Disposition::Drop
        }
    }

    fn assign_cut(&self, cut: usize, boundary: TurnBoundary) -> Assignment {
        let len = self.input.messages.len();
        let cut = cut.clamp(self.layout.tail_floor, len);
        let prefix = match boundary {
            TurnBoundary::Split | TurnBoundary::Free => self.layout.split_prefix(cut),
            TurnBoundary::Snap => None,
        };
        // The prefix is a separate piece only when older history (or an earlier summary) precedes
        // it; otherwise it is the history itself. A free boundary never makes it one.
        let separate = self.options.summarize
            && boundary == TurnBoundary::Split
            && prefix.as_ref().is_some_and(|p| {
                p.start > self.layout.system_end || self.layout.last_summary.is_some()
            });
        let removed = self.removed();
        let dispositions = (0..len)
            .map(|i| {
                if i < self.layout.system_end {
                    Disposition::System
                } else if i >= cut {
                    Disposition::Keep
                } else if separate && prefix.as_ref().is_some_and(|p| p.contains(&i)) {
                    Disposition::TurnPrefix
                } else {
                    removed
                }
            })
            .collect();
        let split = prefix.is_some();
        let prefix = if separate { prefix } else { None };
        self.pin(Assignment {
            dispositions,
            cut,
            split,
            prefix,
        })
    }

    fn assign_mask(&self, keep: &[bool]) -> Assignment {
        let removed = self.removed();
        let dispositions = (0..self.input.messages.len())
            .map(|i| {
                if i < self.layout.system_end {
                    Disposition::System
                } else if keep.get(i).copied().unwrap_or(false) {
                    Disposition::Keep
                } else {
                    removed
                }
            })
            .collect();
        let cut = self.input.messages.len();
        self.pin(Assignment {
            dispositions,
            cut,
            split: false,
            prefix: None,
        })
    }

    /// Pinned messages, their tool partners, and (when not summarizing) earlier summaries stay;
    /// so does a turn window's preamble, the messages before the first turn (seed 002).
    fn pin(&self, mut a: Assignment) -> Assignment {
        let messages = self.input.messages;
        let drops_turns =
            !self.options.summarize && matches!(self.options.strategy, Strategy::LastTurns { .. });
        let preamble = if drops_turns {
            self.layout.tail_floor
                ..self
                    .layout
                    .turn_starts
                    .first()
                    .copied()
                    .unwrap_or(self.layout.tail_floor)
        } else {
            0..0
        };
        // A tool result is never sent on without its call: a kept message whose results answer
        // no kept call (its calls are nowhere in the history, or before an earlier summary that
        // the cut cannot cross) goes with what is summarized or dropped.
        let removed = self.removed();
        let kept_calls: rustc_hash::FxHashSet<&str> = a
            .dispositions
            .iter()
            .zip(messages)
            .filter(|(d, _)| matches!(d, Disposition::System | Disposition::Keep))
            .flat_map(|(_, m)| m.tool_call_ids())
            .collect();
        for (i, d) in a.dispositions.iter_mut().enumerate() {
            let Some(m) = messages.get(i) else { continue };
            let results = m.tool_result_ids();
            let stranded = !results.is_empty() && results.iter().all(|id| !kept_calls.contains(id));
            if *d == Disposition::Keep && stranded {
                *d = removed;
            }
        }
        let mut work: Vec<usize> = (0..messages.len())
            .filter(|&i| {
                let removed = !matches!(
                    a.dispositions.get(i),
                    Some(Disposition::System | Disposition::Keep)
                );
                let m = messages.get(i);
                let stays = preamble.contains(&i)
                    || m.is_some_and(|m| m.pinned || (m.summary && !self.options.summarize));
                removed && stays
            })
            .collect();
        while let Some(i) = work.pop() {
            if let Some(d) = a.dispositions.get_mut(i) {
                if matches!(
                    d,
                    Disposition::System | Disposition::Keep | Disposition::Pinned
                ) {
                    continue;
                }
                *d = Disposition::Pinned;
            }
            work.extend(self.partners.of(i));
        }
        if let Some(prefix) = &a.prefix {
            if !prefix
                .clone()
                .any(|i| a.dispositions.get(i) == Some(&Disposition::TurnPrefix))
            {
                a.prefix = None;
            }
        }
        a
    }

    fn tokens_after(&self, a: &Assignment, truncations: &[Truncation]) -> usize {
        let tokens = self.input.tokens;
        let kept: usize = a
            .dispositions
            .iter()
            .zip(tokens)
            .filter(|(d, _)| {
                matches!(
                    d,
                    Disposition::System | Disposition::Keep | Disposition::Pinned
                )
            })
            .map(|(_, t)| *t)
            .sum();
        let freed: usize = truncations.iter().map(Truncation::tokens_freed).sum();
        let summarizes = a.dispositions.contains(&Disposition::Summarize);
        let history = if summarizes {
            self.options.summary_tokens
        } else {
            0
        };
        let prefix = if a.prefix.is_some() {
            self.options.prefix_summary_tokens
        } else {
            0
        };
        kept.saturating_sub(freed) + history + prefix
    }

    fn finish(&self, a: Assignment, tokens_before: usize, truncations: Vec<Truncation>) -> Plan {
        let tokens_after = self.tokens_after(&a, &truncations);
        let overlap = match self.options.strategy {
            Strategy::Recursive { overlap, .. } => a
                .dispositions
                .iter()
                .enumerate()
                .skip(a.cut)
                .filter(|(_, &d)| d == Disposition::Keep)
                .take(overlap)
                .map(|(i, _)| i)
                .collect(),
            _ => Vec::new(),
        };
        Plan {
            previous_summary: self.layout.last_summary,
            split_turn: a.split,
            turn_prefix: a.prefix.clone(),
            dispositions: a.dispositions,
            overlap,
            pruned: Vec::new(),
            truncations,
            escalations: Vec::new(),
            tokens_before,
            tokens_after,
        }
    }

    /// Codex mode fits the limit by keeping fewer recent user messages.
    fn converge_user_messages(
        &self,
        max_tokens: usize,
        limit: usize,
        tokens_before: usize,
    ) -> Result<Plan> {
        let none = vec![false; self.input.messages.len()];
        let fixed = self.tokens_after(&self.assign_mask(&none), &[]);
        let budget = max_tokens.min(limit.saturating_sub(fixed));
        let keep = strategy::recent_user_messages(
            self.input.messages,
            self.input.tokens,
            self.layout,
            budget,
        );
        let a = self.assign_mask(&keep);
        if self.tokens_after(&a, &[]) > limit {
            return Err(self.cannot_compact(&a, limit, tokens_before));
        }
        let mut plan = self.finish(a, tokens_before, Vec::new());
        let from = self.layout.len();
        plan.escalations = vec![Escalation::ShrankTail { from, to: from }];
        Ok(plan)
    }

    fn cannot_compact(&self, a: &Assignment, limit: usize, tokens_before: usize) -> Error {
        let pinned: usize = a
            .dispositions
            .iter()
            .zip(self.input.tokens)
            .filter(|(d, _)| matches!(d, Disposition::System | Disposition::Pinned))
            .map(|(_, t)| *t)
            .sum();
        Error::new(
            ErrorCode::CannotCompact,
            format!(
                "cannot fit {tokens_before} tokens under {limit}: system and pinned messages take {pinned} and the summary budget {} even with nothing else kept",
                self.options.summary_tokens
            ),
        )
    }

    /// Escalates until the plan fits `limit` (see the module documentation).
    fn converge(&self, first: Plan, limit: usize, tokens_before: usize) -> Result<Plan> {
        if let Strategy::RecentUserMessages { max_tokens } = self.options.strategy {
            return self.converge_user_messages(max_tokens, limit, tokens_before);
        }
        let messages = self.input.messages;
        let len = messages.len();
        let mut escalations = Vec::new();
        let from = first
            .dispositions
            .iter()
            .position(|d| *d == Disposition::Keep)
            .unwrap_or(len);
        let mut boundaries = vec![self.options.boundary];
        if self.options.boundary == TurnBoundary::Snap {
            boundaries.push(TurnBoundary::Split);
        }
        for boundary in boundaries {
            if boundary != self.options.boundary {
                escalations.push(Escalation::SplitTurn);
            }
            let candidates = self.layout.candidates(messages, boundary);
            // The largest tail that fits: try candidates from the earliest that the budget allows.
            let fixed = self.tokens_after(&self.assign_cut(len, boundary), &[]);
            let budget = limit.saturating_sub(fixed);
            let start = fit_back(self.input.tokens, self.layout.tail_floor, budget);
            let mut next = select(&candidates, start, Direction::Forward, false);
            while let Some(cut) = next {
                let a = self.assign_cut(cut, boundary);
                if self.tokens_after(&a, &[]) <= limit {
                    let mut plan = self.finish(a, tokens_before, Vec::new());
                    escalations.push(Escalation::ShrankTail { from, to: cut });
                    plan.escalations = escalations;
                    return Ok(plan);
                }
                // A split prefix may have added its budget: try the next candidate.
                next = candidates.iter().copied().find(|&c| c > cut);
            }
        }
        // Keep the smallest non-empty tail and truncate its oversized tool outputs.
        let smallest = match self.options.boundary {
            TurnBoundary::Free => TurnBoundary::Free,
            _ => TurnBoundary::Split,
        };
        if let Some(&last) = self.layout.candidates(messages, smallest).last() {
            let a = self.assign_cut(last, smallest);
            let excess = self.tokens_after(&a, &[]).saturating_sub(limit);
            let kept: Vec<usize> = (0..len)
                .filter(|&i| a.dispositions.get(i) == Some(&Disposition::Keep))
                .collect();
            let (truncations, missing) =
                truncate::plan_truncations(messages, &kept, self.input.part_cost, excess);
            if missing == 0 {
                let freed = truncations.iter().map(Truncation::tokens_freed).sum();
                let mut plan = self.finish(a, tokens_before, truncations);
                escalations.push(Escalation::ShrankTail { from, to: last });
                escalations.push(Escalation::Truncated { freed });
                plan.escalations = escalations;
                return Ok(plan);
            }
        }
        let a = self.assign_cut(len, self.options.boundary);
        let after = self.tokens_after(&a, &[]);
        if after <= limit {
            let mut plan = self.finish(a, tokens_before, Vec::new());
            escalations.push(Escalation::KeptNothing);
            plan.escalations = escalations;
            return Ok(plan);
        }
        Err(self.cannot_compact(&a, limit, tokens_before))
    }
}
