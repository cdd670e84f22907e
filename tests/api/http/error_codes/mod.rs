//! Every error code `docs/openapi.yaml` names is one the server answers, and the other way round.
//! The document's codes are the `message` enums of its two error envelopes (v1 names such as
//! `BadRequestError`, v2 constants such as `TRANSACTION_NOT_FOUND`); its prose names only codes
//! of those enums. A table of requests provokes each code from outside, on both databases, and
//! each answer must carry its code, in a response whose description in the document names it. The
//! server's own lists of codes (the envelopes' `error_name` / `error_constant`, the payout
//! items' refusal codes) must all be in the document, but for the few listed below that no
//! request can bring about.

use std::collections::BTreeSet;

use reqwest::RequestBuilder;
use serde_json::Value;

mod provoke;

use super::openapi::{document, resolve, template_for};
use crate::support::helpers::{answer, Answer, TestApp};
use momo_test_support::both_backends;
use provoke::{provoke_in_flight, provoke_internal_failures, provoke_on_one_gateway, provoke_rate_limits};

both_backends!(
    TestApp::spawn_with(an_empty_sandbox) =>
    every_error_code_the_document_names_is_answered_to_a_request_that_provokes_it,
);

/// Codes the server source names that the API never answers, each with why.
const NEVER_ANSWERED: &[(&str, &str)] = &[
    (
        "PAYMENT_METHOD_NOT_OFFERED",
        "only v1 has a route for a payment method not offered (cards): v2 never refuses one",
    ),
    (
        "PAYMENT_LINK_CLOSED",
        "a link is paid on the payer's page, which answers a closed link with a 410 page; no API route pays a link",
    ),
];

/// A Sandbox that opens with nothing, so a transfer can be larger than the balance.
fn an_empty_sandbox(c: &mut momo_gateway::config::Config) {
    c.sandbox_initial_balance = 0;
}

// --- What the document names --------------------------------------------------------------

/// The `message` enum of an error envelope's schema.
fn envelope_codes(schema: &str) -> BTreeSet<String> {
    document()["components"]["schemas"][schema]["properties"]["message"]["enum"]
        .as_array()
        .unwrap_or_else(|| panic!("{schema} lists its messages in an enum"))
        .iter()
        .map(|c| c.as_str().unwrap().to_owned())
        .collect()
}

/// Every error code the document names: both envelopes' enums.
fn documented_codes() -> BTreeSet<String> {
    let mut codes = envelope_codes("V1Error");
    codes.extend(envelope_codes("V2Error"));
    codes
}

/// Every `description` and `summary` of the document.
fn prose(node: &Value, out: &mut Vec<String>) {
    match node {
        Value::Object(map) => {
            for (key, value) in map {
                match (key.as_str(), value) {
                    ("description" | "summary", Value::String(text)) => out.push(text.clone()),
                    _ => prose(value, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| prose(item, out)),
        _ => {}
    }
}

/// The words of a text: runs of letters, digits and `_`.
fn words(text: &str) -> Vec<&str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect()
}

/// The codes a text names: v1 names (`…Error`), and the v2 constants that follow `v2`
/// (`v2 INVALID_REQUEST, OPERATOR_NO_SUPPORTED`).
fn codes_in(text: &str) -> Vec<String> {
    let words = words(text);
    let mut out = Vec::new();
    for (i, word) in words.iter().enumerate() {
        if word.len() > "Error".len() && word.ends_with("Error") && word.starts_with(|c: char| c.is_ascii_uppercase()) {
            out.push((*word).to_owned());
        }
        if *word == "v2" {
            let constants = words[i + 1..].iter().filter(|w| **w != "or").take_while(|w| {
                w.contains('_')
                    && w.chars()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            });
            out.extend(constants.map(|w| (*w).to_owned()));
        }
    }
    out
}

/// Whether `text` names `code` as a whole word (`NOT_FOUND` is not in `TRANSACTION_NOT_FOUND`).
fn names(text: &str, code: &str) -> bool {
    words(text).contains(&code)
}

// --- What the server source names ----------------------------------------------------------

fn source(path: &str) -> String {
    std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The string literals of function `name` in `path` (its body: up to the first line that is
/// a lone `}`).
fn literals_of(path: &str, name: &str) -> BTreeSet<String> {
    let text = source(path);
    let start = text
        .find(&format!("fn {name}("))
        .unwrap_or_else(|| panic!("{path} has no fn {name}"));
    let body = &text[start..];
    let body = &body[..body.find("\n}\n").unwrap_or(body.len())];
    body.split('"').skip(1).step_by(2).map(str::to_owned).collect()
}

/// Every code the envelopes can carry, as the server spells them.
fn server_codes() -> BTreeSet<String> {
    let mut codes = literals_of("src/api/v1/envelope.rs", "error_name");
    codes.extend(literals_of("src/api/v2/envelope.rs", "error_constant"));
    codes
}

#[test]
fn every_code_the_server_can_answer_is_in_the_document_and_every_code_named_in_its_prose_is_in_an_enum() {
    let documented = documented_codes();
    let server = server_codes();
    assert!(
        server.len() >= 30,
        "read {} codes from the envelopes: {server:?}",
        server.len()
    );
    for code in &server {
        let excused = NEVER_ANSWERED.iter().any(|(c, _)| c == code);
        assert!(
            documented.contains(code) || excused,
            "the server can answer {code}, which docs/openapi.yaml does not name: add it to the V1Error or \
             V2Error enum and to the description of the response that carries it"
        );
    }
    for (code, why) in NEVER_ANSWERED {
        assert!(
            server.contains(*code),
            "{code} is excused ({why}) but the server no longer names it: drop it from NEVER_ANSWERED"
        );
        assert!(
            !documented.contains(*code),
            "{code} is excused as never answered ({why}) but docs/openapi.yaml names it"
        );
    }
    for code in &documented {
        assert!(
            server.contains(code),
            "docs/openapi.yaml names {code}, which no envelope can carry"
        );
    }
    let mut texts = Vec::new();
    prose(document(), &mut texts);
    for text in &texts {
        for code in codes_in(text) {
            assert!(
                documented.contains(&code),
                "docs/openapi.yaml's prose names {code}, which neither error enum lists: {text:?}"
            );
        }
    }
}

#[test]
fn the_payout_items_refusal_codes_are_those_the_document_lists() {
    let documented: BTreeSet<String> = document()["components"]["schemas"]["BatchRefusalCode"]["enum"]
        .as_array()
        .expect("BatchRefusalCode is an enum")
        .iter()
        .map(|c| c.as_str().unwrap().to_owned())
        .collect();
    let server = literals_of("src/service/payouts/outcome.rs", "as_str");
    assert!(server.len() >= 5, "read {server:?}");
    assert_eq!(
        server, documented,
        "RefusalCode::as_str and BatchRefusalCode in docs/openapi.yaml"
    );
}

// --- What the server answers ---------------------------------------------------------------

/// A request meant to provoke `code`, and what the server answered to it.
pub(super) struct Row {
    code: &'static str,
    method: String,
    path: String,
    answer: Answer,
}

#[derive(Default)]
pub(super) struct Table(Vec<Row>);

impl Table {
    /// Sends `request`, expecting `code`.
    pub(super) async fn row(&mut self, code: &'static str, request: RequestBuilder) {
        self.0.push(sent(code, request).await);
    }
}

/// Sends `request`, expecting `code`: the row of its answer.
pub(super) async fn sent(code: &'static str, request: RequestBuilder) -> Row {
    let probe = request
        .try_clone()
        .expect("a body held in memory")
        .build()
        .expect("a well-formed request");
    let (method, path) = (
        probe.method().as_str().to_ascii_lowercase(),
        probe.url().path().to_owned(),
    );
    Row {
        code,
        method,
        path,
        answer: answer(request).await,
    }
}

async fn every_error_code_the_document_names_is_answered_to_a_request_that_provokes_it(app: TestApp) {
    let mut table = Table::default();
    provoke_on_one_gateway(&app, &mut table).await;
    provoke_in_flight(app.backend, &mut table).await;
    provoke_rate_limits(app.backend, &mut table).await;
    provoke_internal_failures(app.backend, &mut table).await;

    let provoked: BTreeSet<&str> = table.0.iter().map(|r| r.code).collect();
    for code in documented_codes() {
        assert!(
            provoked.contains(code.as_str()),
            "docs/openapi.yaml names {code}, and no request of tests/api/http/error_codes.rs provokes it: add one \
             (or, if nothing can, drop it from the document)"
        );
    }
    let doc = document();
    for Row {
        code,
        method,
        path,
        answer,
    } in &table.0
    {
        let (status, envelope_status) = (answer.status.as_u16(), &answer.body["statusCode"]);
        let envelope_status = if envelope_status.is_null() {
            &answer.body["code_status"]
        } else {
            envelope_status
        };
        assert_eq!(
            (answer.body["message"].as_str(), envelope_status.as_u64()),
            (Some(*code), Some(u64::from(status))),
            "{method} {path} was to answer {code}: {} {}",
            answer.status,
            answer.body
        );
        assert!(
            documented_codes().contains(*code),
            "{method} {path} answers {code}, which docs/openapi.yaml does not name"
        );
        // Where the document gives this status for this operation, its description says which
        // code carries it.
        let response = template_for(path)
            .and_then(|template| doc["paths"][&template].get(method.as_str()))
            .and_then(|operation| operation["responses"].get(status.to_string()));
        if let Some(response) = response {
            let description = resolve(doc, response)["description"].as_str().unwrap_or_default();
            assert!(
                names(description, code),
                "{method} {path} answers {status} {code}, but docs/openapi.yaml describes its {status} as {description:?}"
            );
        }
    }
}
