//! The rules `docs/openapi.yaml` keeps for itself, whatever the server answers: every operation
//! has a unique operationId and declared tags, every operation that needs credentials documents
//! its 401 and its 429 with Retry-After, and the webhook names its Standard Webhooks headers and
//! its body.

use serde_json::Value;

use super::openapi::{document, resolve};

/// Every operation of `paths` and `webhooks`, as (method, path, operation).
fn operations(doc: &Value) -> Vec<(String, String, &Value)> {
    let mut out = Vec::new();
    for section in ["paths", "webhooks"] {
        for (path, item) in doc[section].as_object().unwrap() {
            for (method, operation) in item.as_object().unwrap() {
                if ["get", "put", "post", "delete", "patch", "head", "options"].contains(&method.as_str()) {
                    out.push((method.clone(), path.clone(), operation));
                }
            }
        }
    }
    out
}

#[test]
fn every_operation_has_a_unique_operation_id_and_a_declared_tag() {
    let doc = document();
    let declared: Vec<&str> = doc["tags"]
        .as_array()
        .expect("the document declares its tags")
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    let mut ids = std::collections::HashSet::new();
    for (method, path, operation) in operations(doc) {
        let id = operation["operationId"]
            .as_str()
            .unwrap_or_else(|| panic!("{method} {path} has no operationId"));
        assert!(ids.insert(id.to_owned()), "operationId {id} is used twice");
        let tags = operation["tags"]
            .as_array()
            .unwrap_or_else(|| panic!("{method} {path} has no tags"));
        assert!(!tags.is_empty(), "{method} {path} has no tags");
        for tag in tags {
            assert!(
                declared.contains(&tag.as_str().unwrap()),
                "{method} {path}: undeclared tag {tag}"
            );
        }
    }
    assert!(ids.len() >= 30, "found {} operations", ids.len());
}

#[test]
fn every_operation_that_needs_credentials_documents_401_and_429_with_retry_after() {
    let doc = document();
    for (method, path, operation) in operations(doc) {
        // The API limit applies to every bearer-authenticated call, the auth limit to /v1/auth;
        // what is public (health, metrics, callbacks, the checkout page) is not limited.
        let security = operation.get("security").and_then(Value::as_array);
        if security.is_some_and(Vec::is_empty) {
            continue;
        }
        assert!(
            operation["responses"].get("401").is_some(),
            "{method} {path} needs credentials but documents no 401"
        );
        // Credentials a deployment may ask for (`{}` beside the scheme: /metrics with
        // MOMO_METRICS_TOKEN) refuse with 401 but are not a rate-limited API call.
        let optional = security.is_some_and(|s| s.iter().any(|r| r.as_object().is_some_and(|o| o.is_empty())));
        if optional {
            continue;
        }
        let response = operation["responses"]
            .get("429")
            .unwrap_or_else(|| panic!("{method} {path} can be rate-limited but documents no 429"));
        let response = resolve(doc, response);
        assert!(
            response.pointer("/headers/Retry-After").is_some(),
            "{method} {path}: its 429 does not document Retry-After"
        );
        assert!(
            response.pointer("/content/application~1json/schema").is_some(),
            "{method} {path}: its 429 has no JSON envelope"
        );
    }
}

#[test]
fn the_webhook_is_described_with_its_standard_webhooks_headers_and_body() {
    let doc = document();
    let webhook = &doc["webhooks"]["transactionFinal"]["post"];
    let headers: Vec<&str> = webhook["parameters"]
        .as_array()
        .expect("the webhook names its headers")
        .iter()
        .filter(|p| p["in"] == "header" && p["required"] == true)
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(headers, ["webhook-id", "webhook-timestamp", "webhook-signature"]);
    let body = resolve(doc, &webhook["requestBody"]["content"]["application/json"]["schema"]);
    assert_eq!(
        body["properties"]["status"]["enum"],
        serde_json::json!(["SUCCESSFUL", "FAILED"])
    );
}
