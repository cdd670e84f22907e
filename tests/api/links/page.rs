//! The payer's page of a payment link, over HTTP as a phone's browser speaks to it: the form
//! (French, English on request), its CSRF token, every refusal a page with nothing created, the
//! status page that follows the payment to its end, the link's limits per address.

use reqwest::header::{COOKIE, LOCATION, SET_COOKIE};
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::support::helpers::{answer, TestApp};
use crate::support::requests::post;
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    a_payer_pays_a_link_from_its_page_and_follows_the_payment,
    every_refusal_is_a_page_and_creates_nothing,
    twenty_phones_paying_a_single_payment_link_at_once_pay_it_once,
    the_form_may_lead_on_to_the_links_return_origins,
);

both_backends!(
    TestApp::spawn_with(two_payments_a_minute_per_address) =>
    an_address_starts_only_so_many_payments_a_minute,
);

fn two_payments_a_minute_per_address(c: &mut momo_gateway::config::Config) {
    c.link_payments_per_address_per_min = 2;
}

/// A browser that keeps no cookies and follows no redirect: the test says what it sends.
fn browser() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

pub(super) async fn make(app: &TestApp, body: Value) -> String {
    let token = app.sandbox_token().await;
    let a = post(app, &token, "/v1/payment-links", &body).await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.body);
    a.body["data"]["id"].as_str().unwrap().to_owned()
}

/// The form page, and the CSRF cookie it set.
pub(super) async fn open(app: &TestApp, path: &str) -> (StatusCode, String, String) {
    let page = browser().get(app.url(path)).send().await.unwrap();
    let status = page.status();
    let cookie = page
        .headers()
        .get_all(SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("momo_pay_csrf="))
        .map(|v| v.split(';').next().unwrap().to_owned())
        .unwrap_or_default();
    (status, cookie, page.text().await.unwrap())
}

pub(super) async fn pay(app: &TestApp, id: &str, cookie: &str, form: &[(&str, &str)]) -> reqwest::Response {
    browser()
        .post(app.url(&format!("/pay/{id}")))
        .header(COOKIE, cookie)
        .form(form)
        .send()
        .await
        .unwrap()
}

/// A form's fields, in order.
type Form<'a> = Vec<(&'a str, &'a str)>;

pub(super) fn csrf_of(cookie: &str) -> &str {
    cookie.split_once('=').map(|(_, v)| v).unwrap_or("")
}

async fn transactions(app: &TestApp) -> Vec<Value> {
    let token = app.sandbox_token().await;
    let a = answer(app.get("/v1/transactions").bearer_auth(&token)).await;
    a.body["data"].as_array().unwrap().clone()
}

async fn a_payer_pays_a_link_from_its_page_and_follows_the_payment(app: TestApp) {
    let id = make(
        &app,
        json!({"amount": "7500", "description": "Robe <b>wax</b>", "operators": ["GAMMA_MONEY_CI", "BETA_MONEY_CI"],
        "reusable": true}),
    )
    .await;
    let (status, cookie, html) = open(&app, &format!("/pay/{id}")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        html.contains("lang=\"fr\"") && html.contains("Paiement à") && html.contains("7\u{202f}500 XOF"),
        "{html}"
    );
    assert!(
        html.contains("Robe &lt;b&gt;wax&lt;/b&gt;"),
        "the description is escaped"
    );
    assert!(!html.contains("name=\"amount\""), "a fixed link asks for no amount");
    assert!(!cookie.is_empty(), "a CSRF cookie");
    let (_, _, english) = open(&app, &format!("/pay/{id}?lang=en")).await;
    assert!(
        english.contains("lang=\"en\"") && english.contains("Payment to"),
        "{english}"
    );

    let csrf = csrf_of(&cookie).to_owned();
    let sent = pay(
        &app,
        &id,
        &cookie,
        &[
            ("csrf_token", &csrf),
            ("operator", "GAMMA"),
            ("phone", "07 01 02 03 01"),
        ],
    )
    .await;
    assert_eq!(sent.status(), StatusCode::SEE_OTHER);
    let status_page = sent.headers()[LOCATION].to_str().unwrap().to_owned();
    assert!(
        status_page.starts_with(&format!("/pay/{id}/payments/")),
        "{status_page}"
    );
    let shown = browser()
        .get(app.url(&status_page))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(shown.contains("data-status=\"SUCCESSFUL\""), "{shown}");
    let made = transactions(&app).await;
    assert_eq!((made.len(), &made[0]["linkPaymentId"]), (1, &json!(id)));

    // Another payer's page is not reachable with a made-up token.
    let forged = format!("{}x", status_page.split('?').next().unwrap());
    assert_eq!(
        browser().get(app.url(&forged)).send().await.unwrap().status(),
        StatusCode::NOT_FOUND
    );

    // Pending (06): the page reloads itself.
    let sent = pay(
        &app,
        &id,
        &cookie,
        &[("csrf_token", &csrf), ("operator", "GAMMA"), ("phone", "0701020306")],
    )
    .await;
    let waiting = browser()
        .get(app.url(sent.headers()[LOCATION].to_str().unwrap()))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        waiting.contains("data-status=\"PENDING\"") && waiting.contains("http-equiv=\"refresh\""),
        "{waiting}"
    );

    // BETA: on to the page where its payer approves.
    let sent = pay(
        &app,
        &id,
        &cookie,
        &[("csrf_token", &csrf), ("operator", "BETA"), ("phone", "0701020301")],
    )
    .await;
    let beta = browser()
        .get(app.url(sent.headers()[LOCATION].to_str().unwrap()))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        beta.contains("url=http://gateway.test/checkout/") && beta.contains("id=\"go-on\""),
        "{beta}"
    );

    // A return URL: the payer is sent there once the payment is final.
    let back = make(
        &app,
        json!({"minAmount": "1000", "maxAmount": "5000", "description": "Don",
        "successUrl": "https://shop.example.ci/merci"}),
    )
    .await;
    let (_, cookie, open_form) = open(&app, &format!("/pay/{back}")).await;
    assert!(
        open_form.contains("name=\"amount\"") && open_form.contains("1\u{202f}000"),
        "{open_form}"
    );
    let csrf = csrf_of(&cookie).to_owned();
    let sent = pay(
        &app,
        &back,
        &cookie,
        &[
            ("csrf_token", &csrf),
            ("operator", "DELTA"),
            ("phone", "0701020301"),
            ("amount", "2 500"),
        ],
    )
    .await;
    let followed = browser()
        .get(app.url(sent.headers()[LOCATION].to_str().unwrap()))
        .send()
        .await
        .unwrap();
    assert_eq!(followed.status(), StatusCode::SEE_OTHER);
    assert_eq!(followed.headers()[LOCATION], "https://shop.example.ci/merci");
    app.assert_ledger().await;
}

async fn every_refusal_is_a_page_and_creates_nothing(app: TestApp) {
    let id = make(
        &app,
        json!({"minAmount": "1000", "maxAmount": "5000", "description": "Don", "operators": ["GAMMA_MONEY_CI"]}),
    )
    .await;
    let (_, cookie, _) = open(&app, &format!("/pay/{id}")).await;
    let csrf = csrf_of(&cookie).to_owned();
    let good = [("operator", "GAMMA"), ("phone", "0701020301"), ("amount", "2000")];
    let with = |changes: &[(&'static str, &'static str)]| {
        let mut form: Vec<(&str, &str)> = good
            .iter()
            .filter(|(k, _)| !changes.iter().any(|(c, _)| c == k))
            .copied()
            .collect();
        form.extend_from_slice(changes);
        form
    };
    let cases: Vec<(Form, StatusCode, &str)> = vec![
        (with(&[("phone", "12345")]), StatusCode::BAD_REQUEST, "numéro"),
        (with(&[("amount", "999")]), StatusCode::BAD_REQUEST, "montant"),
        (with(&[("amount", "2000.50")]), StatusCode::BAD_REQUEST, "montant"),
        (with(&[("amount", "5001")]), StatusCode::BAD_REQUEST, "montant"),
        (with(&[("operator", "BETA")]), StatusCode::BAD_REQUEST, "opérateur"),
    ];
    for (mut form, status, says) in cases {
        form.push(("csrf_token", &csrf));
        let a = pay(&app, &id, &cookie, &form).await;
        assert_eq!(a.status(), status, "{form:?}");
        let html = a.text().await.unwrap();
        assert!(
            html.contains("id=\"error\"") && html.to_lowercase().contains(says),
            "{form:?}: {html}"
        );
    }
    let mut form = good.to_vec();
    form.push(("csrf_token", "forged"));
    assert_eq!(
        pay(&app, &id, &cookie, &form).await.status(),
        StatusCode::FORBIDDEN,
        "a forged token"
    );
    assert_eq!(
        pay(&app, &id, "", &form).await.status(),
        StatusCode::FORBIDDEN,
        "no cookie"
    );
    assert!(transactions(&app).await.is_empty(), "nothing was created");

    for path in [
        format!("/pay/{}", "x".repeat(10_000)),
        "/pay/lnk_0000000000000000000000".to_owned(),
    ] {
        let a = browser().get(app.url(&path)).send().await.unwrap();
        assert_eq!(a.status(), StatusCode::NOT_FOUND);
        assert!(a.headers()["content-type"].to_str().unwrap().starts_with("text/html"));
    }
    let token = app.sandbox_token().await;
    post(&app, &token, &format!("/v1/payment-links/{id}/deactivate"), &json!({})).await;
    let (status, _, html) = open(&app, &format!("/pay/{id}")).await;
    assert_eq!(status, StatusCode::GONE);
    assert!(html.contains("désactivé"), "{html}");
    let mut form = good.to_vec();
    form.push(("csrf_token", &csrf));
    assert_eq!(pay(&app, &id, &cookie, &form).await.status(), StatusCode::GONE);
    assert!(transactions(&app).await.is_empty(), "nothing was created");
}

async fn an_address_starts_only_so_many_payments_a_minute(app: TestApp) {
    let id = make(
        &app,
        json!({"amount": "1000", "description": "Ticket", "reusable": true}),
    )
    .await;
    let (_, cookie, _) = open(&app, &format!("/pay/{id}")).await;
    let csrf = csrf_of(&cookie).to_owned();
    let form = [
        ("csrf_token", csrf.as_str()),
        ("operator", "GAMMA"),
        ("phone", "0701020301"),
    ];
    for _ in 0..2 {
        assert_eq!(pay(&app, &id, &cookie, &form).await.status(), StatusCode::SEE_OTHER);
    }
    let third = pay(&app, &id, &cookie, &form).await;
    assert_eq!(third.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(third.headers().contains_key("retry-after"));
    assert_eq!(transactions(&app).await.len(), 2);
}

async fn twenty_phones_paying_a_single_payment_link_at_once_pay_it_once(app: TestApp) {
    let id = make(&app, json!({"amount": "3000", "description": "Billet"})).await;
    let (_, cookie, _) = open(&app, &format!("/pay/{id}")).await;
    let csrf = csrf_of(&cookie).to_owned();
    let phones: Vec<String> = (10..30).map(|n| format!("07010203{n}")).collect();
    let sent = phones.iter().map(|phone| {
        let (url, cookie, csrf, phone) = (
            app.url(&format!("/pay/{id}")),
            cookie.clone(),
            csrf.clone(),
            phone.clone(),
        );
        tokio::spawn(async move {
            let form = [
                ("csrf_token", csrf.as_str()),
                ("operator", "GAMMA"),
                ("phone", phone.as_str()),
            ];
            browser()
                .post(url)
                .header(COOKIE, cookie)
                .form(&form)
                .send()
                .await
                .unwrap()
                .status()
        })
    });
    let mut statuses = Vec::new();
    for s in sent {
        statuses.push(s.await.unwrap());
    }
    let started = statuses.iter().filter(|s| **s == StatusCode::SEE_OTHER).count();
    assert_eq!(started, 1, "one payment started: {statuses:?}");
    assert!(
        statuses
            .iter()
            .all(|s| *s == StatusCode::SEE_OTHER || *s == StatusCode::CONFLICT),
        "{statuses:?}"
    );
    let made = transactions(&app).await;
    // Numbers ending 10 to 29 are approved after the Sandbox delay: the one payment is pending.
    assert_eq!((made.len(), &made[0]["status"]), (1, &json!("PENDING")));
    app.assert_ledger().await;
}

/// A payment that succeeds at once sends the payer on to the link's return URL as the answer to
/// the form, and browsers hold that redirect to the form page's `form-action`.
async fn the_form_may_lead_on_to_the_links_return_origins(app: TestApp) {
    let id = make(
        &app,
        json!({"amount": "1000", "description": "Ticket", "reusable": true,
               "successUrl": "https://shop.example/merci?order=7", "errorUrl": "https://pay.shop.example:8443/oops"}),
    )
    .await;
    let page = browser().get(app.url(&format!("/pay/{id}"))).send().await.unwrap();
    let policy = page.headers()["content-security-policy"].to_str().unwrap().to_owned();
    assert!(
        policy.contains("form-action 'self' https://shop.example https://pay.shop.example:8443;"),
        "{policy}"
    );
}
