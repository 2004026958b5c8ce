#![cfg(not(target_arch = "wasm32"))]
//! The `Compactor`'s state as a core type (`core::compactor::CompactorState`), natively: the
//! identity-keyed store reuses what it holds, self-calibration learns from usage, the memo
//! continues the last automatic compaction, and the calibrated count is the `Session`'s.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use context_compaction::core::compactor::{CompactorState, Totals};
use context_compaction::core::estimate::Usage;
use context_compaction::core::format::Format;
use context_compaction::core::message::Message;
use context_compaction::core::options::Options;
use context_compaction::core::report::check_json;
use context_compaction::core::session::{Config, Session};
use context_compaction::core::summary::Recognizer;
use serde_json::json;

#[path = "common/pi_history.rs"]
mod pi_history;
use pi_history::{estimator, history};

fn options(extra: serde_json::Value) -> Options {
    pi_history::options_at(40_000, extra)
}

/// Stores `messages` as the binding does for objects never seen: returns their ids.
fn store_all<V>(
    state: &mut CompactorState<V>,
    messages: &[Message],
    options: &Options,
) -> Vec<u32> {
    let ids: Vec<u32> = messages
        .iter()
        .map(|m| state.store.insert(m.clone(), &estimator()))
        .collect();
    state
        .store
        .settle(&ids, &Recognizer::with(&options.settings.summary));
    ids
}

fn session(options: &Options) -> Session {
    let config = Config {
        settings: options.settings.clone(),
        estimator: estimator(),
        background_tokens: None,
        calibration: Default::default(),
        self_calibration: options.self_calibration,
    };
    Session::new(config, "s".into(), "pi".into())
}

fn usage(input: u64) -> Usage {
    Usage {
        input,
        output: 50,
        ..Usage::default()
    }
}

#[test]
fn identity_reuse_counts_only_new_messages() {
    let options = options(json!({}));
    let mut state = CompactorState::<()>::new(&options);
    let messages = history(6, 40);
    let first = store_all(&mut state, &messages[..12], &options);
    let t1 = state.store.totals_of_call(&first);
    assert_eq!(t1, state.store.totals(&first));
    // The next call passes the same objects (ids) plus new ones: only the new ones are unknown.
    let mut next = first.clone();
    next.extend([0, 0]);
    assert_eq!(state.store.unknown(&next), vec![12, 13]);
    let added = store_all(&mut state, &messages[12..14], &options);
    next.truncate(12);
    next.extend(added);
    let t2 = state.store.totals_of_call(&next);
    assert_eq!(t2, state.store.totals(&next), "incremental = full");
    assert_eq!(t2, Totals::of(&messages[..14], &estimator()));
    assert_eq!(t2.last_assistant, Some(13));
    // A copy handed out for planning is reused by the next call over the same start.
    let view = state.store.take_messages(&next);
    assert_eq!(view, messages[..14]);
    state.store.restore(next.clone(), view);
    assert_eq!(state.store.take_messages(&next), messages[..14]);
    // Another format forgets everything; ids are never given twice.
    assert!(!state.store.adopt_format(Format::Pi, true));
    assert!(state.store.adopt_format(Format::AiSdk, true));
    assert!(state.store.is_empty());
    assert_eq!(state.store.unknown(&next).len(), next.len());
    let again = state.store.insert(messages[0].clone(), &estimator());
    assert!(!next.contains(&again));
}

#[test]
fn a_provisional_format_is_detected_again_until_messages_show_one() {
    let options = options(json!({}));
    let mut state = CompactorState::<()>::new(&options);
    // Plain text: ai-sdk for now, and not the store's format (the next call detects again).
    assert!(!state.store.adopt_format(Format::AiSdk, false));
    assert_eq!(state.store.format(), None);
    let ids = store_all(&mut state, &history(1, 5)[..1], &options);
    // Shown: another format forgets what was read provisionally, so it is read again.
    assert!(state.store.adopt_format(Format::Anthropic, true));
    assert_eq!(state.store.format(), Some(Format::Anthropic));
    assert_eq!(state.store.unknown(&ids), vec![0]);
    // A decided format is never replaced by a provisional one.
    let ids = store_all(&mut state, &history(1, 5)[..1], &options);
    assert!(!state.store.adopt_format(Format::AiSdk, false));
    assert_eq!(state.store.format(), Some(Format::Anthropic));
    assert!(state.store.unknown(&ids).is_empty());
}

#[test]
fn the_store_stays_bounded_by_the_recent_calls() {
    let options = options(json!({}));
    let mut state = CompactorState::<()>::new(&options);
    let messages = history(10, 5);
    for round in 0..20 {
        let ids = store_all(&mut state, &messages[..10], &options);
        assert!(state.store.len() <= 2 * 10 + 64, "round {round}");
        assert_eq!(
            state.store.totals(&ids).tokens,
            Totals::of(&messages[..10], &estimator()).tokens
        );
    }
}

#[test]
fn calibration_learns_from_usage_as_the_session_does() {
    let options = options(json!({"safetyMargin": "auto"}));
    let messages = history(12, 200);
    let mut state = CompactorState::<()>::new(&options);
    let mut s = session(&options);
    let cut = [16, 32, 48];
    let mut from = 0;
    let mut ids = Vec::new();
    for (k, &at) in cut.iter().enumerate() {
        ids.extend(store_all(&mut state, &messages[from..at], &options));
        s.append(messages[from..at].to_vec());
        from = at;
        // The provider counts 30% more than the estimate.
        let u = usage((Totals::of(&messages[..at], &estimator()).tokens as f64 * 1.3) as u64);
        let checked = state.check(&options, &ids, Some(&u));
        s.record_usage(u);
        assert_eq!(state.learned, *s.calibration(), "after usage {k}");
        assert_eq!(checked.count.tokens(), s.tokens(), "the same count");
        assert_eq!(checked.count.error, s.tokens_error(), "the same error");
        assert_eq!(checked.decision, s.check(false), "the same decision");
    }
    assert_eq!(
        state.learned.samples, 2,
        "learned from the growth between usages"
    );
    assert!(state.learned.factors.tool_results > 1.0);
    // The same usage given again teaches nothing.
    let before = state.learned;
    state.check(&options, &ids, Some(&usage(1)));
    assert_eq!(state.learned, before);
    // Without usage the count is the corrected estimate, as the Session's with no anchor.
    let count = state.count(&messages, &state.store.kinds(&ids), None);
    assert!(count.tokens() > Totals::of(&messages, &estimator()).tokens);
    assert_eq!(count.measured, 0);
    // `estimate()` reports the stored counts per message and what was learned.
    let e = state.estimate_report(&options, &ids);
    assert_eq!(e["perMessage"].as_array().map(Vec::len), Some(ids.len()));
    let total = Totals::of(&messages, &estimator()).tokens;
    assert_eq!(e["total"].as_u64(), Some(total as u64));
    assert_eq!(e["calibration"]["samples"], 2);
    assert_eq!(e["calibration"]["provider"], options.profile.name);
}

#[test]
fn without_self_calibration_nothing_is_learned() {
    let options = options(json!({"selfCalibration": false}));
    let messages = history(8, 200);
    let mut state = CompactorState::<()>::new(&options);
    let ids = store_all(&mut state, &messages[..16], &options);
    state.check(&options, &ids, Some(&usage(9000)));
    let ids = store_all(&mut state, &messages, &options);
    let c = state.check(&options, &ids, Some(&usage(19000)));
    assert_eq!(state.learned.samples, 0);
    assert_eq!(c.count.measured, 19050);
}

#[test]
fn the_memo_continues_the_last_automatic_compaction() {
    let options = options(json!({"contextWindow": 8_000}));
    let est = estimator();
    let messages = history(10, 400);
    let mut state = CompactorState::<&str>::new(&options);
    let ids: Vec<u32> = messages
        .iter()
        .map(|m| state.store.insert(m.clone(), &est))
        .collect();
    let kinds = state.store.kinds(&ids);
    let prepared = state
        .prepare(&options, &messages, &kinds, None, &est, 0, false)
        .unwrap();
    assert!(prepared.decision.should_compact);
    let quick = state.quick(&options, Format::Pi, &ids);
    assert!(quick.decision.should_compact && quick.continued.is_none());
    assert_eq!(quick.count.tokens(), Totals::of(&messages, &est).tokens);
    assert_eq!(
        state.skipped(&quick),
        None,
        "above the trigger: it compacts"
    );

    // Compacted: the first 32 messages replaced by a summary head of one message.
    let head = vec![Message::text(
        context_compaction::core::message::Role::User,
        "summary of the work so far",
    )];
    state.remember(
        Format::Pi,
        &messages,
        &ids,
        None,
        32,
        (head.clone(), vec!["head"]),
        (
            Some(1_770_888_600_000),
            serde_json::json!({"filesRead": ["a.rs"]}),
        ),
        &est,
    );
    assert_eq!(state.memo_epoch, 1);
    let memo = state.memo.as_ref().unwrap();
    assert_eq!(
        (memo.replaced.len(), memo.head_values.clone()),
        (32, vec!["head"])
    );
    assert_eq!(memo.record().unwrap().0, 32);
    // Its record: the messages kept after the replaced ones, the time and the summary's digest.
    assert_eq!(
        (memo.kept(), memo.about.timestamp, memo.about.digest.clone()),
        (
            messages.len() - 32,
            Some(1_770_888_600_000),
            serde_json::json!({"filesRead": ["a.rs"]})
        )
    );
    // A call continuing from it is floored past the head and the kept messages.
    assert_eq!(state.floor(&ids, Some(32)), 1 + messages.len() - 32);

    // The same history (same ids) plus nothing after: no continuation; plus more: continued.
    assert_eq!(state.continuation(Format::Pi, &ids[..32]), None);
    assert_eq!(state.continuation(Format::Pi, &ids), Some(32));
    assert_eq!(
        state.continuation(Format::AiSdk, &ids),
        None,
        "another format"
    );
    // A deep-equal copy of the replaced messages continues too.
    let copy: Vec<u32> = messages
        .iter()
        .map(|m| state.store.insert(m.clone(), &est))
        .collect();
    assert_eq!(state.continuation(Format::Pi, &copy), Some(32));
    let q = state.quick(&options, Format::Pi, &copy);
    assert_eq!(q.continued, Some(32));
    let continued: Vec<Message> = head.iter().chain(&messages[32..]).cloned().collect();
    assert_eq!(q.count.tokens(), Totals::of(&continued, &est).tokens);
    assert!(!q.decision.should_compact, "the head is small");
    // Below the trigger `maybeCompact` returns the continued history unchanged.
    let skipped = state.skipped(&q).unwrap();
    assert_eq!(skipped["compacted"], false);
    assert_eq!(skipped["continued"], true);
    assert_eq!(
        skipped["tokensBefore"].as_u64(),
        Some(q.count.tokens() as u64)
    );
    assert_eq!(skipped["warnings"].as_array().map(Vec::len), Some(1));
    let (m, k) = state
        .memo
        .as_ref()
        .unwrap()
        .continue_with(32, &messages, &kinds);
    assert_eq!(m, continued);
    assert_eq!(k.len(), m.len());

    // A second compaction of the continued history counts in the caller's messages.
    state.remember(
        Format::Pi,
        &messages,
        &copy,
        Some((32, 1)),
        3,
        (head, vec!["h2"]),
        (None, serde_json::Value::Null),
        &est,
    );
    assert_eq!(state.memo.as_ref().unwrap().replaced.len(), 34);
    // A kept tail starting inside the head leaves no memo.
    state.remember(
        Format::Pi,
        &messages,
        &copy,
        Some((32, 1)),
        0,
        (Vec::new(), Vec::new()),
        (None, serde_json::Value::Null),
        &est,
    );
    assert!(state.memo.is_none());
    assert_eq!(state.memo_epoch, 3);
}

#[test]
fn prune_reuses_a_message_pruned_the_same_way() {
    let options =
        options(json!({"prune": {"style": "opencode", "protectTokens": 500, "minimum": 50}}));
    let est = estimator();
    let messages = history(8, 300);
    let mut state = CompactorState::<String>::new(&options);
    let ids = store_all(&mut state, &messages, &options);
    let mut copy = messages.clone();
    let (actions, pruned) = state.prune(&options, &mut copy, &ids, &est, 0);
    assert!(!actions.is_empty(), "old tool outputs pruned");
    assert_eq!(pruned.len(), messages.len());
    assert!(
        pruned.iter().all(|(_, reused)| reused.is_none()),
        "nothing made before"
    );
    let changed: Vec<usize> = (0..pruned.len())
        .filter(|&i| !pruned[i].0.is_empty())
        .collect();
    for &i in &changed {
        state.keep_pruned(ids[i], pruned[i].0.clone(), vec![format!("exported {i}")]);
    }
    let (_, again) = state.prune(&options, &mut messages.clone(), &ids, &est, 0);
    for (i, (done, reused)) in again.iter().enumerate() {
        if changed.contains(&i) {
            assert_eq!(reused.as_deref(), Some(&[format!("exported {i}")][..]));
        } else {
            assert!(done.is_empty() && reused.is_none());
        }
    }
}

#[test]
fn the_next_cut_is_floored_past_what_the_last_compaction_returned() {
    // pi never keeps again what its previous compaction kept (settings.keep_after_compaction).
    let options = options(json!({"preset": "pi", "contextWindow": 8_000, "reserveTokens": 1_000}));
    assert!(options.settings.keep_after_compaction);
    let est = estimator();
    let mut state = CompactorState::<()>::new(&options);
    let returned = history(3, 40);
    let out = store_all(&mut state, &returned, &options);
    state.returned(&out);
    assert_eq!(state.boundary.len(), out.len());
    let more = history(4, 30);
    let next = store_all(&mut state, &more, &options);
    let call: Vec<u32> = out.iter().chain(&next).copied().collect();
    // A call that starts with exactly the returned messages (or deep-equal copies) is floored
    // past them; any other call is not.
    assert_eq!(state.floor(&call, None), out.len());
    let copies = store_all(&mut state, &returned, &options);
    let copied: Vec<u32> = copies.iter().chain(&next).copied().collect();
    assert_eq!(state.floor(&copied, None), out.len());
    assert_eq!(state.floor(&next, None), 0);
    assert_eq!(state.floor(&call[1..], None), 0);
    assert_eq!(state.floor(&out[..2], None), 0);

    // The plan keeps nothing before the floor: the returned messages are summarized.
    let messages: Vec<Message> = returned.iter().chain(&more).cloned().collect();
    let kinds: Vec<_> = messages.iter().map(|m| est.estimate_message(m)).collect();
    let plan = |floor| {
        state
            .prepare(&options, &messages, &kinds, None, &est, floor, true)
            .unwrap()
            .plan
    };
    let floored = plan(out.len());
    assert!(floored.tail_start() >= out.len());
    let unfloored = plan(0);
    assert!(
        unfloored.tail_start() < out.len(),
        "unfloored, the kept tail reaches back into the returned messages"
    );

    // Presets that keep again ignore the floor.
    let codex =
        self::options(json!({"preset": "codex", "contextWindow": 8_000, "reserveTokens": 1_000}));
    let p = state
        .prepare(&codex, &messages, &kinds, None, &est, messages.len(), true)
        .unwrap()
        .plan;
    let free = state
        .prepare(&codex, &messages, &kinds, None, &est, 0, true)
        .unwrap()
        .plan;
    assert_eq!(p, free);
}

#[test]
fn the_digest_lists_what_a_prune_hid_in_the_summarized_messages() {
    use context_compaction::core::compactor::hidden::with_hidden;
    use context_compaction::core::plan::Disposition;
    let options = options(json!({"contextWindow": 8_000, "reserveTokens": 1_000}));
    let est = estimator();
    let messages = history(10, 100);
    let mut state = CompactorState::<()>::new(&options);
    let ids = store_all(&mut state, &messages, &options);
    // Message 2 is a pruned form whose part 0 stands for a hidden tool output.
    state.store.get_mut(ids[2]).unwrap().hidden = vec![0];
    let kinds: Vec<_> = messages.iter().map(|m| est.estimate_message(m)).collect();
    let plan = state
        .prepare(&options, &messages, &kinds, None, &est, 0, true)
        .unwrap()
        .plan;
    assert_eq!(plan.dispositions[2], Disposition::Summarize);
    let digest = with_hidden(
        json!({"filesRead": []}),
        &state.store,
        &messages,
        &plan,
        |i| Some((ids[i], i)),
    );
    assert_eq!(
        digest["hidden"],
        json!([{"message": 2, "part": 0, "tool": "read", "output": "line0 ".repeat(100)}])
    );
    assert_eq!(digest["filesRead"], json!([]));
    // A kept message, or none marked: nothing listed.
    let last = messages.len() - 1;
    state.store.get_mut(ids[2]).unwrap().hidden.clear();
    state.store.get_mut(ids[last]).unwrap().hidden = vec![0];
    let digest = with_hidden(json!({}), &state.store, &messages, &plan, |i| {
        Some((ids[i], i))
    });
    assert_eq!(digest, json!({}));
}

#[test]
fn the_store_imports_a_call_within_its_limits() {
    use context_compaction::core::compactor::store::{array_threw, check_count, MessageStore};
    use context_compaction::core::plain_data::MAX_NODES;
    assert!(check_count(MAX_NODES).is_ok());
    let e = check_count(MAX_NODES + 1).unwrap_err();
    assert_eq!(e.code.as_str(), "INVALID_INPUT");
    assert_eq!(e.path.as_deref(), Some("messages"));
    assert!(e
        .message
        .starts_with(&format!("{} messages", MAX_NODES + 1)));
    let e = array_threw(Some("boom".into()));
    assert_eq!(e.message, "reading the messages threw: boom");
    assert!(array_threw(None).message.ends_with("a non-Error value"));

    let mut store: MessageStore<()> = MessageStore::default();
    let import = context_compaction::formats::message_importer(Format::AiSdk);
    let good = json!({"role": "user", "content": "hello there"});
    let id = store.import(3, &good, import, &estimator()).unwrap();
    assert_ne!(id, 0);
    let stored = store.get(id).unwrap();
    assert!(stored.tokens > 0);
    let e = store
        .import(7, &json!({"role": 5}), import, &estimator())
        .unwrap_err();
    assert_eq!(e.code.as_str(), "INVALID_INPUT");
    assert!(
        e.path.as_deref().unwrap_or("").starts_with("messages[7]"),
        "{e:?}"
    );
    assert_eq!(store.len(), 1);
}

#[test]
fn the_check_report_is_the_checks_result_as_json() {
    let options = options(json!({}));
    let messages = history(6, 200);
    let mut state = CompactorState::<()>::new(&options);
    let ids = store_all(&mut state, &messages, &options);
    let checked = state.check(&options, &ids, None);
    let report = state.check_report(&options, &ids, None);
    assert_eq!(report, check_json(&checked));
    assert_eq!(report["tokens"], json!(checked.count.tokens()));
    assert_eq!(
        report["shouldCompact"],
        json!(checked.decision.should_compact)
    );
}
