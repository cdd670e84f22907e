//! A token signed with the server's key that names another merchant or environment than its
//! credential's is refused on every path, whether the credential was checked a moment ago (the
//! lookups' fast path) or not: the check holds even against whoever holds the signing key.

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::support::helpers::{answer, TestApp, TEST_JWT_SECRET};
use crate::support::requests::{collect_v1, post};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    a_token_naming_another_tenant_than_its_credential_is_refused_everywhere,
);

/// The claims of `token`, and a signer that keeps its key id.
fn claims_and_signer(token: &str) -> (Value, impl Fn(&Value) -> String) {
    use base64::Engine;
    let payload = token.split('.').nth(1).unwrap();
    let claims = serde_json::from_slice(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(payload)
            .unwrap(),
    )
    .unwrap();
    let kid = jsonwebtoken::decode_header(token).unwrap().kid;
    let sign = move |claims: &Value| {
        let mut header = Header::new(Algorithm::HS256);
        header.kid = kid.clone();
        jsonwebtoken::encode(&header, claims, &EncodingKey::from_secret(TEST_JWT_SECRET.as_bytes())).unwrap()
    };
    (claims, sign)
}

async fn a_token_naming_another_tenant_than_its_credential_is_refused_everywhere(app: TestApp) {
    let other = app.new_merchant("Merchant B").await;
    let theirs = app.token(&other.sandbox).await;
    let a = post(
        &app,
        &theirs,
        "/v1/collecte/mobile-money",
        &collect_v1("b-private", "0701020301", "ALPHA_MONEY_CI", "1000"),
    )
    .await;
    assert!(a.status.is_success(), "{}", a.body);

    let ours = app.sandbox_token().await;
    // Warm the fast path: our credential was found active a moment ago.
    for path in ["/v2/get-status-payment/nothing-here", "/v1/transaction/nothing-here"] {
        let a = answer(app.get(path).bearer_auth(&ours)).await;
        assert_eq!(a.status, StatusCode::NOT_FOUND, "{path}: {}", a.body);
    }
    let (claims, sign) = claims_and_signer(&ours);
    let mut as_b = claims.clone();
    as_b["sub"] = json!(other.id);
    let mut as_production = claims.clone();
    as_production["env"] = json!("Production");
    for (what, forged) in [("merchant B", sign(&as_b)), ("Production", sign(&as_production))] {
        for path in [
            "/v2/get-status-payment/b-private",
            "/v1/get-status-payment/b-private",
            "/v1/transaction/b-private",
            "/v1/transactions",
            "/v1/customers",
            "/v1/balance",
        ] {
            let a = answer(app.get(path).bearer_auth(&forged)).await;
            assert_eq!(
                a.status,
                StatusCode::UNAUTHORIZED,
                "{what} on {path}, with our credential: {}",
                a.body
            );
        }
        let a = post(
            &app,
            &forged,
            "/v1/collecte/mobile-money",
            &collect_v1("forged-1", "0701020301", "ALPHA_MONEY_CI", "1000"),
        )
        .await;
        assert_eq!(a.status, StatusCode::UNAUTHORIZED, "{what}: a payment: {}", a.body);
    }
    // Our own token, unchanged, still works: the refusals are about the forged claims.
    let a = answer(app.get("/v2/get-status-payment/nothing-here").bearer_auth(&ours)).await;
    assert_eq!(a.status, StatusCode::NOT_FOUND, "{}", a.body);
}
