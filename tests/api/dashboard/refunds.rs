//! Refunds from the dashboard over HTTP, on both databases: a `SUCCESSFUL` collection's page
//! offers the form and lists its refunds; the form is refused without this session's CSRF token,
//! unconfirmed, or with a bad amount or reason, each with a message on the page and nothing
//! recorded; sent twice it records one refund; a refund's page shows its collection.

use reqwest::StatusCode;
use serde_json::Value;

use crate::support::dashboard_client::{Browser, Page};
use crate::support::helpers::{answer, TestApp};
use crate::support::requests::{collect_v1, post};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    a_collection_is_refunded_from_its_page_once_per_form_and_bad_forms_record_nothing,
);

const PAGE: &str = "/dashboard/transactions/order-1";
const ACTION: &str = "/dashboard/transactions/order-1/refund";

/// The refund's id the page's form carries.
fn form_id(page: &Page) -> String {
    let marker = "name=\"transaction_id\" value=\"";
    let start = page.body.find(marker).expect("the refund form") + marker.len();
    page.body[start..start + page.body[start..].find('"').unwrap()].to_owned()
}

/// `12 500 F CFA`, as the dashboard writes amounts.
fn francs(text: &str) -> String {
    format!("{} F CFA", text.replace(' ', "\u{202f}"))
}

async fn refunds(app: &TestApp, token: &str, collection: &str) -> Vec<Value> {
    let listed = answer(
        app.get(&format!("/v1/transactions?refundOf={collection}"))
            .bearer_auth(token),
    )
    .await;
    listed.body["data"].as_array().unwrap().clone()
}

async fn a_collection_is_refunded_from_its_page_once_per_form_and_bad_forms_record_nothing(app: TestApp) {
    let token = app.sandbox_token().await;
    for (id, phone) in [("order-1", "0701020301"), ("order-wait", "0701020302")] {
        let a = post(
            &app,
            &token,
            "/v1/collecte/mobile-money",
            &collect_v1(id, phone, "ALPHA_MONEY_CI", "10000"),
        )
        .await;
        assert!(a.status.is_success(), "{}", a.body);
    }
    let collection = answer(app.get("/v1/transaction/order-1").bearer_auth(&token))
        .await
        .body["data"]["ref"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut browser = Browser::new(&app);
    browser.sign_in(&app.merchant.sandbox).await;

    let page = browser.get(PAGE).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    assert!(page.has_id("refund") && page.has_id("refund-confirm") && page.has_id("no-refunds"));
    assert_eq!(
        page.text_of("refund-left"),
        Some(format!("Reste à rembourser\u{202f}: {}", francs("10 000")))
    );
    for label in [
        "for=\"refund-amount\"",
        "for=\"refund-reason\"",
        "for=\"refund-confirm\"",
    ] {
        assert!(page.body.contains(label), "every field has its label: {label}");
    }
    let id = form_id(&page);
    let csrf = page.csrf();
    let good = |amount: &'static str| {
        vec![
            ("csrf_token", csrf.clone()),
            ("transaction_id", id.clone()),
            ("amount", amount.to_owned()),
            ("reason", "Colis abîmé".to_owned()),
            ("confirm", "yes".to_owned()),
        ]
    };

    // Without this session's token: 403, nothing recorded.
    let mut no_token = good("4000");
    no_token.remove(0);
    let mut wrong_token = good("4000");
    wrong_token[0].1 = "forged".to_owned();
    for fields in [no_token, wrong_token] {
        let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let refused = browser.post(ACTION, &fields).await;
        assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.body);
        assert!(refused.has_id("page-forbidden"));
    }
    // Unconfirmed, a bad amount, a bad reason, too much: the page says why.
    let mut unconfirmed = good("4000");
    unconfirmed.pop();
    let mut bad_reason = good("4000");
    bad_reason[3].1 = "ligne\nsuivante".to_owned();
    let cases = [
        (unconfirmed, StatusCode::BAD_REQUEST, "Cochez la case"),
        (good("12,5"), StatusCode::BAD_REQUEST, "Montant invalide"),
        (bad_reason, StatusCode::BAD_REQUEST, "Motif invalide"),
        (good("20 000"), StatusCode::CONFLICT, "Remboursement impossible"),
    ];
    for (fields, status, says) in cases {
        let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let refused = browser.post(ACTION, &fields).await;
        assert_eq!(refused.status, status, "{fields:?}: {}", refused.body);
        assert!(refused.body.contains("id=\"error\" role=\"alert\""), "{}", refused.body);
        let said = refused.text_of("error").unwrap();
        assert!(said.contains(says), "{fields:?}: {said}");
        assert!(refused.has_id("refund"), "the form is still there to correct");
    }
    assert!(refunds(&app, &token, &collection).await.is_empty(), "nothing recorded");

    // A good form refunds; the same form again records nothing more.
    let fields = good("4 000");
    let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let done = browser.post(ACTION, &fields).await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.body);
    let flash = done.text_of("flash").unwrap();
    assert!(
        flash.starts_with("Remboursement enregistré")
            && flash.contains(&francs("4 000"))
            && flash.contains("SUCCESSFUL"),
        "{flash}"
    );
    assert_eq!(done.row_status(&id).as_deref(), Some("SUCCESSFUL"), "listed at once");
    assert_eq!(done.text_of("amount-refunded"), Some(francs("4 000")));
    let again = browser.post(ACTION, &fields).await;
    assert_eq!(again.status, StatusCode::CONFLICT, "{}", again.body);
    assert!(again.text_of("error").unwrap().contains("déjà enregistré"));
    let recorded = refunds(&app, &token, &collection).await;
    assert_eq!(recorded.len(), 1, "one refund for one form: {recorded:?}");
    assert_eq!(
        (
            recorded[0]["transactionId"].as_str(),
            recorded[0]["amount"].as_str(),
            recorded[0]["reason"].as_str()
        ),
        (Some(id.as_str()), Some("4000"), Some("Colis abîmé"))
    );

    // The refund's page shows its collection and reason, and no form.
    let refund_page = browser.get(&format!("/dashboard/transactions/{id}")).await;
    assert_eq!(refund_page.status, StatusCode::OK, "{}", refund_page.body);
    assert!(refund_page.body.contains(&format!(
        "<a href=\"/dashboard/transactions/{collection}\">{collection}</a> · order-1"
    )));
    assert_eq!(refund_page.text_of("refund-reason").as_deref(), Some("Colis abîmé"));
    assert!(!refund_page.has_id("refund-confirm"));

    // Blank amount: all that is left; then the page says it is refunded in full.
    let page = browser.get(&format!("{PAGE}?lang=en")).await;
    assert!(page.body.contains("Refund this collection"), "in English too");
    let (csrf, id) = (page.csrf(), form_id(&page));
    let rest = [
        ("csrf_token", csrf.as_str()),
        ("transaction_id", id.as_str()),
        ("amount", ""),
        ("reason", ""),
        ("confirm", "yes"),
    ];
    let done = browser.post(ACTION, &rest).await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.body);
    assert!(done.text_of("flash").unwrap().contains(&francs("6 000")));
    assert!(done.has_id("fully-refunded") && !done.has_id("refund-confirm"));
    assert_eq!(refunds(&app, &token, &collection).await.len(), 2);

    // A pending collection offers no form, and a forged post is refused.
    let pending = browser.get("/dashboard/transactions/order-wait").await;
    assert!(!pending.has_id("refund") && !pending.has_id("refunds-heading"));
    let forged = [("csrf_token", csrf.as_str()), ("confirm", "yes")];
    let refused = browser.post("/dashboard/transactions/order-wait/refund", &forged).await;
    assert_eq!(refused.status, StatusCode::CONFLICT, "{}", refused.body);
    // Another merchant's session does not find this collection.
    let other = app.new_merchant("Other").await;
    let mut theirs = Browser::new(&app);
    theirs.sign_in(&other.sandbox).await;
    let page = theirs.get("/dashboard").await;
    let fields = [("csrf_token", page.csrf()), ("confirm", "yes".to_owned())];
    let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let refused = theirs.post(ACTION, &fields).await;
    assert_eq!(refused.status, StatusCode::NOT_FOUND, "{}", refused.body);
    app.assert_ledger().await;
}
