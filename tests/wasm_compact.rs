//! The steps of a driven compaction (`__Driven`, what `js/driver.mjs` reads) in wasm under Node
//! and in headless Chromium: a small driver here answers them as `js/driver.mjs` does for the
//! summarize callback's paths: resolve, reject, throw, hang with timeout, abort.
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

fn call(target: &JsValue, method: &str, args: &[JsValue]) -> Result<JsValue, JsValue> {
    let f: Function = Reflect::get(target, &method.into())?.unchecked_into();
    f.apply(target, &args.iter().collect())
}

fn get(target: &JsValue, key: &str) -> JsValue {
    Reflect::get(target, &key.into()).unwrap_or(JsValue::UNDEFINED)
}

/// `{ kind, value, call }`, an event of js/driver.mjs.
fn event(kind: &str, value: &JsValue, call: &JsValue) -> JsValue {
    let e = Object::new();
    let _ = Reflect::set(&e, &"kind".into(), &kind.into());
    let _ = Reflect::set(&e, &"value".into(), value);
    let _ = Reflect::set(&e, &"call".into(), call);
    e.into()
}

/// The summarizer's end within `ms`, as js/driver.mjs reports it (one call at a time: the
/// compactions below have a single piece).
async fn ask(summarize: &Function, request: &JsValue, ms: f64, id: &JsValue) -> JsValue {
    // Each call gets its own signal, as js/driver.mjs gives it.
    let make = Function::new_no_args("return new AbortController()");
    let controller = make.call0(&JsValue::UNDEFINED).unwrap();
    let _ = Reflect::set(request, &"signal".into(), &get(&controller, "signal"));
    let answer = match summarize.call1(&JsValue::UNDEFINED, request) {
        Ok(v) => v,
        Err(e) => return event("threw", &e, id),
    };
    let late = JsValue::from(Object::new());
    let race = Function::new_with_args(
        "p, ms, late",
        "return Promise.race([Promise.resolve(p), new Promise((r) => setTimeout(() => r(late), ms))])",
    );
    let raced: Promise = race
        .call3(&JsValue::UNDEFINED, &answer, &JsValue::from_f64(ms), &late)
        .unwrap()
        .unchecked_into();
    match JsFuture::from(raced).await {
        Ok(v) if v == late => event("timedOut", &JsValue::UNDEFINED, id),
        Ok(v) => event("answer", &v, id),
        Err(e) => event("threw", &e, id),
    }
}

/// Starts `compact` (the synchronous part, `__compact`) and answers the handle's steps.
async fn compact(c: &Compactor, messages: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let driven = c.start_compaction(messages, options, false)?;
    let hooks = call(&driven, "hooks", &[])?;
    let summarize: Function = get(&hooks, "summarize").unchecked_into();
    let ms = get(&hooks, "timeoutMs").as_f64().unwrap();
    let mut pending: Option<JsValue> = None;
    let mut answer = JsValue::UNDEFINED;
    for _ in 0..100 {
        let step = call(&driven, "next", &[answer.clone()])?;
        answer = JsValue::UNDEFINED;
        match get(&step, "step").as_string().unwrap().as_str() {
            "before" => answer = event("none", &JsValue::UNDEFINED, &JsValue::UNDEFINED),
            "call" => {
                let request = get(&step, "request");
                assert!(get(&step, "delayMs").as_f64().is_some());
                pending = Some(ask(&summarize, &request, ms, &get(&step, "call")).await);
            }
            "await" => answer = pending.take().expect("a call runs"),
            "report" | "abortCalls" | "progress" | "after" => {}
            "done" if get(&step, "outcome").as_string().as_deref() == Some("rejected") => {
                return Err(get(&step, "error"))
            }
            "done" => return Ok(get(&step, "result")),
            other => panic!("unknown step {other}"),
        }
    }
    panic!("the compaction did not end")
}

#[wasm_bindgen_test]
async fn a_resolved_summary_compacts() {
    let c = compactor("return Promise.resolve('the summary: ' + req.purpose + ' ' + (req.signal instanceof AbortSignal))", &[]);
    let messages = history();
    let result = compact(&c, messages.clone(), JsValue::UNDEFINED)
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
    let err = compact(&rejecting, history(), JsValue::UNDEFINED)
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
    let err = compact(&throwing, history(), JsValue::UNDEFINED)
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
    let err = compact(&hanging, history(), JsValue::UNDEFINED)
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
    let err = compact(&hanging, history(), options.into())
        .await
        .unwrap_err();
    assert_eq!(code(&err), "ABORTED");
}
