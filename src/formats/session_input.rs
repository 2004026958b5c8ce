//! What enters a session's log in a message format, for the `Session` handle:
//! - the caller's appended messages ([`append`]): in the format given in the options, or shown
//!   by the messages logged so far, or detected; plain text alone is taken as `ai-sdk`
//!   provisionally, and the first append that shows the format decides it
//!   (`core::session::provisional`). A message whose format records no time is stamped with the
//!   time of the append, so that cache-lifetime pruning can age it;
//! - a compaction's commit ([`commit`]), followed by the style's continue message when the kind
//!   continues, logged as if the caller had appended it (exported and read back in the format);
//! - a log read back a piece at a time ([`log_reader`], `fromJSONL`);
//! - the lines a store holds that this session lacks ([`merge`]).

use serde_json::Value;

use super::detect::detect_messages_decided;
use super::{message_importer, Codec, Format};
use crate::core::error::{Error, Result};
use crate::core::message::Message;
use crate::core::pipeline::Compacted;
use crate::core::plan::Plan;
use crate::core::session::loader::{LoadOptions, LogReader};
use crate::core::session::{Config, Header, Outcome, Session, Snapshot};

/// Reads one message of a format.
pub type Importer = fn(&Value, &str) -> Result<Message>;

/// What a session made by the first append starts with.
pub struct Fresh {
    /// Its configuration.
    pub config: Config,
    /// Its id.
    pub id: String,
    /// The tag of its entry ids when a store shares the log.
    pub tag: Option<String>,
}

/// Appends `values` (the caller's messages as JSON) to `slot`, making the session when it is
/// `None` (from `fresh`; needed when `slot` is `None` and either `values` is not empty or the
/// format is `given`: an empty append then makes the session). `given`: the
/// format of the options. `now`: the time of the append (milliseconds since the Unix epoch).
/// `grow` runs before each large allocation (the binding grows its memory ahead). Returns the new
/// entries' ids; a refused message changes nothing.
pub fn append(
    slot: &mut Option<Session>,
    fresh: Option<Fresh>,
    given: Option<Format>,
    values: &[Value],
    now: i64,
    grow: &dyn Fn(),
) -> Result<Vec<String>> {
    let decided = slot.as_ref().is_none_or(Session::format_decided);
    let mut provisional = false;
    // The appended message that decides the format of a provisional session.
    let mut decide = None;
    let format = match super::session_context::format_of(slot.as_ref(), given) {
        Some(f) if decided || given.is_some() => f,
        None if values.is_empty() => return Ok(Vec::new()),
        known => {
            let d = detect_messages_decided(&values.iter().collect::<Vec<_>>())?;
            match (known, d.decided, slot.is_some()) {
                (Some(f), false, _) => f,
                (_, false, _) => {
                    provisional = true;
                    d.format
                }
                (_, true, true) => {
                    decide = Some(d.at.unwrap_or(0));
                    d.format
                }
                (_, true, false) => d.format,
            }
        }
    };
    let import = message_importer(format);
    grow();
    let messages: Vec<Message> = values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let mut m = import(v, &format!("messages[{i}]"))?;
            m.timestamp.get_or_insert(now);
            Ok(m)
        })
        .collect::<Result<_>>()?;
    if let (Some(at), Some(core)) = (decide, slot.as_mut()) {
        // After the messages read: a refusal changes nothing.
        core.decide_format(format.as_str(), at, &import)?;
    }
    if slot.is_none() {
        let Some(fresh) = fresh else {
            return Err(Error::invalid_input("session", "the session is empty"));
        };
        let mut core = Session::new(fresh.config, fresh.id, format.as_str().to_string());
        core.set_id_tag(fresh.tag);
        if provisional {
            core.set_provisional();
        }
        *slot = Some(core);
    }
    grow();
    Ok(slot
        .as_mut()
        .map(|c| c.append(messages))
        .unwrap_or_default())
}

/// Commits a compaction planned from `snapshot` (the core's rule), at `now`; then, when
/// `continues` names the session's format, appends the style's continue message. Returns the
/// compaction entry's id.
pub fn commit(
    session: &mut Session,
    snapshot: &Snapshot,
    plan: &Plan,
    done: &Compacted,
    now: i64,
    continues: Option<Format>,
) -> Result<String> {
    let outcome = Outcome {
        summary: done.summary.clone(),
        tokens_after: done.tokens_after,
        round: done.round,
        digest: done.digest.clone(),
        state: done.state.clone(),
        timestamp: Some(now),
    };
    let id = session.commit(snapshot, plan, &outcome)?;
    let continued = continues.and_then(|format| {
        let exported = format.export(&[session.continue_message()?]).pop()?;
        message_importer(format)(&exported, "continue").ok()
    });
    if let Some(message) = continued {
        session.append(vec![message]);
    }
    Ok(id)
}

/// The importer of the format a log's header names.
fn importer_of(header: &Header) -> Result<Importer> {
    let format = Format::parse(&header.format)?.ok_or_else(|| {
        Error::invalid_input("lines[0].format", "the header must name a message format")
    })?;
    Ok(message_importer(format))
}

/// A reader of a session log fed a piece at a time (`strict`: refuse a torn last line), with
/// lone-surrogate escapes read as the core's marks.
pub fn log_reader(strict: bool) -> LogReader<fn(&Header) -> Result<Importer>, Importer> {
    let options = LoadOptions {
        strict,
        map: Some(crate::core::surrogates::escapes_to_marks),
    };
    LogReader::new(options, importer_of)
}

/// Merges the lines other writers stored (`header` is the store's; both JSON text with lone
/// surrogates as `\udXXX` escapes) into `slot`; a session with nothing appended yet becomes what
/// the store holds (made with `config`, given whenever `slot` is `None`; entry ids tagged `tag`). Returns the result
/// (`{ merged, dropped }`) and, for each entry of the merged log, its index in the log before
/// (`None`: new), so that the binding's objects of the entries follow them.
pub fn merge(
    slot: &mut Option<Session>,
    header: String,
    lines: Vec<String>,
    config: Option<Config>,
    tag: Option<String>,
) -> Result<(Value, Vec<Option<usize>>)> {
    let header = crate::core::surrogates::marked(header);
    let lines: Vec<String> = lines
        .into_iter()
        .map(crate::core::surrogates::marked)
        .collect();
    let format = match slot.as_ref() {
        Some(s) => s.header().format.clone(),
        None => Header::read(&header)?.format,
    };
    let format = Format::parse(&format)?.ok_or_else(|| {
        Error::invalid_input("header.format", "the header must name a message format")
    })?;
    let import = message_importer(format);
    let Some(core) = slot.as_mut() else {
        // Nothing appended here yet: the session is what the store holds.
        let mut text = header;
        for l in &lines {
            text.push('\n');
            text.push_str(l);
        }
        let config = config.ok_or_else(|| Error::invalid_input("session", "no configuration"))?;
        let mut core = Session::from_jsonl(&text, config, &import)?;
        core.set_id_tag(tag);
        let fresh = vec![None; core.log().len()];
        *slot = Some(core);
        let result = serde_json::json!({"merged": lines.len(), "dropped": []});
        return Ok((result, fresh));
    };
    // The entries not stored yet move: each keeps its object, found by id.
    let stored = core.stored();
    let before: std::collections::HashMap<String, usize> = core
        .log()
        .iter()
        .enumerate()
        .skip(stored)
        .map(|(i, e)| (e.id.clone(), i))
        .collect();
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let merged = core.merge_remote(&header, &refs, &import)?;
    let moved = core
        .log()
        .iter()
        .enumerate()
        .map(|(i, e)| match i < stored {
            true => Some(i),
            false => before.get(&e.id).copied(),
        })
        .collect();
    Ok((crate::core::session::results::merged(&merged), moved))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::core::estimate::{Counter, Estimator};
    use serde_json::json;

    fn config() -> Config {
        let options = crate::core::options::parse(&json!({"contextWindow": 100_000})).unwrap();
        Config::heuristic(options.settings)
    }

    fn fresh() -> Option<Fresh> {
        Some(Fresh {
            config: config(),
            id: "s".into(),
            tag: Some("k1".into()),
        })
    }

    fn plain() -> Vec<Value> {
        vec![
            json!({"role": "user", "content": "read src/lib.rs"}),
            json!({"role": "assistant", "content": "Reading it."}),
        ]
    }

    fn anthropic_tools() -> Vec<Value> {
        vec![
            json!({"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "src/lib.rs"}}]}),
            json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "pub fn f() {}"}]}),
        ]
    }

    #[test]
    fn plain_text_starts_a_provisional_session_and_the_first_marked_append_decides_it() {
        let mut slot = None;
        let grown = std::cell::Cell::new(0);
        let grow = || grown.set(grown.get() + 1);
        assert!(append(&mut slot, None, None, &[], 5, &grow)
            .unwrap()
            .is_empty());
        assert!(slot.is_none());
        let ids = append(&mut slot, fresh(), None, &plain(), 5, &grow).unwrap();
        assert_eq!(ids, ["e1.k1", "e2.k1"]);
        assert_eq!(grown.get(), 2);
        let s = slot.as_ref().unwrap();
        assert_eq!(s.header().format, "ai-sdk");
        assert!(!s.format_decided());
        // Stamped with the time of the append.
        assert!(s.messages().iter().all(|m| m.timestamp == Some(5)));
        append(&mut slot, None, None, &anthropic_tools(), 6, &grow).unwrap();
        let s = slot.as_ref().unwrap();
        assert!(s.format_decided());
        assert_eq!(s.header().format, "anthropic");
        assert_eq!(s.messages().len(), 4);
    }

    #[test]
    fn a_given_format_is_used_and_a_refused_message_changes_nothing() {
        let mut slot = None;
        let grow = || {};
        let given = Some(Format::Anthropic);
        // An empty append with a given format makes the (empty) session.
        assert!(append(&mut slot, fresh(), given, &[], 1, &grow)
            .unwrap()
            .is_empty());
        assert_eq!(slot.as_ref().unwrap().log().len(), 0);
        append(&mut slot, None, given, &plain(), 1, &grow).unwrap();
        let s = slot.as_ref().unwrap();
        assert_eq!(s.header().format, "anthropic");
        assert!(s.format_decided());
        let version = s.version();
        let bad = vec![json!({"role": "user", "content": "ok"}), json!({"role": 7})];
        let e = append(&mut slot, None, given, &bad, 2, &grow).unwrap_err();
        assert_eq!(e.path.as_deref(), Some("messages[1].role"));
        assert_eq!(slot.as_ref().unwrap().version(), version);
    }

    #[test]
    fn a_log_reads_back_a_piece_at_a_time() {
        let mut slot = None;
        append(&mut slot, fresh(), None, &plain(), 1, &|| {}).unwrap();
        let text = slot.as_ref().unwrap().to_jsonl();
        let mut reader = log_reader(false);
        for piece in text.as_bytes().chunks(7) {
            reader.push(piece).unwrap();
        }
        let loaded = reader.finish().unwrap().unwrap();
        assert_eq!(Session::from_loaded(config(), loaded).messages().len(), 2);
        assert!(log_reader(true).finish().unwrap().is_none());
    }

    #[test]
    fn a_store_s_lines_make_an_empty_session_and_merge_into_one_keeping_the_pending_entries() {
        let mut theirs = None;
        append(&mut theirs, fresh(), None, &plain(), 1, &|| {}).unwrap();
        let text = theirs.as_ref().unwrap().to_jsonl();
        let mut lines = text.lines().map(str::to_string);
        let header = lines.next().unwrap();
        let lines: Vec<String> = lines.collect();
        // Nothing here yet: the session is what the store holds.
        let mut slot = None;
        let (result, moved) = merge(
            &mut slot,
            header.clone(),
            lines.clone(),
            Some(config()),
            None,
        )
        .unwrap();
        assert_eq!(result, json!({"merged": 2, "dropped": []}));
        assert_eq!(moved, [None, None]);
        // A session holding the same header and one pending entry of its own.
        let mut mine =
            Session::from_jsonl(&header, config(), &message_importer(Format::AiSdk)).unwrap();
        mine.set_id_tag(Some("k2".into()));
        mine.append(vec![Message::text(
            crate::core::message::Role::User,
            "mine",
        )]);
        let mut slot = Some(mine);
        let (result, moved) = merge(&mut slot, header, lines, None, None).unwrap();
        assert_eq!(result["merged"], 2);
        let log = slot.as_ref().unwrap().log();
        assert_eq!(log.len(), 3);
        // The pending entry (index 0 before) moved after the stored ones, keeping its object.
        let at = log.iter().position(|e| e.id == "e1.k2").unwrap();
        assert_eq!(moved[at], Some(0));
        assert_eq!(moved.iter().flatten().count(), 1);
    }

    #[test]
    fn a_commit_appends_the_continue_message_only_when_the_kind_continues() {
        let options = crate::core::options::parse(
            &json!({"contextWindow": 100_000, "continueMessage": "Continue if you have next steps"}),
        )
        .unwrap();
        let estimator = Estimator::new(Counter::Heuristic);
        for continues in [Some(Format::AiSdk), None] {
            let config = Config {
                settings: options.settings.clone(),
                ..config()
            };
            let mut s = Session::new(config, "s".into(), "ai-sdk".into());
            let turns: Vec<Value> = (0..8)
                .map(|i| match i % 2 {
                    0 => json!({"role": "user", "content": format!("question {i} ").repeat(200)}),
                    _ => {
                        json!({"role": "assistant", "content": format!("answer {i} ").repeat(200)})
                    }
                })
                .collect();
            let import = message_importer(Format::AiSdk);
            s.append(turns.iter().map(|v| import(v, "m").unwrap()).collect());
            let planned =
                crate::core::session::planning::plan(Some(&s), &options, &estimator, true).unwrap();
            let plan = planned.prepared.plan.clone();
            let snapshot = planned.snapshot.unwrap();
            let done = Compacted {
                tokens_before: snapshot.total,
                round: 1,
                split_turn: false,
                removed: Vec::new(),
                summary: Some("what happened".into()),
                digest: Value::Null,
                rendered: Vec::new(),
                tokens_after: 10,
                state: None,
                warnings: Vec::new(),
            };
            let id = commit(&mut s, &snapshot, &plan, &done, 7, continues).unwrap();
            assert!(s.position(&id).is_some());
            let last = s.messages().last().map(|m| m.plain_text());
            let continued = last.as_deref() == Some("Continue if you have next steps");
            assert_eq!(continued, continues.is_some());
        }
    }
}
