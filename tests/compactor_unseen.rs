#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
//! How a `Compactor` imports the messages of a call its store does not hold
//! (`core::compactor::unseen`): only those are read; many cross in batches of at most
//! `BATCH_MAX`, few (or a batch the binding cannot convert together) one by one; a read that fails
//! imports nothing and names `messages[i]`; ids are set in place and the binding told of each.

use std::cell::{Cell, RefCell};

use context_compaction::core::compactor::store::{BATCH, BATCH_MAX};
use context_compaction::core::compactor::unseen::Reader;
use context_compaction::core::compactor::MessageStore;
use context_compaction::core::error::{ErrorCode, Result};
use context_compaction::core::estimate::{Counter, Estimator};
use context_compaction::formats::{message_importer, Format};
use serde_json::{json, Value};

fn messages(n: usize) -> Vec<Value> {
    (0..n)
        .map(|i| json!({ "role": if i % 2 == 0 { "user" } else { "assistant" }, "content": format!("message {i}") }))
        .collect()
}

/// Imports `values` (with `ids` already known) through a reader whose batch conversion answers
/// when `batches` is true; returns the sizes of the batches asked for and the messages converted
/// alone, in order.
fn import(
    store: &mut MessageStore<()>,
    ids: &mut [u32],
    values: &[Value],
    batches: bool,
) -> (Result<()>, Vec<usize>, Vec<usize>) {
    let (asked, alone, told) = (
        RefCell::new(Vec::new()),
        RefCell::new(Vec::new()),
        Cell::new(0),
    );
    let reader = Reader {
        read: |i: usize| values.get(i).cloned().filter(|v| !v.is_null()),
        batch: |chunk: &[(usize, Value)]| {
            asked.borrow_mut().push(chunk.len());
            batches.then(|| chunk.iter().map(|(_, v)| v.clone()).collect())
        },
        one: |i: usize, v: &Value| -> Result<Value> {
            alone.borrow_mut().push(i);
            Ok(v.clone())
        },
    };
    let unknown = ids.iter().filter(|&&id| id == 0).count();
    let estimator = Estimator::new(Counter::Heuristic);
    let importer = message_importer(Format::AiSdk);
    let result = store.import_unseen(ids, reader, importer, &estimator, |_, id| {
        assert!(id > 0);
        told.set(told.get() + 1);
    });
    if result.is_ok() {
        assert_eq!(told.get(), unknown);
    }
    (result, asked.into_inner(), alone.into_inner())
}

#[test]
fn many_unseen_cross_in_batches_and_few_one_by_one() {
    let mut store = MessageStore::default();
    let values = messages(BATCH_MAX + BATCH + 3);
    let mut ids = vec![0; values.len()];
    let (result, asked, alone) = import(&mut store, &mut ids, &values, true);
    result.unwrap();
    assert_eq!(asked, [BATCH_MAX, BATCH + 3]);
    assert!(alone.is_empty());
    assert!(ids.iter().all(|&id| id > 0));
    assert_eq!(store.len(), values.len());
    assert_eq!(store.get(ids[1]).unwrap().message.plain_text(), "message 1");

    // The next call adds a few: only they are read, one by one.
    let more = messages(values.len() + 2);
    let mut next = ids.clone();
    next.extend([0, 0]);
    let (result, asked, alone) = import(&mut store, &mut next, &more, true);
    result.unwrap();
    assert!(asked.is_empty());
    assert_eq!(alone, [values.len(), values.len() + 1]);
    assert_eq!(next[..ids.len()], ids[..]);
    assert_eq!(store.len(), more.len());
}

#[test]
fn a_batch_that_cannot_cross_together_is_converted_one_by_one() {
    let mut store = MessageStore::default();
    let values = messages(BATCH);
    let mut ids = vec![0; values.len()];
    let (result, asked, alone) = import(&mut store, &mut ids, &values, false);
    result.unwrap();
    assert_eq!(asked, [BATCH]);
    assert_eq!(alone, (0..BATCH).collect::<Vec<_>>());
    assert_eq!(store.len(), BATCH);
}

#[test]
fn a_read_that_fails_imports_nothing_and_names_the_message() {
    let mut store = MessageStore::default();
    let mut values = messages(BATCH + 1);
    values[7] = Value::Null;
    let mut ids = vec![0; values.len()];
    let (result, asked, alone) = import(&mut store, &mut ids, &values, true);
    let e = result.unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidInput);
    assert_eq!(e.path.as_deref(), Some("messages[7]"));
    assert!(asked.is_empty() && alone.is_empty());
    assert!(store.is_empty() && ids.iter().all(|&id| id == 0));
}

#[test]
fn an_import_error_names_the_message_and_keeps_the_ones_before() {
    let mut store = MessageStore::default();
    let mut values = messages(4);
    values[2] = json!({ "role": "nobody", "content": "?" });
    let mut ids = vec![0; values.len()];
    let (result, _, alone) = import(&mut store, &mut ids, &values, true);
    let e = result.unwrap_err();
    assert!(
        e.path.as_deref().unwrap().starts_with("messages[2]"),
        "{e:?}"
    );
    assert_eq!(alone, [0, 1, 2]);
    assert_eq!(store.len(), 2);
}
