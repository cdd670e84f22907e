//! Return URLs that could break what the gateway writes with them: a control character is
//! refused at the door in either dialect, naming the field, and the payer's redirect is a valid
//! `Location` whatever was stored.

use reqwest::StatusCode;
use serde_json::json;
use sqlx::Connection;

use crate::support::helpers::TestApp;
use crate::support::requests::{collect_v1, collect_v2, post};
use momo_test_support::{both_backends, Backend};

both_backends!(
    TestApp::spawn =>
    a_return_url_with_a_control_character_is_refused_naming_the_field_in_both_dialects,
    the_payers_redirect_is_a_valid_location_whatever_the_stored_url_holds,
);

async fn a_return_url_with_a_control_character_is_refused_naming_the_field_in_both_dialects(app: TestApp) {
    let token = app.sandbox_token().await;
    for (field, bad) in [
        ("urlSuccess", "https://shop.example.ci/merci\nSet-Cookie: x=1"),
        ("errorUrl", "https://shop.example.ci/echec\u{0}"),
        ("urlError", "https://shop.example.ci/\u{7f}echec"),
        ("successUrl", "\thttps://shop.example.ci/merci"),
    ] {
        let mut body = collect_v1("v1-ctl", "0701020307", "BETA_MONEY_CI", "1000");
        body[field] = json!(bad);
        let a = post(&app, &token, "/v1/collecte/mobile-money", &body).await;
        assert_eq!(a.status, StatusCode::BAD_REQUEST, "{field}: {}", a.body);
        assert_eq!(a.body["message"], "BadRequestError", "{}", a.body);
        let reason = a.body["reason"].as_str().unwrap();
        assert!(reason.contains("control characters"), "{reason}");
        // v1 names each pair of spellings by one name.
        let named = if field.starts_with("urlS") || field.starts_with("succ") {
            "urlSuccess"
        } else {
            "errorUrl"
        };
        assert!(reason.contains(named), "{field}: {reason}");
    }
    for field in ["url_success", "url_error"] {
        let mut body = collect_v2("v2-ctl", json!("0701020307"), "BETA_CI", json!(1000));
        body[field] = json!("https://shop.example.ci/r\r\nLocation: https://evil.example");
        let a = post(&app, &token, "/v2/collecte/mobile-money", &body).await;
        assert_eq!(a.status, StatusCode::BAD_REQUEST, "{field}: {}", a.body);
        assert_eq!(
            (a.body["status"].as_str(), a.body["message"].as_str()),
            (Some("ERROR"), Some("INVALID_REQUEST")),
            "{}",
            a.body
        );
        assert!(a.body["reason"].as_str().unwrap().contains(field), "{}", a.body);
    }
    // Refused before a transaction exists: the identifiers are not spent.
    let v1 = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("v1-ctl", "0701020307", "BETA_MONEY_CI", "1000"),
    )
    .await;
    assert_eq!(v1.status, StatusCode::ACCEPTED, "{}", v1.body);
    let v2 = collect_v2("v2-ctl", json!("0701020307"), "BETA_CI", json!(1000));
    let v2 = post(&app, &token, "/v2/collecte/mobile-money", &v2).await;
    assert_eq!(v2.status, StatusCode::ACCEPTED, "{}", v2.body);
    app.assert_ledger().await;
}

/// Sets the stored success URL of the merchant's transaction `id`, as a row written before
/// control characters were refused would hold it.
async fn store_success_url(app: &TestApp, id: &str, url: &str) {
    let sql = "UPDATE transactions SET success_url = $1 WHERE transaction_id = $2";
    let updated = match app.backend {
        Backend::Sqlite => {
            let mut conn = sqlx::SqliteConnection::connect(&app.database_url).await.unwrap();
            sqlx::query(sql)
                .bind(url)
                .bind(id)
                .execute(&mut conn)
                .await
                .unwrap()
                .rows_affected()
        }
        Backend::Postgres => {
            let mut conn = sqlx::PgConnection::connect(&app.database_url).await.unwrap();
            sqlx::query(sql)
                .bind(url)
                .bind(id)
                .execute(&mut conn)
                .await
                .unwrap()
                .rows_affected()
        }
    };
    assert_eq!(updated, 1);
}

/// Approves the BETA collection `id` (created with `url` as its success URL) on its launch page:
/// the status and `Location` of the answer.
async fn approve(
    app: &TestApp,
    token: &str,
    id: &str,
    url: &str,
    stored: Option<&str>,
) -> (StatusCode, Option<String>) {
    let mut body = collect_v1(id, "0701020307", "BETA_MONEY_CI", "1000");
    body["urlSuccess"] = json!(url);
    let a = post(app, token, "/v1/collecte/mobile-money", &body).await;
    assert_eq!(a.status, StatusCode::ACCEPTED, "{}", a.body);
    if let Some(stored) = stored {
        store_success_url(app, id, stored).await;
    }
    let launch = a.body["data"]["betaLaunchUrl"].as_str().unwrap();
    let path = launch.strip_prefix("http://gateway.test").unwrap();
    let no_redirects = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let answer = no_redirects
        .post(app.url(&format!("{path}/approve")))
        .send()
        .await
        .unwrap();
    let location = answer.headers().get("location").map(|l| l.to_str().unwrap().to_owned());
    (answer.status(), location)
}

async fn the_payers_redirect_is_a_valid_location_whatever_the_stored_url_holds(app: TestApp) {
    let token = app.sandbox_token().await;
    // Accepted as sent, sent on percent-encoded: a header is ASCII.
    let (status, location) = approve(&app, &token, "loc-utf8", "https://shop.example.ci/merci é?n=Koné", None).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert_eq!(
        location.as_deref(),
        Some("https://shop.example.ci/merci%20%C3%A9?n=Kon%C3%A9")
    );
    // A line feed stored before the check existed: the payment is settled and the payer sees
    // the result page instead of a 500.
    let stored = "https://shop.example.ci/merci\nSet-Cookie: x=1";
    let (status, location) = approve(&app, &token, "loc-lf", "https://shop.example.ci/merci", Some(stored)).await;
    assert_eq!(status, StatusCode::SEE_OTHER, "Url drops a line feed: {location:?}");
    assert_eq!(
        location.as_deref(),
        Some("https://shop.example.ci/merciSet-Cookie:%20x=1")
    );
    let stored = "not a URL\u{1}";
    let (status, location) = approve(&app, &token, "loc-junk", "https://shop.example.ci/merci", Some(stored)).await;
    assert_eq!((status, location), (StatusCode::OK, None));
    let a = crate::support::helpers::answer(app.get("/v1/transaction/loc-junk").bearer_auth(&token)).await;
    assert_eq!(a.body["data"]["status"], "SUCCESSFUL", "{}", a.body);
    app.assert_ledger().await;
}
