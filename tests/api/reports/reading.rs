//! How the report tests read what the gateway answers: the balance, every page of a statement,
//! a CSV answer, and the money, fields, days and times in them.

use reqwest::header::HeaderMap;
use reqwest::StatusCode;
use serde_json::Value;

use crate::support::helpers::{answer, TestApp};

pub(super) async fn balance(app: &TestApp, token: &str) -> (i64, i64) {
    let b = answer(app.get("/v1/balance").bearer_auth(token)).await;
    assert_eq!(b.status, StatusCode::OK);
    (money(&b.body["data"]["available"]), money(&b.body["data"]["reserved"]))
}

pub(super) fn money(v: &Value) -> i64 {
    v.as_str().unwrap_or_else(|| panic!("{v} is money")).parse().unwrap()
}

/// Every statement page of `query`, followed through X-Next-Cursor: the lines, and how many pages.
pub(super) async fn statement(app: &TestApp, token: &str, query: &str) -> (Vec<Value>, usize) {
    let mut lines = Vec::new();
    let mut cursor: Option<String> = None;
    for pages in 1.. {
        let path = match &cursor {
            Some(c) => format!("/v1/ledger/entries?{query}&cursor={c}"),
            None => format!("/v1/ledger/entries?{query}"),
        };
        let a = answer(app.get(&path).bearer_auth(token)).await;
        assert_eq!(a.status, StatusCode::OK, "{path}: {}", a.body);
        lines.extend(a.body["data"].as_array().unwrap().iter().cloned());
        match a.header("x-next-cursor") {
            Some(next) => cursor = Some(next.to_owned()),
            None => return (lines, pages),
        }
    }
    unreachable!()
}

/// A CSV answer: its headers and its records (fields split on commas: no field of these
/// scenarios needs quoting), after checking the status, the media type and the CRLF endings.
pub(super) async fn csv(app: &TestApp, token: &str, path: &str) -> (HeaderMap, Vec<Vec<String>>) {
    let response = app.get(path).bearer_auth(token).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK, "{path}");
    let headers = response.headers().clone();
    assert_eq!(headers["content-type"], "text/csv; charset=utf-8");
    assert!(headers.contains_key("x-request-id"));
    let text = response.text().await.unwrap();
    assert!(text.ends_with("\r\n"), "{text:?}");
    let records = text
        .trim_end_matches("\r\n")
        .split("\r\n")
        .map(|line| line.split(',').map(str::to_owned).collect())
        .collect();
    (headers, records)
}

/// A JSON value as its CSV field: text as is, numbers written out, null empty.
pub(super) fn field(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

pub(super) fn day_of(line: &Value) -> String {
    line["createdAt"].as_str().unwrap()[..10].to_owned()
}

/// The Unix milliseconds of a line's `createdAt`.
pub(super) fn millis(line: &Value) -> i64 {
    momo_gateway::domain::Timestamp::parse_iso8601(line["createdAt"].as_str().unwrap())
        .unwrap()
        .millis()
}
