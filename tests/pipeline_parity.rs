#![cfg(not(target_arch = "wasm32"))]
//! Both handles' core paths reach the same decisions on random histories (proptest): the
//! `Session`'s (its log, live view and snapshot) and the `Compactor`'s (its core state,
//! `CompactorState`: the caller's messages in its store) give the same calibrated count, the same
//! trigger decision, the same plan and the same start of the pipeline, for every preset; with
//! usage given at random points, the same count and the same learned calibration.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use context_compaction::core::compactor::CompactorState;
use context_compaction::core::estimate::{Counter, Estimator, Usage};
use context_compaction::core::format::Format;
use context_compaction::core::message::{Message, Part, Role};
use context_compaction::core::options::parse;
use context_compaction::core::pipeline::{Kind, Pipeline};
use context_compaction::core::prepare::{prepare, History};
use context_compaction::core::session::{Config, Session};
use context_compaction::core::summary::Recognizer;
use context_compaction::formats::pi::import_message;
use proptest::prelude::*;
use serde_json::json;

const PRESETS: [&str; 10] = [
    "pi",
    "codex",
    "opencode",
    "claude-code",
    "langchain",
    "anthropic-api",
    "seed-000",
    "seed-001",
    "seed-003",
    "seed-004",
];

/// A pi history: per turn a request, then `calls` tool calls each with a result of `size` words,
/// then an answer.
fn history(turns: &[(usize, usize, usize)]) -> Vec<Message> {
    let mut out = Vec::new();
    for (t, &(request, calls, size)) in turns.iter().enumerate() {
        let text = |n: usize, w: &str| format!("{w}{t} ").repeat(n + 1);
        out.push(
            json!({"role": "user", "content": [{"type": "text", "text": text(request, "ask")}]}),
        );
        for c in 0..calls {
            let id = format!("call-{t}-{c}");
            out.push(json!({"role": "assistant", "content": [{"type": "toolCall", "id": id, "name": "read", "arguments": {"path": format!("f{t}")}}]}));
            out.push(json!({"role": "toolResult", "toolCallId": id, "toolName": "read", "content": [{"type": "text", "text": text(size, "line")}], "isError": false}));
        }
        out.push(json!({"role": "assistant", "content": [{"type": "text", "text": text(request, "done")}]}));
    }
    out.iter()
        .map(|v| import_message(v, "m").unwrap())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(64)
    ))]

    #[test]
    fn both_handles_decide_alike(
        turns in prop::collection::vec((0usize..40, 0usize..3, 0usize..400), 1..30),
        preset in 0usize..PRESETS.len(),
        window in 40_000usize..120_000,
        force in any::<bool>(),
    ) {
        let options = parse(&json!({"preset": PRESETS[preset], "contextWindow": window, "summarize": "extractive"})).unwrap();
        let estimator = Estimator::new(Counter::Heuristic);
        let messages = history(&turns);

        // The Session's path: the log, the live view, a snapshot.
        let config = Config {
            settings: options.settings.clone(),
            estimator: estimator.clone(),
            background_tokens: None,
            calibration: Default::default(),
            self_calibration: true,
        };
        let mut session = Session::new(config, "s".into(), "pi".into());
        session.append(messages.clone());
        let snapshot = session.snapshot();
        let mut settings = options.settings.clone();
        settings.budget = session.budget();
        let cost = |p: &Part| estimator.part_tokens(p);
        let by_session = prepare(&settings, &History {
            messages: &snapshot.messages,
            tokens: &snapshot.tokens,
            total: snapshot.total,
            part_cost: &cost,
        }, force);

        // The Compactor's path: its core state, the caller's messages in its store.
        let mut state = CompactorState::<()>::new(&options);
        let ids: Vec<u32> = messages.iter().map(|m| state.store.insert(m.clone(), &estimator)).collect();
        state.store.settle(&ids, &Recognizer::with(&options.settings.summary));
        let kinds = state.store.kinds(&ids);
        let total = state.count(&messages, &kinds, None).tokens();
        let checked = state.check(&options, &ids, None);
        prop_assert_eq!(checked.count.tokens(), total);
        prop_assert_eq!(state.quick(&options, Format::Pi, &ids).decision, checked.decision.clone());
        let by_compactor = state.prepare(&options, &messages, &kinds, None, &estimator, 0, force);

        prop_assert_eq!(snapshot.total, total, "the same count");
        let pressure = session.pressure().0.should_compact;
        match (by_session, by_compactor) {
            (Ok(a), Ok(b)) => {
                prop_assert_eq!(a.decision.should_compact, b.decision.should_compact);
                if !force {
                    prop_assert_eq!(pressure, a.decision.should_compact, "check() agrees");
                    prop_assert_eq!(checked.decision.should_compact, b.decision.should_compact);
                }
                prop_assert_eq!(&a.plan.dispositions, &b.plan.dispositions);
                let pipeline = Pipeline::new(&options);
                let kind = if force { Kind::Forced } else { Kind::Automatic };
                prop_assert_eq!(
                    pipeline.start(kind, a.decision.should_compact, snapshot.total),
                    pipeline.start(kind, b.decision.should_compact, total)
                );
            }
            (Err(a), Err(b)) => prop_assert_eq!(a.code, b.code),
            (a, b) => prop_assert!(false, "one path failed: {:?} / {:?}", a.err(), b.err()),
        }
    }

    #[test]
    fn both_handles_count_and_learn_alike_with_usage(
        turns in prop::collection::vec((0usize..40, 0usize..3, 0usize..400), 2..20),
        reports in prop::collection::vec((0usize..20, 500u64..200_000), 1..6),
        preset in 0usize..PRESETS.len(),
        auto in any::<bool>(),
    ) {
        let mut json = json!({"preset": PRESETS[preset], "contextWindow": 200_000, "summarize": "extractive"});
        if auto {
            json["safetyMargin"] = json!("auto");
        }
        let options = parse(&json).unwrap();
        let estimator = Estimator::new(Counter::Heuristic);
        let messages = history(&turns);
        let config = Config {
            settings: options.settings.clone(),
            estimator: estimator.clone(),
            background_tokens: None,
            calibration: Default::default(),
            self_calibration: true,
        };
        let mut session = Session::new(config, "s".into(), "pi".into());
        let mut state = CompactorState::<()>::new(&options);
        let recognizer = Recognizer::with(&options.settings.summary);
        let mut ids = Vec::new();
        let mut at = 0;
        // Usage reported after growing prefixes (each cut after an assistant message), growing.
        let mut cuts: Vec<(usize, u64)> = reports
            .iter()
            .map(|&(c, u)| ((c * messages.len()) / 20, u))
            .collect();
        cuts.sort_unstable();
        let mut prompt = 0u64;
        let mut last_anchor = None;
        for (cut, grow) in cuts {
            let cut = cut.max(at);
            let added: Vec<Message> = messages[at..cut].to_vec();
            ids.extend(added.iter().map(|m| state.store.insert(m.clone(), &estimator)));
            state.store.settle(&ids, &recognizer);
            session.append(added);
            at = cut;
            let Some(anchor) = messages[..at].iter().rposition(|m| m.role == Role::Assistant) else {
                continue;
            };
            // A usage belongs to one response: the same response reports the same usage.
            if last_anchor != Some(anchor) {
                prompt += grow;
            }
            last_anchor = Some(anchor);
            let usage = Usage { input: prompt, output: 40, ..Usage::default() };
            let checked = state.check(&options, &ids, Some(&usage));
            session.record_usage(usage);
            prop_assert_eq!(checked.count.tokens(), session.tokens(), "the same count");
            prop_assert_eq!(checked.count.error, session.tokens_error(), "the same error");
            prop_assert_eq!(&state.learned, session.calibration(), "the same calibration");
            prop_assert_eq!(checked.decision.should_compact, session.check(false).should_compact);
        }
    }
}
