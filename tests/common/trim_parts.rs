//! The pieces both trim property tests build histories and options from.
#![allow(dead_code)]

use context_compaction::core::message::{Part, Role};
use serde_json::json;

/// A `read` call with id `id`.
pub fn call(id: &str) -> Part {
    Part::ToolCall {
        id: id.into(),
        name: "read".into(),
        input: json!({ "path": id }),
    }
}

/// The result of [`call`] `id`.
pub fn result(id: &str) -> Part {
    Part::ToolResult {
        id: id.into(),
        name: None,
        output: vec![Part::text(format!("contents of {id}"))],
        is_error: false,
    }
}

/// The cost of a part in the tests: a token plus one per four characters.
pub fn part_cost(p: &Part) -> usize {
    1 + p.text_len() / 4
}

/// The roles of the bits of `mask` (system, user, assistant, tool), for `startOn`/`endOn`.
pub fn roles(mask: u8) -> Vec<Role> {
    [Role::System, Role::User, Role::Assistant, Role::Tool]
        .into_iter()
        .enumerate()
        .filter(|(i, _)| mask & (1 << i) != 0)
        .map(|(_, r)| r)
        .collect()
}
