//! A session's live context in its message format, as the `Session` handle gives it out: each
//! message a [`Slot`], either the caller's own object of a log entry (kept by the binding, so
//! untouched messages come back as the very same objects) or a message exported anew (a summary,
//! an altered message, the memory block at its place); the render result's other fields; and
//! which messages get Anthropic `cache_control` markers (at most 4 per request with those the
//! messages already carry).

use serde_json::{json, Value};

use super::cache_control::{count_cache_markers, with_cache_marker, MAX_CACHE_BREAKPOINTS};
use super::{Codec, Format};
use crate::core::message::Original;
use crate::core::session::cache_points::RenderOptions;
use crate::core::session::{CachePoint, Session, Snapshot, Source};

/// One message of the context as the binding gives it out.
#[derive(Clone, Debug, PartialEq)]
pub enum Slot {
    /// The caller's object of log entry `i` ([`entry_value`] when the binding has none).
    Entry(usize),
    /// A message exported in the session's format.
    Exported(Value),
}

/// The session's format: the header's once there is a session, else the one given in the
/// options (`None`: not known yet).
pub fn format_of(session: Option<&Session>, given: Option<Format>) -> Option<Format> {
    session
        .and_then(|s| Format::parse(&s.header().format).ok().flatten())
        .or(given)
}

/// The message of log entry `i` in `format`: the text of the object it was read from
/// (`Ok`, parsed by the caller), or the message exported anew (`Err`; `null` when the entry
/// holds no message).
pub fn entry_value(session: &Session, i: usize, format: Format) -> Result<Original, Value> {
    let Some(m) = session.log().get(i).and_then(|e| e.message()) else {
        return Err(Value::Null);
    };
    match &m.original {
        Some(o) => Ok(o.clone()),
        None => Err(format
            .export(std::slice::from_ref(m))
            .into_iter()
            .next()
            .unwrap_or(Value::Null)),
    }
}

/// The live context: untouched messages as their entries, altered ones (summaries, pruned
/// parts) exported, and the memory block where the core places it (seed 004).
pub fn live_slots(session: &Session, format: Format) -> Vec<Slot> {
    let mut out = Vec::with_capacity(session.view().items.len() + 1);
    for item in &session.view().items {
        match &item.altered {
            None => out.push(Slot::Entry(item.entry)),
            Some(m) => out.extend(
                format
                    .export(std::slice::from_ref(m))
                    .into_iter()
                    .map(Slot::Exported),
            ),
        }
    }
    if let Some((at, m)) = session.memory() {
        for value in format.export(std::slice::from_ref(m)) {
            out.insert(at.min(out.len()), Slot::Exported(value));
        }
    }
    out
}

/// The messages of `snapshot` (a compaction's input) as slots: logged messages as their entries,
/// summaries exported anew.
pub fn snapshot_slots(session: &Session, snapshot: &Snapshot, format: Format) -> Vec<Slot> {
    let exported = |k: usize| {
        let m = snapshot.messages.get(k);
        let value = m.and_then(|m| format.export(std::slice::from_ref(m)).into_iter().next());
        Slot::Exported(value.unwrap_or(Value::Null))
    };
    snapshot
        .sources
        .iter()
        .enumerate()
        .map(|(k, source)| match source {
            Source::Entry(id) => session
                .position(id)
                .map_or_else(|| exported(k), Slot::Entry),
            Source::Summary(_) => exported(k),
        })
        .collect()
}

/// The render result without its messages, `{ tokens, cachePoints, summaryIndex, format }`, and
/// the cache points (for [`cache_markers`]).
pub fn render_result(
    session: Option<&Session>,
    format: Option<Format>,
) -> (Value, Vec<CachePoint>) {
    let (tokens, points, summary_index) = match session {
        Some(s) => (s.tokens(), s.cache_points(), s.summary_index()),
        None => (0, Vec::new(), None),
    };
    let listed: Vec<Value> = points
        .iter()
        .map(|p| json!({"index": p.index, "kind": p.kind.as_str()}))
        .collect();
    let result = json!({
        "tokens": tokens,
        "cachePoints": listed,
        "summaryIndex": summary_index,
        "format": format.map(Format::as_str),
    });
    (result, points)
}

/// The messages that get a `cache_control` marker, each with its marked form: in Anthropic
/// format with `cacheControl`, the cache points `options` allow beside the markers the `count`
/// messages already hold. `read(i)` gives message `i` as JSON (`None`: not readable, taken as
/// holding no marker and left as it is); it is called only when markers are wanted, once per
/// message and again for each marked one.
pub fn cache_markers(
    format: Option<Format>,
    options: &RenderOptions,
    points: &[CachePoint],
    count: usize,
    read: &mut dyn FnMut(usize) -> Option<Value>,
) -> Vec<(usize, Value)> {
    if format != Some(Format::Anthropic) || !options.cache_control {
        return Vec::new();
    }
    // Each message is read, counted and dropped (a long context is never held as JSON at
    // once); the few that get a marker are read again.
    let existing = (0..count)
        .filter_map(&mut *read)
        .map(|m| count_cache_markers(&m))
        .sum();
    let marked = options.marked(points, existing, MAX_CACHE_BREAKPOINTS);
    marked
        .into_iter()
        .filter_map(|i| Some((i, with_cache_marker(&read(i)?))))
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests {
    use super::*;
    use crate::core::session::CachePointKind;
    use crate::formats::message_importer;

    fn session(format: Format, values: &[Value]) -> Session {
        let options = crate::core::options::parse(&json!({"contextWindow": 100_000})).unwrap();
        let config = crate::core::session::Config::heuristic(options.settings);
        let mut s = Session::new(config, "s".into(), format.as_str().into());
        let import = message_importer(format);
        let messages = values.iter().map(|v| import(v, "m").unwrap()).collect();
        s.append(messages);
        s
    }

    fn chat() -> Vec<Value> {
        vec![
            json!({"role": "system", "content": "be brief"}),
            json!({"role": "user", "content": "read src/lib.rs"}),
            json!({"role": "assistant", "content": "Reading it."}),
        ]
    }

    #[test]
    fn untouched_messages_are_their_entries_and_the_memory_block_follows_the_system_messages() {
        let mut s = session(Format::AiSdk, &chat());
        assert_eq!(format_of(Some(&s), None), Some(Format::AiSdk));
        assert_eq!(format_of(None, Some(Format::OpenAi)), Some(Format::OpenAi));
        let slots = live_slots(&s, Format::AiSdk);
        assert_eq!(slots, vec![Slot::Entry(0), Slot::Entry(1), Slot::Entry(2)]);
        let value = entry_value(&s, 1, Format::AiSdk).map(|o| o.to_value());
        assert_eq!(value, Ok(chat()[1].clone()));
        assert_eq!(entry_value(&s, 9, Format::AiSdk).err(), Some(Value::Null));
        s.add_note("the user prefers tabs".into());
        let slots = live_slots(&s, Format::AiSdk);
        assert_eq!(slots.len(), 4);
        assert_eq!(slots[0], Slot::Entry(0));
        let Slot::Exported(memory) = &slots[1] else {
            panic!("the memory block is exported: {slots:?}");
        };
        assert_eq!(memory["role"], "system");
        assert!(memory["content"].as_str().unwrap().contains("prefers tabs"));
        assert_eq!(slots[2], Slot::Entry(1));
    }

    #[test]
    fn a_snapshot_s_logged_messages_are_their_entries() {
        let s = session(Format::AiSdk, &chat());
        let snapshot = s.snapshot();
        let slots = snapshot_slots(&s, &snapshot, Format::AiSdk);
        assert_eq!(slots, vec![Slot::Entry(0), Slot::Entry(1), Slot::Entry(2)]);
    }

    #[test]
    fn the_render_result_names_its_fields() {
        let s = session(Format::AiSdk, &chat());
        let (result, points) = render_result(Some(&s), Some(Format::AiSdk));
        let mut keys: Vec<&String> = result.as_object().unwrap().keys().collect();
        keys.sort();
        assert_eq!(keys, ["cachePoints", "format", "summaryIndex", "tokens"]);
        assert_eq!(result["tokens"], s.tokens());
        assert_eq!(result["format"], "ai-sdk");
        assert_eq!(
            result["cachePoints"].as_array().unwrap().len(),
            points.len()
        );
        let (empty, none) = render_result(None, None);
        assert_eq!(
            empty,
            json!({"tokens": 0, "cachePoints": [], "summaryIndex": null, "format": null})
        );
        assert!(none.is_empty());
    }

    #[test]
    fn cache_markers_go_on_anthropic_messages_within_the_limit() {
        let points: Vec<CachePoint> = (0..5)
            .map(|index| CachePoint {
                index,
                kind: CachePointKind::Tail,
            })
            .collect();
        let messages: Vec<Value> = (0..5)
            .map(|i| json!({"role": "user", "content": format!("m{i}")}))
            .collect();
        let options = RenderOptions {
            cache_control: true,
            reserved: 1,
        };
        let mut reads = 0;
        let mut read = |i: usize| {
            reads += 1;
            messages.get(i).cloned()
        };
        let marked = cache_markers(Some(Format::Anthropic), &options, &points, 5, &mut read);
        assert_eq!(reads, 5 + 3);
        assert_eq!(
            marked.iter().map(|(i, _)| *i).collect::<Vec<_>>(),
            [0, 1, 2]
        );
        assert_eq!(count_cache_markers(&marked[0].1), 1);
        // A marker already present counts toward the limit.
        let mut with_one = messages.clone();
        with_one[4] = with_cache_marker(&with_one[4]);
        let mut read = |i: usize| with_one.get(i).cloned();
        let marked = cache_markers(Some(Format::Anthropic), &options, &points, 5, &mut read);
        assert_eq!(marked.len(), 2);
        // Another format, or cacheControl off: no marker, and nothing read.
        let mut never = |_: usize| -> Option<Value> { panic!("read") };
        assert!(cache_markers(Some(Format::OpenAi), &options, &points, 5, &mut never).is_empty());
        let off = RenderOptions {
            cache_control: false,
            reserved: 0,
        };
        assert!(cache_markers(Some(Format::Anthropic), &off, &points, 5, &mut never).is_empty());
    }
}
