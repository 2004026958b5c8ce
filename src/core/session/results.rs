//! The results and arguments of the `Session` handle's methods, as JSON, made here so that native
//! tests pin their field names: `check()`, `entries()`, `memory()`, `tornLine`, the store's
//! pending lines and a merge's outcome, a compaction's result, the log's part; the options
//! `compact()` and `prepare()` take, and what `prepare()` does next. The binding only converts.

use serde_json::{json, Value};

use super::{Merged, Session};
use crate::core::error::{Error, Result};
use crate::core::estimate::{Learned, Usage};
use crate::core::options::Options;
use crate::core::pipeline::{Compacted, Kind, Prepare};
use crate::core::surrogates::escaped;
use crate::core::trigger::TriggerInput;

/// The keys `compact()` takes.
pub const COMPACT_KEYS: [&str; 3] = ["instructions", "signal", "force"];
/// The keys `prepare()` takes.
pub const PREPARE_KEYS: [&str; 7] = [
    "instructions",
    "signal",
    "force",
    "now",
    "cacheControl",
    "reservedCachePoints",
    "background",
];

/// `check()`: `{ shouldCompact, tokens, tokensError, threshold, reason, background,
/// calibration }` in O(1); `calibration` shows the session's learned calibration (or the
/// options' starting one for an empty session) for the options' provider
/// ([`crate::core::report::calibration_json`]).
pub fn check(session: Option<&Session>, options: &Options) -> Value {
    let calibration = |l: &Learned| crate::core::report::calibration_json(l, options.profile.name);
    let Some(s) = session else {
        let budget = options.settings.budget;
        let d = options
            .settings
            .trigger
            .evaluate(&TriggerInput::new(&[], 0, budget));
        let learned = Learned::new(options.profile.error);
        return json!({
            "shouldCompact": false, "tokens": 0, "tokensError": 0, "threshold": d.threshold,
            "reason": d.reason, "background": false, "calibration": calibration(&learned),
        });
    };
    let (d, pressure) = s.pressure();
    json!({
        "shouldCompact": d.should_compact,
        "tokens": s.tokens(),
        "tokensError": s.tokens_error(),
        "threshold": d.threshold,
        "reason": d.reason,
        "background": pressure == super::Pressure::Soft,
        "calibration": calibration(s.calibration()),
    })
}

/// `recordUsage(usage)`: the provider's usage read ([`Usage::parse`]) and recorded; returns
/// the entry id. `INVALID_INPUT` for an empty session (usage belongs to appended messages).
pub fn record_usage(session: Option<&mut Session>, usage: &Value) -> Result<String> {
    let usage = Usage::parse(usage, "usage")?;
    let why = "record usage after appending the messages it belongs to";
    let session = session.ok_or_else(|| Error::invalid_input("usage", why))?;
    Ok(session.record_usage(usage))
}

/// `addNote(text)`: returns the note's entry id. `INVALID_INPUT` for an empty session.
pub fn add_note(session: Option<&mut Session>, text: String) -> Result<String> {
    let why = "add notes after the first message";
    let session = session.ok_or_else(|| Error::invalid_input("note", why))?;
    Ok(session.add_note(text))
}

/// `branch(entryId)`: a new session `id` from entry `entry_id` ([`Session::branch_at`]).
/// `INVALID_INPUT` for an empty session.
pub fn branch(session: Option<&Session>, entry_id: Option<&str>, id: String) -> Result<Session> {
    let why = "the session is empty";
    let session = session.ok_or_else(|| Error::invalid_input("session", why))?;
    session.branch_at(entry_id, id)
}

/// `entries()`: every entry as [`super::Entry::listing`] gives it, oldest first.
pub fn entries(session: Option<&Session>) -> Value {
    Value::Array(session.map_or_else(Vec::new, |s| s.log().iter().map(|e| e.listing()).collect()))
}

/// `memory()`: `{ summary, notes, text }` (`text`: what to put in the system prompt).
pub fn memory(session: Option<&Session>) -> Value {
    let block = session.map(Session::notes).unwrap_or_default();
    json!({"summary": block.summary, "notes": block.notes, "text": block.text()})
}

/// `tornLine`: `{ line, error }` of the torn last line the loader left out, if any.
pub fn torn_line(session: Option<&Session>) -> Option<Value> {
    let (line, error) = session?.load_report().torn_line.clone()?;
    Some(json!({"line": line, "error": error}))
}

/// The store's next write: `{ header?, lines: [{ id, line }], live?, liveEpoch? }`, lines as
/// JSON text with lone surrogates as `\udXXX` escapes.
pub fn pending(session: Option<&Session>) -> Value {
    let Some(s) = session else {
        return json!({"lines": []});
    };
    let pending = s.pending();
    let lines: Vec<Value> = pending
        .entries
        .iter()
        .map(|e| json!({"id": e.id, "line": escaped(e.line().into_owned())}))
        .collect();
    let mut out = serde_json::Map::new();
    out.insert("lines".into(), Value::Array(lines));
    if let Some(h) = pending.header {
        out.insert("header".into(), json!(escaped(h.to_string())));
    }
    if let Some(live) = &pending.live {
        out.insert(
            "live".into(),
            json!({"from": live.from, "carry": live.carry}),
        );
        out.insert("liveEpoch".into(), json!(pending.live_epoch));
    }
    Value::Object(out)
}

/// A store merge's outcome: `{ merged, dropped: [{ id, type }] }`.
pub fn merged(merged: &Merged) -> Value {
    let dropped: Vec<Value> = merged
        .dropped
        .iter()
        .map(|(id, kind)| json!({"id": id, "type": kind}))
        .collect();
    json!({"merged": merged.merged, "dropped": dropped})
}

/// A committed compaction's result: the pipeline's, with the compaction entry's `entryId` and
/// the workstream `state` after it.
pub fn committed(done: &Compacted, entry_id: &str) -> Value {
    let mut result = done.result();
    if let Some(fields) = result.as_object_mut() {
        fields.insert("entryId".into(), entry_id.into());
        fields.insert("state".into(), done.state.clone().into());
    }
    result
}

/// A compaction that changed nothing (`tokens` counted, the pipeline's `warning`): the result
/// of [`crate::core::report::unchanged`], with `entryId: null`.
pub fn unchanged(tokens: usize, warning: &str) -> Value {
    let mut result = crate::core::report::unchanged(tokens, warning);
    if let Some(fields) = result.as_object_mut() {
        fields.insert("entryId".into(), Value::Null);
    }
    result
}

/// A whole count argument (`from`, `maxBytes` of `toJSONLPart`): `None` when not given
/// (`value` `None`), else a non-negative safe integer (`NaN` stands for a value not a number).
pub fn count_arg(value: Option<f64>, path: &str) -> Result<Option<usize>> {
    match value {
        None => Ok(None),
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= 9_007_199_254_740_991.0 => {
            Ok(Some(n as usize))
        }
        Some(_) => Err(Error::invalid_input(
            path,
            format!("{path} must be a non-negative integer"),
        )),
    }
}

/// `prepare()`'s own options (`None`: not given; `Some(None)`: given, of another type): `now` a
/// finite time in milliseconds; `background` a boolean (default `true`). Returns what
/// `js/driver.mjs` reads: `{ force, background }`.
pub fn prepare_options(
    now: Option<Option<f64>>,
    background: Option<Option<bool>>,
    force: bool,
) -> Result<Value> {
    if now.is_some_and(|n| !n.is_some_and(f64::is_finite)) {
        return Err(Error::invalid_option(
            "now",
            "now must be a finite time in milliseconds",
        ));
    }
    let background = background
        .unwrap_or(Some(true))
        .ok_or_else(|| Error::invalid_option("background", "must be a boolean"))?;
    Ok(json!({"force": force, "background": background}))
}

/// The options of a call of `method`, read ([`prepare_options`]) for `prepare()`; `None` for
/// `compact()`, whose options are read as the compaction starts.
pub fn call_options(
    method: &str,
    now: Option<Option<f64>>,
    background: Option<Option<bool>>,
    force: bool,
) -> Result<Option<Value>> {
    match method {
        "compact" => Ok(None),
        _ => prepare_options(now, background, force).map(Some),
    }
}

/// The keys the options of `method` take: `"compact"`'s ([`COMPACT_KEYS`]) or `prepare()`'s.
pub fn call_keys(method: &str) -> &'static [&'static str] {
    match method {
        "compact" => &COMPACT_KEYS,
        _ => &PREPARE_KEYS,
    }
}

/// `toJSONLPart(from, maxBytes)`'s arguments ([`count_arg`]): the first entry (0 when not
/// given) and the part's size in bytes (1 MiB when not given).
pub fn part_arguments(from: Option<f64>, max_bytes: Option<f64>) -> Result<(usize, usize)> {
    let from = count_arg(from, "from")?.unwrap_or(0);
    Ok((from, count_arg(max_bytes, "maxBytes")?.unwrap_or(1 << 20)))
}

/// `toJSONLPart`'s result without its text (`""`, which the binding sets: the log's text
/// crosses as it is): `{ text, next }`, `next` the entry the next part starts at (`null`: the
/// log is written).
pub fn part(next: Option<usize>) -> Value {
    json!({"text": "", "next": next})
}

/// `toJSONLPart(from, maxBytes)` of `session` (`None`: empty, an empty part), the arguments
/// read by [`part_arguments`]: the part's text (lone surrogates written as the `\udXXX`
/// escapes `JSON.stringify` writes) and the result without it ([`part`]).
pub fn jsonl_part(
    session: Option<&Session>,
    from: Option<f64>,
    max_bytes: Option<f64>,
) -> Result<(String, Value)> {
    let (from, max_bytes) = part_arguments(from, max_bytes)?;
    let (text, next) = session
        .map(|s| s.jsonl_part(from, max_bytes))
        .unwrap_or_default();
    Ok((
        crate::core::surrogates::marks_to_escapes_owned(text),
        part(next),
    ))
}

/// `append`'s argument is neither a message nor an array of messages: `INVALID_INPUT`.
pub fn not_messages() -> Error {
    let why = "append takes a message or an array of messages";
    Error::invalid_input("messages", why)
}

/// The text argument of `fromJSONL` or `fromSessionFile` at `path` is neither a string nor an
/// iterable (`js_type`: what it is): `INVALID_INPUT`.
pub fn not_text(path: &str, js_type: &str) -> Error {
    let why = format!("expected a string or an iterable of strings, got {js_type}");
    Error::invalid_input(path, why)
}

/// Piece `i` of the iterable text argument at `path` is not a string: `INVALID_INPUT` at
/// `path[i]`.
pub fn not_a_piece(path: &str, i: usize, js_type: &str) -> Error {
    let why = format!("each piece must be a string, got {js_type}");
    Error::invalid_input(format!("{path}[{i}]"), why)
}

/// A kind of compaction as `js/driver.mjs` names it ("manual" for any other name).
pub fn kind_named(name: &str) -> Kind {
    match name {
        "automatic" => Kind::Automatic,
        "forced" => Kind::Forced,
        "background" => Kind::Background,
        _ => Kind::Manual,
    }
}

/// The name of `kind` ([`kind_named`] reads it back).
pub fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Manual => "manual",
        Kind::Automatic => "automatic",
        Kind::Forced => "forced",
        Kind::Background => "background",
    }
}

/// What `prepare()` does, as `js/driver.mjs` reads it: `{ action: "compact", kind,
/// unlessRelieved }`, `{ action: "background" }` or `{ action: "render" }`.
pub fn prepare_action(action: Prepare) -> Value {
    match action {
        Prepare::Compact {
            kind,
            unless_relieved,
        } => {
            json!({"action": "compact", "kind": kind_name(kind), "unlessRelieved": unless_relieved})
        }
        Prepare::Background => json!({"action": "background"}),
        Prepare::Render => json!({"action": "render"}),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::core::error::ErrorCode;
    use crate::core::message::{Message, Role};
    use crate::core::session::Config;

    fn options() -> Options {
        crate::core::options::parse(&json!({"contextWindow": 100_000})).unwrap()
    }

    fn session() -> Session {
        let config = Config::heuristic(options().settings);
        let mut s = Session::new(config, "s".into(), "ai-sdk".into());
        s.append(vec![
            Message::text(Role::User, "hello there"),
            Message::text(Role::Assistant, "hi"),
        ]);
        s
    }

    fn keys(v: &Value) -> Vec<&str> {
        let mut k: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        k.sort_unstable();
        k
    }

    #[test]
    fn check_has_the_same_fields_with_and_without_a_session() {
        let fields = [
            "background",
            "calibration",
            "reason",
            "shouldCompact",
            "threshold",
            "tokens",
            "tokensError",
        ];
        let o = options();
        let empty = check(None, &o);
        assert_eq!(keys(&empty), fields);
        assert_eq!(empty["tokens"], 0);
        let s = session();
        let full = check(Some(&s), &o);
        assert_eq!(full["calibration"]["provider"], o.profile.name);
        assert_eq!(keys(&full), fields);
        assert_eq!(full["tokens"], s.tokens());
        assert_eq!(full["threshold"], empty["threshold"]);
        assert_eq!(full["shouldCompact"], false);
    }

    #[test]
    fn entries_memory_and_the_store_s_pending_lines() {
        let mut s = session();
        assert_eq!(entries(Some(&s)).as_array().unwrap().len(), 2);
        assert_eq!(entries(None), json!([]));
        s.add_note("the user prefers tabs".into());
        let m = memory(Some(&s));
        assert_eq!(keys(&m), ["notes", "summary", "text"]);
        assert_eq!(m["notes"], json!(["the user prefers tabs"]));
        assert_eq!(memory(None)["text"], Value::Null);
        let p = pending(Some(&s));
        assert_eq!(p["lines"].as_array().unwrap().len(), 3);
        assert_eq!(p["lines"][0]["id"], "e1");
        assert!(p["header"].as_str().unwrap().contains("\"ai-sdk\""));
        assert_eq!(pending(None), json!({"lines": []}));
        assert_eq!(torn_line(Some(&s)), None);
    }

    #[test]
    fn an_empty_session_takes_no_usage_note_or_branch() {
        let usage = json!({"inputTokens": 10, "outputTokens": 2});
        let e = record_usage(None, &usage).unwrap_err();
        assert_eq!(
            (e.code, e.path.as_deref()),
            (ErrorCode::InvalidInput, Some("usage"))
        );
        // The usage is read first: a bad one is refused as such.
        assert!(record_usage(None, &json!("x")).unwrap_err().message != e.message);
        let e = add_note(None, "n".into()).unwrap_err();
        assert_eq!(e.path.as_deref(), Some("note"));
        let e = branch(None, None, "b".into()).err().unwrap();
        assert_eq!(e.path.as_deref(), Some("session"));
        let mut s = session();
        assert!(record_usage(Some(&mut s), &usage).is_ok());
        let note = add_note(Some(&mut s), "n".into()).unwrap();
        assert_eq!(s.log().last().map(|e| e.id.as_str()), Some(note.as_str()));
        let b = branch(Some(&s), None, "b".into()).unwrap();
        assert_eq!(b.header().id, "b");
    }

    #[test]
    fn a_merge_lists_what_it_dropped() {
        let m = Merged {
            merged: 2,
            dropped: vec![("e3".into(), "compaction")],
        };
        assert_eq!(
            merged(&m),
            json!({"merged": 2, "dropped": [{"id": "e3", "type": "compaction"}]})
        );
    }

    #[test]
    fn count_arguments_are_whole_and_not_negative() {
        assert_eq!(count_arg(None, "from").unwrap(), None);
        assert_eq!(count_arg(Some(3.0), "from").unwrap(), Some(3));
        for bad in [-1.0, 1.5, f64::NAN, 1e300] {
            let e = count_arg(Some(bad), "maxBytes").unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidInput);
            assert_eq!(e.path.as_deref(), Some("maxBytes"));
        }
    }

    #[test]
    fn prepare_options_check_now_and_background() {
        let read = prepare_options(None, None, false).unwrap();
        assert_eq!(read, json!({"force": false, "background": true}));
        let read = prepare_options(Some(Some(5.0)), Some(Some(false)), true).unwrap();
        assert_eq!(read, json!({"force": true, "background": false}));
        for now in [None, Some(f64::NAN), Some(f64::INFINITY)] {
            let e = prepare_options(Some(now), None, false).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidOptions);
            assert_eq!(e.path.as_deref(), Some("now"));
        }
        let e = prepare_options(None, Some(None), false).unwrap_err();
        assert_eq!(e.path.as_deref(), Some("background"));
        assert_eq!(
            call_options("compact", Some(None), None, false).unwrap(),
            None
        );
        let read = call_options("prepare", None, None, true).unwrap();
        assert_eq!(read, Some(json!({"force": true, "background": true})));
        assert!(call_options("prepare", Some(None), None, false).is_err());
        assert_eq!(call_keys("compact"), COMPACT_KEYS);
        assert_eq!(call_keys("prepare"), PREPARE_KEYS);
    }

    #[test]
    fn a_log_part_starts_at_entry_0_and_holds_1_mib_unless_told() {
        assert_eq!(part_arguments(None, None).unwrap(), (0, 1 << 20));
        assert_eq!(part_arguments(Some(4.0), Some(10.0)).unwrap(), (4, 10));
        let e = part_arguments(Some(1.0), Some(-1.0)).unwrap_err();
        assert_eq!(e.path.as_deref(), Some("maxBytes"));
        assert_eq!(part(Some(3)), json!({"text": "", "next": 3}));
        assert_eq!(part(None)["next"], Value::Null);
        let (text, result) = jsonl_part(None, None, None).unwrap();
        assert_eq!((text.as_str(), result), ("", part(None)));
        let s = session();
        let (text, result) = jsonl_part(Some(&s), Some(0.0), None).unwrap();
        assert_eq!(text.lines().count(), 3, "the header and two entries");
        assert_eq!(result["next"], Value::Null);
        let e = jsonl_part(Some(&s), Some(0.5), None).unwrap_err();
        assert_eq!(e.path.as_deref(), Some("from"));
    }

    #[test]
    fn a_text_argument_that_is_not_text_names_the_piece() {
        let e = not_messages();
        assert_eq!(
            (e.code, e.path.as_deref()),
            (ErrorCode::InvalidInput, Some("messages"))
        );
        let e = not_text("text", "number");
        assert_eq!(
            (e.code, e.path.as_deref()),
            (ErrorCode::InvalidInput, Some("text"))
        );
        assert!(
            e.message.contains("iterable of strings, got number"),
            "{}",
            e.message
        );
        let e = not_a_piece("text", 2, "object");
        assert_eq!(e.path.as_deref(), Some("text[2]"));
        assert!(
            e.message.contains("must be a string, got object"),
            "{}",
            e.message
        );
    }

    #[test]
    fn kinds_and_actions_by_name() {
        for kind in [
            Kind::Manual,
            Kind::Automatic,
            Kind::Forced,
            Kind::Background,
        ] {
            assert_eq!(kind_named(kind_name(kind)), kind);
        }
        let compact = Prepare::Compact {
            kind: Kind::Forced,
            unless_relieved: true,
        };
        assert_eq!(
            prepare_action(compact),
            json!({"action": "compact", "kind": "forced", "unlessRelieved": true})
        );
        assert_eq!(prepare_action(Prepare::Render), json!({"action": "render"}));
        let nothing = unchanged(0, crate::core::pipeline::NOTHING_TO_COMPACT);
        assert_eq!(nothing["entryId"], Value::Null);
        assert_eq!(nothing["compacted"], false);
    }
}
