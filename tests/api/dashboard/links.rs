//! Payment links from the dashboard over HTTP, on both databases: a link is made with the
//! form (refused without this session's CSRF token, and refused with a message and nothing
//! made for each bad field), listed with its counts, shown with its address and QR code and
//! its payments, and deactivated once confirmed; another merchant finds none of it.

use momo_gateway::domain::{LinkId, Msisdn, OperatorCode, Timestamp};
use momo_gateway::service::{LinkPayment, LinkPaymentError};
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::support::dashboard_client::{Browser, Page};
use crate::support::helpers::{answer, TestApp};
use crate::support::requests::{collect_v1, post};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    a_link_is_made_from_the_form_shown_with_its_payments_and_deactivated,
    bad_link_forms_are_refused_on_the_page_and_make_nothing,
);

/// A GAMMA payment from the Sandbox number ending `ending`.
fn payer(ending: &str) -> LinkPayment {
    let raw = format!("07010203{ending}");
    LinkPayment {
        operator: OperatorCode::Gamma,
        phone: Msisdn::parse(&raw).unwrap(),
        phone_as_sent: raw,
        amount: None,
        otp_code: None,
    }
}

/// The fields of a good form, CSRF token first.
fn good(csrf: &str) -> Vec<(&'static str, String)> {
    [
        ("csrf_token", csrf),
        ("amount", "5 000"),
        ("min_amount", ""),
        ("max_amount", ""),
        ("description", "Robe wax"),
        ("usage", "reusable"),
        ("max_payments", "3"),
        ("expires_at", ""),
        ("operator-ALPHA", "yes"),
        ("operator-GAMMA", "yes"),
        ("success_url", "https://boutique.example/merci"),
        ("error_url", ""),
    ]
    .into_iter()
    .map(|(k, v)| (k, v.to_owned()))
    .collect()
}

fn with(fields: &[(&'static str, String)], name: &str, value: &str) -> Vec<(&'static str, String)> {
    let mut fields = fields.to_vec();
    match fields.iter_mut().find(|(k, _)| *k == name) {
        Some(field) => field.1 = value.to_owned(),
        None => panic!("no field {name}"),
    }
    fields
}

async fn send(browser: &mut Browser<'_>, action: &str, fields: &[(&'static str, String)]) -> Page {
    let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
    browser.post(action, &fields).await
}

async fn api_links(app: &TestApp, token: &str) -> Vec<Value> {
    let listed = answer(app.get("/v1/payment-links").bearer_auth(token)).await;
    listed.body["data"].as_array().unwrap().clone()
}

/// The value of the input with `id`.
fn value_of(page: &Page, id: &str) -> Option<String> {
    let start = page.body.find(&format!("id=\"{id}\""))?;
    let tag = &page.body[start..start + page.body[start..].find('>')?];
    let value = tag.find("value=\"")? + "value=\"".len();
    Some(tag[value..value + tag[value..].find('"')?].to_owned())
}

async fn a_link_is_made_from_the_form_shown_with_its_payments_and_deactivated(app: TestApp) {
    let token = app.sandbox_token().await;
    let mut browser = Browser::new(&app);
    browser.sign_in(&app.merchant.sandbox).await;
    let empty = browser.get("/dashboard/links").await;
    assert_eq!(empty.status, StatusCode::OK, "{}", empty.body);
    assert!(empty.has_id("no-links") && empty.body.contains("href=\"/dashboard/links\""));

    let form = browser.get("/dashboard/links/new").await;
    assert_eq!(form.status, StatusCode::OK, "{}", form.body);
    for label in [
        "link-amount",
        "link-min",
        "link-max",
        "link-description",
        "link-once",
        "link-reusable",
    ] {
        assert!(form.body.contains(&format!("for=\"{label}\"")), "labelled: {label}");
    }
    let fields = good(&form.csrf());

    // Without this session's token: 403, nothing made.
    let no_token = fields[1..].to_vec();
    let forged = with(&fields, "csrf_token", "forged");
    for sent in [no_token, forged] {
        let refused = send(&mut browser, "/dashboard/links", &sent).await;
        assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.body);
        assert!(refused.has_id("page-forbidden"));
    }
    assert!(api_links(&app, &token).await.is_empty());

    // Made: to the new link's page (303), which says so.
    let made = send(&mut browser, "/dashboard/links", &fields).await;
    assert_eq!(made.status, StatusCode::SEE_OTHER, "{}", made.body);
    let location = made.location().unwrap().to_owned();
    let id = location
        .strip_prefix("/dashboard/links/")
        .and_then(|rest| rest.strip_suffix("?created=1"))
        .and_then(LinkId::parse)
        .unwrap_or_else(|| panic!("{location}"));
    let page = browser.get(&location).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    assert!(page.text_of("flash").unwrap().starts_with("Lien créé"));
    assert_eq!(
        value_of(&page, "link-url"),
        Some(format!("http://gateway.test/pay/{id}"))
    );
    assert!(page
        .body
        .contains("<svg id=\"link-qr\" role=\"img\" aria-labelledby=\"qr-heading\""));
    assert!(!page.body.contains("<?xml"), "inline SVG, not a document");
    assert_eq!(page.text_of("link-state").as_deref(), Some("Actif"));
    assert_eq!(page.text_of("link-amount"), Some("5\u{202f}000 F CFA".to_owned()));
    assert_eq!(
        page.text_of("link-operators").as_deref(),
        Some("ALPHA_MONEY_CI, GAMMA_MONEY_CI")
    );
    assert!(page.text_of("link-usage").unwrap().contains('3'));
    let shown = answer(app.get(&format!("/v1/payment-links/{id}")).bearer_auth(&token)).await;
    let d = &shown.body["data"];
    assert_eq!(
        (&d["amount"], &d["description"], &d["maxPayments"], &d["successUrl"]),
        (
            &json!("5000"),
            &json!("Robe wax"),
            &json!(3),
            &json!("https://boutique.example/merci")
        ),
        "{d}"
    );

    // Its payments: one settled, one pending; a payment from elsewhere is not among them.
    let links = &app.gateway.links;
    let paid = links.pay(&id, payer("01"), Timestamp::now()).await.unwrap();
    let waiting = links.pay(&id, payer("06"), Timestamp::now()).await.unwrap();
    let plain = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("plain-1", "0701020301", "GAMMA_MONEY_CI", "1000"),
    )
    .await;
    assert!(plain.status.is_success(), "{}", plain.body);
    let page = browser.get(&format!("/dashboard/links/{id}")).await;
    assert!(!page.has_id("flash"));
    let (paid_id, waiting_id) = (
        paid.transaction.transaction_id.as_str().to_owned(),
        waiting.transaction.transaction_id.as_str().to_owned(),
    );
    assert_eq!(page.row_status(&paid_id).as_deref(), Some("SUCCESSFUL"));
    assert_eq!(page.row_status(&waiting_id).as_deref(), Some("PENDING"));
    assert_eq!(page.row_status("plain-1"), None, "not through the link");
    assert_eq!(
        (
            page.text_of("link-paid"),
            page.text_of("link-pending"),
            page.text_of("link-collected")
        ),
        (Some("1".into()), Some("1".into()), Some("5\u{202f}000 F CFA".into()))
    );
    let payment = browser.get(&format!("/dashboard/transactions/{paid_id}")).await;
    assert!(payment
        .body
        .contains(&format!("<a href=\"/dashboard/links/{id}\">{id}</a>")));
    let list = browser.get("/dashboard/links").await;
    let row = &list.body[list.body.find(&format!("data-link-id=\"{id}\"")).unwrap()..];
    let row = &row[..row.find("</tr>").unwrap()];
    assert!(
        row.contains("Robe wax") && row.contains("data-state=\"active\"") && row.contains("1 / 1"),
        "{row}"
    );
    let english = browser.get(&format!("/dashboard/links/{id}?lang=en")).await;
    assert!(english.body.contains("Deactivate this link") && english.body.contains("Payment links"));
    browser.get("/dashboard/links?lang=fr").await;

    // Deactivated only with this session's token and the confirmation.
    let action = format!("/dashboard/links/{id}/deactivate");
    let csrf = page.csrf();
    let refused = browser.post(&action, &[("confirm", "yes")]).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.body);
    let unconfirmed = browser.post(&action, &[("csrf_token", csrf.as_str())]).await;
    assert_eq!(unconfirmed.status, StatusCode::BAD_REQUEST, "{}", unconfirmed.body);
    assert!(unconfirmed.text_of("error").unwrap().contains("Cochez la case"));
    assert_eq!(unconfirmed.text_of("link-state").as_deref(), Some("Actif"));
    let done = browser
        .post(&action, &[("csrf_token", csrf.as_str()), ("confirm", "yes")])
        .await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.body);
    assert!(done.text_of("flash").unwrap().starts_with("Lien désactivé"));
    assert_eq!(done.text_of("link-state").as_deref(), Some("Désactivé"));
    assert!(done.has_id("link-deactivated-at") && !done.has_id("deactivate"));
    let shown = answer(app.get(&format!("/v1/payment-links/{id}")).bearer_auth(&token)).await;
    assert_eq!(shown.body["data"]["active"], json!(false));
    let closed = links.pay(&id, payer("01"), Timestamp::now()).await;
    assert!(matches!(closed, Err(LinkPaymentError::Closed(_))), "{closed:?}");

    // Another merchant finds nothing: its list is empty, the link's page and form are 404.
    let other = app.new_merchant("Other").await;
    let mut theirs = Browser::new(&app);
    theirs.sign_in(&other.sandbox).await;
    let list = theirs.get("/dashboard/links").await;
    assert!(list.has_id("no-links"));
    let long = format!("/dashboard/links/lnk_{}", "x".repeat(10_000));
    for path in [
        format!("/dashboard/links/{id}"),
        "/dashboard/links/lnk_nothing".to_owned(),
        long,
    ] {
        let page = theirs.get(&path).await;
        assert_eq!(page.status, StatusCode::NOT_FOUND, "{path:.60}: {}", page.body);
        assert!(page.has_id("page-not-found"));
    }
    let csrf = list.csrf();
    let refused = theirs
        .post(&action, &[("csrf_token", csrf.as_str()), ("confirm", "yes")])
        .await;
    assert_eq!(refused.status, StatusCode::NOT_FOUND, "{}", refused.body);
    app.assert_ledger().await;
}

async fn bad_link_forms_are_refused_on_the_page_and_make_nothing(app: TestApp) {
    let token = app.sandbox_token().await;
    let mut browser = Browser::new(&app);
    browser.sign_in(&app.merchant.sandbox).await;
    let fields = good(&browser.get("/dashboard/links/new").await.csrf());
    let no_operator: Vec<_> = fields
        .iter()
        .filter(|(k, _)| !k.starts_with("operator-"))
        .cloned()
        .collect();
    let cases = [
        (with(&fields, "amount", "12,5"), "Montant invalide"),
        (with(&fields, "amount", "50"), "Montant invalide"),
        (with(&fields, "min_amount", "1000"), "pas les deux"),
        (
            with(&with(&fields, "amount", ""), "max_amount", "2000000"),
            "Montant invalide",
        ),
        (
            with(
                &with(&with(&fields, "amount", ""), "min_amount", "9000"),
                "max_amount",
                "1000",
            ),
            "Le minimum dépasse le maximum",
        ),
        (with(&fields, "description", "  "), "Description requise"),
        (with(&fields, "description", &"x".repeat(256)), "Description requise"),
        (with(&fields, "usage", "once"), "Nombre de paiements invalide"),
        (with(&fields, "max_payments", "0"), "Nombre de paiements invalide"),
        (with(&fields, "max_payments", "deux"), "Nombre de paiements invalide"),
        (with(&fields, "expires_at", "2020-01-01T00:00"), "Expiration invalide"),
        (with(&fields, "expires_at", "demain"), "Expiration invalide"),
        (no_operator, "Cochez au moins un opérateur"),
        (
            with(&fields, "success_url", "javascript:alert(1)"),
            "URL de retour invalide",
        ),
        (
            with(&fields, "error_url", "ftp://boutique.example/"),
            "URL de retour invalide",
        ),
    ];
    for (sent, says) in cases {
        let refused = send(&mut browser, "/dashboard/links", &sent).await;
        assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{says}: {}", refused.body);
        let said = refused.text_of("error").unwrap_or_default();
        assert!(said.contains(says), "{says}: {said}");
        assert!(refused.body.contains("id=\"error\" role=\"alert\""));
        assert!(refused.has_id("link-form"), "the form is still there to correct");
        assert!(
            !refused.body.contains("panicked") && !refused.body.contains("src/"),
            "never a trace"
        );
    }
    // The form comes back as sent.
    let refused = send(&mut browser, "/dashboard/links", &with(&fields, "amount", "12,5")).await;
    assert_eq!(value_of(&refused, "link-amount").as_deref(), Some("12,5"));
    assert_eq!(value_of(&refused, "link-description").as_deref(), Some("Robe wax"));
    assert!(refused
        .body
        .contains("id=\"link-reusable\" type=\"radio\" name=\"usage\" value=\"reusable\" checked"));
    assert!(!refused.body.contains("name=\"operator-BETA\" value=\"yes\" checked"));
    assert!(api_links(&app, &token).await.is_empty(), "nothing made");
    // A bounded link with no expiry in English: the bounds on its page.
    let open = with(
        &with(&with(&fields, "amount", ""), "min_amount", "1000"),
        "max_amount",
        "9 000",
    );
    let open = with(&open, "expires_at", "2099-12-31T23:59");
    let made = send(&mut browser, "/dashboard/links", &open).await;
    assert_eq!(made.status, StatusCode::SEE_OTHER, "{}", made.body);
    let page = browser.get(&format!("{}&lang=en", made.location().unwrap())).await;
    assert_eq!(
        page.text_of("link-amount"),
        Some("1\u{202f}000 F CFA – 9\u{202f}000 F CFA".to_owned())
    );
    assert_eq!(page.text_of("link-expires").as_deref(), Some("2099-12-31 23:59:00 UTC"));
    assert!(page.text_of("flash").unwrap().starts_with("Link created"));
    assert_eq!(api_links(&app, &token).await.len(), 1);
}
