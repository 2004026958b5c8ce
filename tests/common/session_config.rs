//! The session configuration the session tests build from options JSON (heuristic counting, no
//! background compaction, self-calibration on).
#![allow(dead_code, clippy::unwrap_used)]

use context_compaction::core::estimate::{Counter, Estimator};
use context_compaction::core::options::parse;
use context_compaction::core::session::Config;
use serde_json::Value;

/// A session configuration from Compactor options (`contextWindow` and the rest).
pub fn session_config(options: &Value) -> Config {
    Config {
        settings: parse(options).unwrap().settings,
        estimator: Estimator::new(Counter::Heuristic),
        background_tokens: None,
        calibration: Default::default(),
        self_calibration: true,
    }
}
