//! The summarize callback paths as JS drives them, in wasm under Node and in headless Chromium:
//! resolve, reject, throw, hang with timeout, abort.
#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use context_compaction::wasm::compactor::Compactor;
use js_sys::{Function, Object, Promise, Reflect};
use serde::Serialize;
use serde_json::json;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

#[cfg(feature = "browser-tests")]
wasm_bindgen_test_configure!(run_in_browser);

fn history() -> JsValue {
    let mut m = vec![json!({"role": "system", "content": "rules"})];
    for i in 0..20 {
        m.push(json!({"role": "user", "content": format!("task {i} ").repeat(40)}));
        m.push(json!({"role": "assistant", "content": [{"type": "tool-call", "toolCallId": format!("c{i}"), "toolName": "read", "input": {"path": format!("f{i}.rs")}}]}));
        m.push(json!({"role": "tool", "content": [{"type": "tool-result", "toolCallId": format!("c{i}"), "toolName": "read", "output": {"type": "text", "value": "x = 1;\n".repeat(200)}}]}));
        m.push(json!({"role": "assistant", "content": format!("done {i}")}));
    }
    // Plain objects, not Maps.
    m.serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .unwrap()
}

fn compactor(summarize_body: &str, extra: &[(&str, f64)]) -> Compactor {
    let options = Object::new();
    let _ = Reflect::set(
        &options,
        &"contextWindow".into(),
        &JsValue::from_f64(16_000.0),
    );
    let _ = Reflect::set(
        &options,
        &"keepRecentTokens".into(),
        &JsValue::from_f64(1_500.0),
    );
    let _ = Reflect::set(&options, &"retryDelayMs".into(), &JsValue::from_f64(1.0));
    for (k, v) in extra {
        let _ = Reflect::set(&options, &JsValue::from_str(k), &JsValue::from_f64(*v));
    }
    let f = Function::new_with_args("req", summarize_body);
    let _ = Reflect::set(&options, &"summarize".into(), &f);
    Compactor::new(options.into()).unwrap()
}

fn code(error: &JsValue) -> String {
    Reflect::get(error, &"code".into())
        .ok()
        .and_then(|c| c.as_string())
        .unwrap_or_default()
}

async fn outcome(promise: Promise) -> Result<JsValue, JsValue> {
    JsFuture::from(promise).await
}

#[wasm_bindgen_test]
async fn a_resolved_summary_compacts() {
    let c = compactor("return Promise.resolve('the summary: ' + req.purpose + ' ' + (req.signal instanceof AbortSignal))", &[]);
    let messages = history();
    let result = outcome(c.compact(messages.clone(), JsValue::UNDEFINED))
        .await
        .unwrap();
    assert_eq!(
        Reflect::get(&result, &"compacted".into()).unwrap(),
        JsValue::TRUE
    );
    let summary = Reflect::get(&result, &"summary".into())
        .unwrap()
        .as_string()
        .unwrap();
    assert!(summary.contains("true"), "{summary}");
    let out: js_sys::Array = Reflect::get(&result, &"messages".into())
        .unwrap()
        .unchecked_into();
    let input: js_sys::Array = messages.unchecked_into();
    assert_eq!(out.get(0), input.get(0), "the caller's own system message");
}

#[wasm_bindgen_test]
async fn a_rejection_and_a_throw_are_summarizer_failed() {
    let rejecting = compactor(
        "return Promise.reject(new Error('down'))",
        &[("retries", 1.0)],
    );
    let err = outcome(rejecting.compact(history(), JsValue::UNDEFINED))
        .await
        .unwrap_err();
    assert_eq!(code(&err), "SUMMARIZER_FAILED");
    let cause = Reflect::get(&err, &"cause".into()).unwrap();
    assert_eq!(
        Reflect::get(&cause, &"message".into())
            .unwrap()
            .as_string()
            .as_deref(),
        Some("down")
    );
    let throwing = compactor("throw new TypeError('sync')", &[("retries", 0.0)]);
    let err = outcome(throwing.compact(history(), JsValue::UNDEFINED))
        .await
        .unwrap_err();
    assert_eq!(code(&err), "SUMMARIZER_FAILED");
    assert!(err.is_instance_of::<js_sys::Error>());
}

#[wasm_bindgen_test]
async fn a_hang_times_out() {
    let hanging = compactor(
        "return new Promise(function () {})",
        &[("retries", 0.0), ("timeoutMs", 20.0)],
    );
    let err = outcome(hanging.compact(history(), JsValue::UNDEFINED))
        .await
        .unwrap_err();
    assert_eq!(code(&err), "TIMEOUT");
}

#[wasm_bindgen_test]
async fn an_aborted_signal_is_aborted() {
    let hanging = compactor("return new Promise(function () {})", &[]);
    let abort_signal = Reflect::get(&js_sys::global(), &"AbortSignal".into()).unwrap();
    let abort: Function = Reflect::get(&abort_signal, &"abort".into())
        .unwrap()
        .unchecked_into();
    let signal = abort.call0(&abort_signal).unwrap();
    let options = Object::new();
    let _ = Reflect::set(&options, &"signal".into(), &signal);
    let err = outcome(hanging.compact(history(), options.into()))
        .await
        .unwrap_err();
    assert_eq!(code(&err), "ABORTED");
}
