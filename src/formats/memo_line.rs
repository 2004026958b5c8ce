//! A `Compactor`'s memo (`core::compactor::Memo`, its last automatic compaction) as the line a
//! store keeps (`js/stored-compactor.mjs`, the record `core::driver::StoredMemo`): written with
//! its head exported in the caller's format, and read back into a memo whose head is imported
//! again, so a fresh process handed the same history plus new messages continues from the stored
//! summary.

use serde_json::Value;

use super::{message_importer, Codec, Format};
use crate::core::compactor::{CompactorState, Memo, MemoRecord};
use crate::core::driver::StoredMemo;
use crate::core::error::{Error, Result};
use crate::core::estimate::Estimator;
use crate::core::message::{format_iso8601_millis, parse_iso8601_millis};
use crate::core::summary::Recognizer;

/// The header line of a compactor's log in a store, for `memo`'s format.
pub fn memo_header<V>(memo: &Memo<V>) -> String {
    StoredMemo::header_line(memo.format.as_str())
}

/// `memo` as a memo line with entry id `id`; `None` when it was itself read from a store.
pub fn memo_line<V>(memo: &Memo<V>, id: &str) -> Option<String> {
    let (replaced, digest) = memo.record()?;
    let record = StoredMemo {
        format: memo.format.as_str().to_string(),
        replaced,
        digest,
        head: memo.format.export(&memo.head),
        keep_last_messages: memo.kept(),
        timestamp: memo.about.timestamp.map(format_iso8601_millis),
        summary_digest: memo.about.digest.clone(),
    };
    Some(record.to_line(id))
}

/// The memo a memo line records (`INVALID_INPUT` naming the field of a bad line); its head is
/// marked as it was when made (the summary at its head), `value` makes the binding's value of
/// each head message from its JSON.
pub fn memo_of_line<V>(
    line: &str,
    recognizer: &Recognizer,
    estimator: &Estimator,
    value: impl Fn(&Value) -> V,
) -> Result<Memo<V>> {
    let record = StoredMemo::read(line)?;
    let format = Format::parse(&record.format)?
        .ok_or_else(|| Error::invalid_input("memo.format", "must name a message format"))?;
    let import = message_importer(format);
    let mut head = record
        .head
        .iter()
        .enumerate()
        .map(|(i, v)| import(v, &format!("memo.head[{i}]")))
        .collect::<Result<Vec<_>>>()?;
    recognizer.mark_leading(&mut head);
    let values = record.head.iter().map(value).collect();
    let about = MemoRecord {
        kept: record.keep_last_messages,
        timestamp: record.timestamp.as_deref().and_then(parse_iso8601_millis),
        digest: record.summary_digest,
    };
    let stored = Some((record.replaced, record.digest));
    Ok(Memo::new(
        format,
        Default::default(),
        (head, values),
        stored,
        about,
        estimator,
    ))
}

/// Continues `state` from a memo line: the memo it records ([`memo_of_line`], marked by the
/// state's recognizer) replaces the state's; on an error the state is unchanged.
pub fn seed_memo<V>(
    state: &mut CompactorState<V>,
    line: &str,
    estimator: &Estimator,
    value: impl Fn(&Value) -> V,
) -> Result<()> {
    state.memo = Some(memo_of_line(line, &state.recognizer, estimator, value)?);
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::core::estimate::Counter;
    use serde_json::json;

    #[test]
    fn a_line_reads_back_into_the_same_head_and_record() {
        let estimator = Estimator::new(Counter::Heuristic);
        let head = vec![super::super::openai::import_message(
            &json!({"role": "user", "content": "summary of the earlier turns"}),
            "m",
        )
        .unwrap()];
        let about = MemoRecord {
            kept: 3,
            timestamp: Some(1_700_000_000_123),
            digest: json!({"filesRead": ["a.rs"]}),
        };
        let replaced = (head.clone(), vec![7u32]);
        let memo = Memo::new(
            Format::OpenAi,
            replaced,
            (head, vec![()]),
            None,
            about,
            &estimator,
        );
        let line = memo_line(&memo, "m1").unwrap();
        assert!(memo_header(&memo).contains(r#""format":"openai""#));
        let recognizer = Recognizer::standard();
        let back: Memo<Value> = memo_of_line(&line, recognizer, &estimator, Value::clone).unwrap();
        assert_eq!(back.format, Format::OpenAi);
        assert_eq!(
            back.head_values,
            vec![json!({"role": "user", "content": "summary of the earlier turns"})]
        );
        assert_eq!(back.record(), None, "read from a store: no line of its own");
        assert_eq!(back.stored, memo.record());
        assert_eq!(back.about, memo.about);
        assert_eq!(back.head.len(), 1);
        // Seeding a Compactor's state with it: the same memo; a bad line leaves it as it was.
        let options = crate::core::options::parse(&json!({ "contextWindow": 100_000 })).unwrap();
        let mut state: CompactorState<Value> = CompactorState::new(&options);
        seed_memo(&mut state, &line, &estimator, Value::clone).unwrap();
        let seeded = state.memo.as_ref().unwrap();
        assert_eq!((seeded.stored, &seeded.about), (memo.record(), &memo.about));
        assert!(seed_memo(&mut state, "{}", &estimator, Value::clone).is_err());
        assert_eq!(state.memo.as_ref().unwrap().stored, memo.record());
    }

    #[test]
    fn a_bad_format_names_the_field() {
        let estimator = Estimator::new(Counter::Heuristic);
        let line =
            json!({"type": "memo", "format": "auto", "replaced": 1, "digest": "00", "head": []});
        let err = memo_of_line(
            &line.to_string(),
            Recognizer::standard(),
            &estimator,
            |_| (),
        )
        .err()
        .unwrap();
        assert_eq!(err.path.as_deref(), Some("memo.format"));
    }
}
