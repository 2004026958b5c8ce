//! A session's live context in its message format, as the `Session` handle gives it out: each
//! message a [`Slot`], either the caller's own object of a log entry (kept by the binding, so
//! untouched messages come back as the very same objects) or a message exported anew (a summary,
//! an altered message, the memory block at its place); the render result's other fields; and
//! which messages get Anthropic `cache_control` markers (at most 4 per request with those the
//! messages already carry).

use serde_json::{json, Value};

use super::cache_control::{count_cache_markers, with_cache_marker, MAX_CACHE_BREAKPOINTS};
use super::{Codec, Format};
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

/// The message of log entry `i` in `format`: the object it was read from, or exported anew
/// (`null` when the entry holds no message).
pub fn entry_value(session: &Session, i: usize, format: Format) -> Value {
    let Some(m) = session.log().get(i).and_then(|e| e.message()) else {
        return Value::Null;
    };
    match &m.original {
        Some(o) => o.clone(),
        None => (format.export(std::slice::from_ref(m)).into_iter().next()).unwrap_or(Value::Null),
    }
}

/// The live context: untouched messages as their entries, altered ones (summaries, pruned
/// parts) exported, and the memory block where the core places it (seed 004).
pub fn live_slots(session: &Session, format: Format) -> Vec<Slot> {
    let mut out = Vec::with_capacity(session.view().items.len() + 1);
    for item in &session.view().items {
        match &item.altered {
            None => out.push(Slot::Entry(item.entry)),
            Some(m) => {
                out.extend((format.export(std::slice::from_ref(m)).into_iter()).map(Slot::Exported))
            }
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
    (snapshot.sources.iter().enumerate())
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
    let listed: Vec<Value> = (points.iter())
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
/// holding no marker and left as it is); it is called only when markers are wanted.
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
    let messages: Vec<Option<Value>> = (0..count).map(read).collect();
    let existing = (messages.iter().flatten()).map(count_cache_markers).sum();
    (options
        .marked(points, existing, MAX_CACHE_BREAKPOINTS)
        .into_iter())
    .filter_map(|i| Some((i, with_cache_marker(messages.get(i)?.as_ref()?))))
    .collect()
}
