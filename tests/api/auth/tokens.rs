//! Tokens: `POST /v1/auth`, the bearer check on other routes, rotation and expiry.

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use momo_gateway::domain::{Environment, MerchantId, Tenant, Timestamp, TransactionRef};
use reqwest::StatusCode;
use serde_json::json;

use crate::support::helpers::{answer, Creds, TestApp, TEST_JWT_SECRET};
use crate::support::requests::{collect_v1, collect_v2, post, transfer_v1};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    a_token_is_issued_for_valid_credentials_with_its_expiry,
    missing_or_malformed_basic_credentials_are_400,
    wrong_credentials_and_wrong_environments_are_401,
    bearer_tokens_are_checked_on_every_route,
    a_rotated_credential_and_its_tokens_stop_working_at_once,
    a_lookup_that_trusts_a_recent_check_still_sees_a_rotation_at_once,
    a_payment_that_trusts_a_recent_check_still_sees_a_rotation_at_once,
    expired_or_foreign_tokens_are_401,
);

async fn a_token_is_issued_for_valid_credentials_with_its_expiry(app: TestApp) {
    let before = Timestamp::now().unix_seconds();
    let a = app.auth(&app.merchant.sandbox).await;
    assert_eq!(a.status, StatusCode::OK);
    assert_eq!(a.body["statusCode"], 200);
    assert_eq!(a.body["message"], "Successful");
    let token = a.body["data"]["token"].as_str().unwrap();
    let exp = a.body["data"]["exp"].as_i64().unwrap();
    assert_eq!(a.body["token"], token, "older clients read the top-level token");
    assert_eq!(a.body["exp"], exp);
    assert!(
        (before + 600..=before + 601).contains(&exp),
        "600 s lifetime, got exp {exp} at {before}"
    );
    let header = jsonwebtoken::decode_header(token).unwrap();
    assert_eq!(header.alg, Algorithm::HS256);
    assert!(header.kid.is_some(), "the key id lets keys rotate");

    // Production credentials with no X-Environment: Production is the default.
    let production = &app.merchant.production;
    let a = answer(
        app.post("/v1/auth")
            .basic_auth(&production.api_key, Some(&production.api_secret)),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.body);
}

async fn missing_or_malformed_basic_credentials_are_400(app: TestApp) {
    let cases = [
        None,
        Some("Basic"),
        Some("Basic !!!not-base64!!!"),
        Some("Basic a2V5LW9ubHk="), // "key-only": no colon
        Some("Bearer abc"),
    ];
    for header in cases {
        let mut request = app.post("/v1/auth").header("X-Environment", "Sandbox");
        if let Some(h) = header {
            request = request.header("Authorization", h);
        }
        let a = answer(request).await;
        assert_eq!(a.status, StatusCode::BAD_REQUEST, "{header:?}");
        assert_eq!(a.body["statusCode"], 400);
        assert_eq!(a.body["message"], "BadRequestError");
        assert!(a.body["reason"].as_str().unwrap().contains("Basic"), "{}", a.body);
    }
    let creds = &app.merchant.sandbox;
    let a = answer(
        app.post("/v1/auth")
            .basic_auth(&creds.api_key, Some(&creds.api_secret))
            .header("X-Environment", "Staging"),
    )
    .await;
    assert_eq!(a.status, StatusCode::BAD_REQUEST, "an unknown X-Environment is 400");
    assert_eq!(a.body["message"], "BadRequestError");
}

async fn wrong_credentials_and_wrong_environments_are_401(app: TestApp) {
    let sandbox = app.merchant.sandbox.clone();
    let wrong_secret = Creds {
        api_secret: "sk_sandbox_guess".into(),
        ..sandbox.clone()
    };
    let unknown_key = Creds {
        api_key: "pk_sandbox_nobody".into(),
        ..sandbox.clone()
    };
    let other_env = Creds {
        environment: Environment::Production,
        ..sandbox.clone()
    };
    for creds in [wrong_secret, unknown_key, other_env] {
        let a = app.auth(&creds).await;
        assert_eq!(a.status, StatusCode::UNAUTHORIZED, "{creds:?}");
        assert_eq!(
            a.body,
            json!({"statusCode": 401, "message": "UnauthorizedError", "reason": a.body["reason"]}),
            "exactly the v1 error envelope"
        );
        assert!(!a.body["reason"].as_str().unwrap().contains(&sandbox.api_secret));
    }
}

async fn bearer_tokens_are_checked_on_every_route(app: TestApp) {
    let token = app.sandbox_token().await;
    let ok = answer(app.get("/v1/customers").bearer_auth(&token)).await;
    assert_eq!(ok.status, StatusCode::OK);
    let ok = answer(
        app.get("/v1/customers")
            .bearer_auth(&token)
            .header("X-Environment", "Sandbox"),
    )
    .await;
    assert_eq!(ok.status, StatusCode::OK, "a matching X-Environment is fine");

    let refused = [
        app.get("/v1/customers"),
        app.get("/v1/customers").bearer_auth("not-a-jwt"),
        app.get("/v1/customers")
            .header("Authorization", format!("Basic {token}")),
        app.get("/v1/customers")
            .bearer_auth(&token)
            .header("X-Environment", "Production"),
        app.get("/v1/customers")
            .bearer_auth(&token)
            .header("X-Environment", "Staging"),
        app.get("/v1/customer/some-id").bearer_auth(format!("{token}x")),
        app.post("/v1/customer").json(&json!({})),
    ];
    for request in refused {
        let a = answer(request).await;
        assert_eq!(a.status, StatusCode::UNAUTHORIZED, "{}", a.body);
        assert_eq!(a.body["message"], "UnauthorizedError");
        assert_eq!(a.body["statusCode"], 401);
    }
}

async fn a_rotated_credential_and_its_tokens_stop_working_at_once(app: TestApp) {
    let old = app.merchant.sandbox.clone();
    let token = app.token(&old).await;
    let tenant = Tenant {
        merchant_id: MerchantId::from(app.merchant.id.clone()),
        environment: Environment::Sandbox,
    };
    let (api_key, api_secret) = app
        .gateway
        .merchants
        .rotate_secret(&tenant, Timestamp::now())
        .await
        .unwrap();

    let a = answer(app.get("/v1/customers").bearer_auth(&token)).await;
    assert_eq!(
        a.status,
        StatusCode::UNAUTHORIZED,
        "the old token is revoked with its credential"
    );
    assert_eq!(
        app.auth(&old).await.status,
        StatusCode::UNAUTHORIZED,
        "the old pair no longer opens"
    );

    let new = Creds {
        environment: Environment::Sandbox,
        api_key,
        api_secret,
        webhook_secret: old.webhook_secret.clone(),
    };
    let token = app.token(&new).await;
    assert_eq!(
        answer(app.get("/v1/customers").bearer_auth(&token)).await.status,
        StatusCode::OK
    );
    // Production was not touched.
    let production = app.merchant.production.clone();
    assert_eq!(app.auth(&production).await.status, StatusCode::OK);
}

async fn expired_or_foreign_tokens_are_401(app: TestApp) {
    let valid = app.sandbox_token().await;
    let claims: serde_json::Value = {
        use base64::Engine;
        let payload = valid.split('.').nth(1).unwrap();
        serde_json::from_slice(
            &base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(payload)
                .unwrap(),
        )
        .unwrap()
    };
    let kid = jsonwebtoken::decode_header(&valid).unwrap().kid;
    let sign = |claims: &serde_json::Value, secret: &str| {
        let mut header = Header::new(Algorithm::HS256);
        header.kid = kid.clone();
        jsonwebtoken::encode(&header, claims, &EncodingKey::from_secret(secret.as_bytes())).unwrap()
    };
    let mut expired = claims.clone();
    expired["exp"] = json!(Timestamp::now().unix_seconds() - 1);
    let mut other_merchant = claims.clone();
    other_merchant["sub"] = json!("someone-else");
    for token in [
        sign(&expired, TEST_JWT_SECRET),
        sign(&claims, "another-secret-of-at-least-32-bytes-long!"),
        sign(&other_merchant, TEST_JWT_SECRET),
    ] {
        let a = answer(app.get("/v1/customers").bearer_auth(&token)).await;
        assert_eq!(a.status, StatusCode::UNAUTHORIZED, "{}", a.body);
        assert_eq!(a.body["message"], "UnauthorizedError");
    }
    // The same claims signed with the right key pass: the refusals above are about what changed.
    assert_eq!(
        answer(app.get("/v1/customers").bearer_auth(sign(&claims, TEST_JWT_SECRET)))
            .await
            .status,
        StatusCode::OK
    );
}

async fn a_lookup_that_trusts_a_recent_check_still_sees_a_rotation_at_once(app: TestApp) {
    let token = app.token(&app.merchant.sandbox).await;
    // A status lookup checks the token's credential once, then trusts it for a few seconds;
    // its own query reads the credential again.
    for path in ["/v2/get-status-payment/nothing-here", "/v1/transaction/nothing-here"] {
        let a = answer(app.get(path).bearer_auth(&token)).await;
        assert_eq!(a.status, StatusCode::NOT_FOUND, "{path}: {}", a.body);
    }
    // Rotated by another process: this one's memory of the credential is now wrong.
    app.rotate_elsewhere(&app.sandbox_tenant()).await;
    for path in ["/v2/get-status-payment/nothing-here", "/v1/transaction/nothing-here"] {
        let a = answer(app.get(path).bearer_auth(&token)).await;
        assert_eq!(
            a.status,
            StatusCode::UNAUTHORIZED,
            "{path}: revoked at once: {}",
            a.body
        );
    }
}

async fn a_payment_that_trusts_a_recent_check_still_sees_a_rotation_at_once(app: TestApp) {
    let token = app.token(&app.merchant.sandbox).await;
    // A payment's creation checks the token's credential once, then trusts it for a few
    // seconds; its `PENDING` insert reads the credential again, in the same transaction.
    let first = collect_v1("before-rotation", "0701020302", "ALPHA_MONEY_CI", "1500");
    let a = post(&app, &token, "/v1/collecte/mobile-money", &first).await;
    assert_eq!(a.status, StatusCode::ACCEPTED, "{}", a.body);
    // Rotated by another process: this one's memory of the credential is now wrong.
    let tenant = app.sandbox_tenant();
    let other = app.rotate_elsewhere(&tenant).await;
    let attempts = [
        (
            "/v1/collecte/mobile-money",
            collect_v1("after-v1", "0701020302", "ALPHA_MONEY_CI", "1500"),
        ),
        (
            "/v2/collecte/mobile-money",
            collect_v2("after-v2", json!("0701020302"), "ALPHA_MONEY_CI", json!(1500)),
        ),
        (
            "/v1/transfers/mobile-money",
            transfer_v1("after-transfer", "0701020302", "ALPHA_MONEY_CI", "100"),
        ),
    ];
    for (path, body) in &attempts {
        let a = post(&app, &token, path, body).await;
        assert_eq!(
            a.status,
            StatusCode::UNAUTHORIZED,
            "{path}: revoked at once: {}",
            a.body
        );
        let constant = if path.starts_with("/v2") {
            "TOKEN_EXPIRED"
        } else {
            "UnauthorizedError"
        };
        assert_eq!(
            a.body["message"], constant,
            "{path}: its generation's envelope: {}",
            a.body
        );
    }
    for id in ["after-v1", "after-v2", "after-transfer"] {
        let stored = other.transaction(&tenant, &TransactionRef::from(id)).await.unwrap();
        assert!(stored.is_none(), "{id}: nothing is written for a revoked caller");
    }
    assert!(other
        .transaction(&tenant, &TransactionRef::from("before-rotation"))
        .await
        .unwrap()
        .is_some());
}
