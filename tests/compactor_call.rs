#![cfg(not(target_arch = "wasm32"))]
//! One call of a `Compactor` as the core runs it (`core::compactor::call`), natively: the call's
//! messages taken out of the store and given back, `plan()`'s report with its cost, the pipeline's
//! input of a compaction, the memo a committed `maybeCompact` leaves and the continued call after
//! it, `prune()`'s outcome per message, and `trim()` with its options.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use context_compaction::core::compactor::call::trim_options;
use context_compaction::core::compactor::{CompactorState, Pruned};
use context_compaction::core::error::ErrorCode;
use context_compaction::core::format::Format;
use context_compaction::core::message::{Message, Role};
use context_compaction::core::options::Options;
use context_compaction::core::pipeline::{Compacted, Kind};
use context_compaction::core::render::{Origin, Rendered};
use context_compaction::core::report::unchanged_continued;
use serde_json::json;

#[path = "common/pi_history.rs"]
mod pi_history;
use pi_history::{estimator, history};

fn options(extra: serde_json::Value) -> Options {
    pi_history::options_at(8_000, extra)
}

fn store_all<V>(state: &mut CompactorState<V>, messages: &[Message]) -> Vec<u32> {
    let ids: Vec<u32> = messages
        .iter()
        .map(|m| state.store.insert(m.clone(), &estimator()))
        .collect();
    state.settle(&ids);
    ids
}

#[test]
fn a_plan_reports_its_cost_and_gives_the_messages_back() {
    let options = options(json!({}));
    let messages = history(10, 400);
    let mut state = CompactorState::<()>::new(&options);
    let ids = store_all(&mut state, &messages);
    let call = state.take_call((Format::Pi, ids.clone()), estimator(), false);
    assert_eq!(call.messages, messages);
    assert!(call.continued.is_none());
    let total = call.estimate.total;
    let report = state.plan_report(&options, call, None).unwrap();
    assert_eq!(report["shouldCompact"], true);
    assert_eq!(report["tokensBefore"].as_u64(), Some(total as u64));
    assert!(report["cost"]["continue"]["outputTokens"].as_u64().unwrap() > 0);
    assert!(report["summarize"]
        .as_array()
        .is_some_and(|s| !s.is_empty()));
    // Given back by the report: the next call takes them again, the same.
    let again = state.take_call((Format::Pi, ids), estimator(), true);
    assert_eq!(again.messages, messages);
}

#[test]
fn a_committed_automatic_compaction_is_continued_by_the_next_call() {
    let options = options(json!({}));
    let messages = history(10, 400);
    let mut state = CompactorState::<String>::new(&options);
    let ids = store_all(&mut state, &messages);
    let mut call = state.take_call((Format::Pi, ids.clone()), estimator(), true);
    let input = state
        .job_input(&options, &mut call, Kind::Automatic, false, None, true)
        .unwrap();
    assert!(call.messages.is_empty(), "the job took the messages");
    assert_eq!(input.messages, messages);
    assert_eq!((input.round, input.should_compact), (1, true));
    assert!(input.continues, "maybeCompact adds the continue message");
    let first_kept = input.plan.tail_start();
    assert!(first_kept > 0 && first_kept < messages.len());
    // Rendered: a summary, then the kept tail.
    let mut rendered = vec![Rendered {
        message: Message::text(Role::User, "summary of the work so far"),
        origin: Origin::New,
    }];
    rendered.extend((first_kept..messages.len()).map(|i| Rendered {
        message: messages[i].clone(),
        origin: Origin::Input(i),
    }));
    let digest = json!({"filesRead": ["f0"]});
    let value = |i: usize| format!("out{i}");
    let call_of = (&call, &input, Kind::Automatic);
    let back = state.commit_call(call_of, &rendered, digest.clone(), value, Some(5));
    assert_eq!(back, digest, "nothing was pruned: no hidden list");
    let memo = state.memo.as_ref().unwrap();
    assert_eq!(memo.head_values, vec!["out0".to_string()]);
    assert_eq!(memo.record().unwrap().0, first_kept);
    assert_eq!(
        (memo.about.timestamp, memo.kept()),
        (Some(5), messages.len() - first_kept)
    );

    // The same history plus a new turn continues from the head.
    let mut longer = messages.clone();
    longer.extend(history(11, 5).into_iter().skip(40));
    let ids = store_all(&mut state, &longer);
    let next = state.take_call((Format::Pi, ids), estimator(), true);
    let c = next.continued.as_ref().unwrap();
    assert_eq!((c.prefix_len, c.head_len), (first_kept, 1));
    assert_eq!(next.messages.len(), 1 + longer.len() - first_kept);
    assert_eq!(next.estimate.per_message.len(), next.messages.len());
    // A manual call does not continue, and a manual commit leaves the memo as it was.
    let manual = state.take_call((Format::Pi, next.ids.clone()), estimator(), false);
    assert!(manual.continued.is_none());
    let call_of = (&manual, &input, Kind::Manual);
    state.commit_call(call_of, &rendered, json!(null), value, None);
    assert_eq!(state.memo_epoch, 1);
}

#[test]
fn prune_says_what_comes_back_for_each_message_and_where_new_forms_land() {
    let options =
        options(json!({"prune": {"style": "opencode", "protectTokens": 500, "minimum": 50}}));
    let messages = history(8, 300);
    let mut state = CompactorState::<String>::new(&options);
    let ids = store_all(&mut state, &messages);
    let mut call = state.take_call((Format::Pi, ids.clone()), estimator(), false);
    let pruned = state.prune_call(&options, &mut call, 0);
    assert_eq!(pruned.len(), messages.len());
    assert_eq!(call.messages, messages, "left as they were");
    let mut new = Vec::new();
    for (i, p) in pruned.iter().enumerate() {
        match p {
            Pruned::Same => {}
            Pruned::Again(_) => panic!("nothing was pruned before"),
            Pruned::New(message, done) => {
                assert_ne!(message, &messages[i]);
                assert!(!done.is_empty());
                new.push(i);
            }
        }
    }
    assert!(new.len() > 1, "old tool outputs pruned");
    // What the binding exports for each new form: the caller's message, changed.
    for (i, p) in pruned.iter().enumerate() {
        match (p.rendered(i), p) {
            (Some(r), Pruned::New(message, _)) => {
                assert_eq!(r.origin, Origin::Changed(i));
                assert_eq!(&r.message, message);
            }
            (r, _) => assert!(r.is_none() && !new.contains(&i)),
        }
    }
    // The binding's values: one per new form, but two for the first one.
    let made: Vec<Vec<String>> = new
        .iter()
        .enumerate()
        .map(|(k, i)| match k {
            0 => vec![format!("p{i}a"), format!("p{i}b")],
            _ => vec![format!("p{i}")],
        })
        .collect();
    let original = |i: usize| format!("m{i}");
    let (out, forms) = state.prune_output(&ids, pruned, made, original);
    assert_eq!(out.len(), messages.len() + 1);
    assert_eq!(out[new[0]], format!("p{}a", new[0]));
    assert_eq!(out[new[0] + 1], format!("p{}b", new[0]));
    assert_eq!(out[0], "m0");
    // A form of two values is not marked; the others land one past their message.
    let landed: Vec<u32> = forms.iter().map(|(at, _)| *at).collect();
    let expected: Vec<u32> = new[1..].iter().map(|&i| i as u32 + 1).collect();
    assert_eq!(landed, expected);
    assert!(forms.iter().all(|(_, parts)| !parts.is_empty()));
    // Pruned the same way again: the same values come back.
    let again = state.prune_call(&options, &mut call, 0);
    let values: Vec<Vec<String>> = again
        .iter()
        .filter_map(|p| match p {
            Pruned::Again(v) => Some(v.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(values.len(), new.len());
    assert_eq!(values[1], vec![format!("p{}", new[1])]);
}

#[test]
fn a_call_that_changed_nothing_says_whether_it_continued() {
    let options = options(json!({}));
    let messages = history(10, 400);
    let mut state = CompactorState::<String>::new(&options);
    let ids = store_all(&mut state, &messages);
    let mut call = state.take_call((Format::Pi, ids), estimator(), true);
    assert_eq!(call.unchanged(7, "w"), unchanged_continued(7, "w", false));
    // After a committed automatic compaction, the next call continues it.
    let input = state
        .job_input(&options, &mut call, Kind::Automatic, false, None, true)
        .unwrap();
    let first_kept = input.plan.tail_start();
    let mut rendered = vec![Rendered {
        message: Message::text(Role::User, "summary"),
        origin: Origin::New,
    }];
    rendered.extend((first_kept..messages.len()).map(|i| Rendered {
        message: messages[i].clone(),
        origin: Origin::Input(i),
    }));
    let call_of = (&call, &input, Kind::Automatic);
    state.commit_call(call_of, &rendered, json!(null), |i| format!("o{i}"), None);
    let mut longer = messages.clone();
    longer.extend(history(11, 5).into_iter().skip(40));
    let ids = store_all(&mut state, &longer);
    let next = state.take_call((Format::Pi, ids), estimator(), true);
    assert!(next.continued.is_some());
    assert_eq!(next.unchanged(7, "w"), unchanged_continued(7, "w", true));
    assert_ne!(next.unchanged(7, "w"), call.unchanged(7, "w"));
}

#[test]
fn committing_a_compaction_replaces_its_digest_and_leaves_the_memo() {
    let options = options(json!({}));
    let messages = history(10, 400);
    let mut state = CompactorState::<String>::new(&options);
    let ids = store_all(&mut state, &messages);
    let mut call = state.take_call((Format::Pi, ids), estimator(), true);
    let input = state
        .job_input(&options, &mut call, Kind::Automatic, false, None, true)
        .unwrap();
    let first_kept = input.plan.tail_start();
    let mut rendered = vec![Rendered {
        message: Message::text(Role::User, "summary"),
        origin: Origin::New,
    }];
    rendered.extend((first_kept..messages.len()).map(|i| Rendered {
        message: messages[i].clone(),
        origin: Origin::Input(i),
    }));
    let mut done = Compacted {
        tokens_before: 100,
        round: 1,
        split_turn: false,
        removed: (0..first_kept).collect(),
        summary: Some("summary".into()),
        digest: json!({"filesRead": ["f0"]}),
        rendered,
        tokens_after: 10,
        state: None,
        warnings: Vec::new(),
    };
    let call_of = (&call, &input, Kind::Automatic);
    state.commit_compacted(call_of, &mut done, |i| format!("o{i}"), Some(3));
    assert_eq!(done.digest, json!({"filesRead": ["f0"]}), "nothing hidden");
    let memo = state.memo.as_ref().unwrap();
    assert_eq!(memo.head_values, vec!["o0".to_string()]);
    assert_eq!((memo.about.timestamp, state.memo_epoch), (Some(3), 1));
    assert_eq!(memo.about.digest, done.digest);
}

#[test]
fn finishing_a_prune_gives_the_messages_back_to_the_store() {
    let options =
        options(json!({"prune": {"style": "opencode", "protectTokens": 500, "minimum": 50}}));
    let messages = history(8, 300);
    let mut state = CompactorState::<String>::new(&options);
    let ids = store_all(&mut state, &messages);
    let mut call = state.take_call((Format::Pi, ids.clone()), estimator(), false);
    let pruned = state.prune_call(&options, &mut call, 0);
    let new = pruned
        .iter()
        .filter(|p| matches!(p, Pruned::New(..)))
        .count();
    assert!(new > 0);
    let made: Vec<Vec<String>> = (0..new).map(|k| vec![format!("p{k}")]).collect();
    let original = |i: usize| format!("m{i}");
    let (out, forms) = state.finish_prune(call, pruned, made, original);
    assert_eq!((out.len(), forms.len()), (messages.len(), new));
    assert_eq!(out[0], "m0");
    // The call's messages went back unchanged: the next call over them takes the same.
    let again = state.take_call((Format::Pi, ids), estimator(), false);
    assert_eq!(again.messages, messages);
}

#[test]
fn trim_refuses_the_compactors_own_settings() {
    for key in ["tokenizer", "format"] {
        let e = trim_options(&json!({"maxTokens": 10, key: "x"})).unwrap_err();
        assert_eq!(
            (e.code, e.path.as_deref()),
            (ErrorCode::InvalidOptions, Some(key))
        );
    }
    assert_eq!(
        trim_options(&json!({"maxTokens": 10})).unwrap().max_tokens,
        10
    );
    let e = trim_options(&json!({})).unwrap_err();
    assert_eq!(e.path.as_deref(), Some("maxTokens"));
}

#[test]
fn a_trimmed_call_renders_the_kept_tail_and_gives_the_messages_back() {
    let options = options(json!({}));
    let messages = history(10, 400);
    let mut state = CompactorState::<()>::new(&options);
    let ids = store_all(&mut state, &messages);
    let call = state.take_call((Format::Pi, ids.clone()), estimator(), false);
    let budget = call.estimate.total / 3;
    let trim = trim_options(&json!({ "maxTokens": budget })).unwrap();
    let rendered = state.trim_call(call, &trim).unwrap();
    let index = |r: &Rendered| match r.origin {
        Origin::Input(i) | Origin::Changed(i) => i,
        Origin::New => usize::MAX,
    };
    let kept: Vec<usize> = rendered.iter().map(index).collect();
    // The tail that fits, in order, ending on the last message.
    assert!(!kept.is_empty() && kept.len() < messages.len());
    assert!(kept.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(kept.last(), Some(&(messages.len() - 1)));
    // Given back: the next call takes them again, the same.
    let again = state.take_call((Format::Pi, ids), estimator(), false);
    assert_eq!(again.messages, messages);
}

#[test]
fn a_calls_kind_follows_maybe_compact_and_force() {
    assert_eq!(Kind::of_call(false, false), Kind::Manual);
    assert_eq!(Kind::of_call(false, true), Kind::Manual);
    assert_eq!(Kind::of_call(true, false), Kind::Automatic);
    assert_eq!(Kind::of_call(true, true), Kind::Forced);
}

#[test]
fn the_hidden_list_names_the_tool_of_a_result_without_its_name() {
    let options = options(json!({}));
    // OpenAI tool messages carry only the call's id: the name is the call's.
    let mut raw = Vec::new();
    for t in 0..10 {
        let id = format!("c{t}");
        raw.push(json!({"role": "user", "content": format!("ask {t} ").repeat(5)}));
        raw.push(json!({"role": "assistant", "content": null, "tool_calls": [{"id": id, "type": "function", "function": {"name": "read", "arguments": "{}"}}]}));
        raw.push(
            json!({"role": "tool", "tool_call_id": id, "content": format!("line{t} ").repeat(400)}),
        );
        raw.push(json!({"role": "assistant", "content": format!("done {t} ").repeat(5)}));
    }
    let messages: Vec<Message> = raw
        .iter()
        .map(|v| context_compaction::formats::openai::import_message(v, "m").unwrap())
        .collect();
    let mut state = CompactorState::<()>::new(&options);
    let ids = store_all(&mut state, &messages);
    // The tool message's result part stands for one a prune hid.
    state.mark_hidden(&ids, &[(2, vec![0])]);
    let mut call = state.take_call((Format::OpenAi, ids), estimator(), false);
    let input = (state.job_input(&options, &mut call, Kind::Manual, true, None, true)).unwrap();
    assert!(input.plan.tail_start() > 2, "the first turn is summarized");
    let digest = state.hidden_digest(&call, &input.messages, &input.plan, json!({}));
    assert_eq!(digest["hidden"][0]["message"], 2);
    assert_eq!(digest["hidden"][0]["tool"], "read");
    assert_eq!(digest["hidden"][0]["part"], 0);
    // Nothing hidden among the summarized messages (the store forgot them): the digest as it was.
    state.store.clear();
    let cleared = state.hidden_digest(&call, &input.messages, &input.plan, json!({"a": 1}));
    assert_eq!(cleared, json!({"a": 1}));
}
