//! The dashboard's accessibility as Chromium renders it (issue 14, item 4): on every page, every
//! control has a label, every text's contrast passes WCAG AA against what is really behind it
//! (computed styles, not the stylesheet's intentions), the keyboard focus is visible, and the
//! page says its language, French by default and English when asked.

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::dashboard::browser_walkthrough::sign_in;
use crate::support::browser::Browser;
use crate::support::helpers::{answer, TestApp};
use crate::support::requests::{collect_v1, post};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    every_page_labels_its_controls_and_passes_wcag_aa_contrast,
);

/// The controls a screen reader could not name: no `<label>`, no `aria-label(ledby)`; buttons
/// and links without text.
const UNLABELLED: &str = r#"
const named = e => (e.labels && e.labels.length) || e.getAttribute('aria-label') || e.getAttribute('aria-labelledby');
const fields = [...document.querySelectorAll('input:not([type=hidden]), select, textarea')].filter(e => !named(e));
const clickable = [...document.querySelectorAll('button, a[href]')].filter(e => !e.textContent.trim() && !named(e) && !e.getAttribute('title'));
return fields.concat(clickable).map(e => e.outerHTML.slice(0, 80));
"#;

/// The texts whose contrast with their effective background is under WCAG AA: 4.5:1, or 3:1
/// for large text (24 px, or 18.66 px bold). The background is the nearest ancestor's that is
/// not transparent. The chart's SVG labels are left out (`fill`, not `color`, draws them).
const LOW_CONTRAST: &str = r#"
const rgb = c => c.match(/[\d.]+/g).map(Number);
const lum = c => { const [r, g, b] = rgb(c).slice(0, 3).map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
const opaque = c => { const v = rgb(c); return v.length < 4 || v[3] > 0; };
const behind = e => { for (; e; e = e.parentElement) { const c = getComputedStyle(e).backgroundColor; if (opaque(c)) return c; } return 'rgb(255, 255, 255)'; };
const bad = [];
for (const e of document.querySelectorAll('body *')) {
  if (e.closest('svg') || ![...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())) continue;
  const s = getComputedStyle(e), box = e.getBoundingClientRect();
  if (s.visibility === 'hidden' || box.width === 0 || box.height === 0) continue;
  const [a, b] = [lum(s.color), lum(behind(e))];
  const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  const size = parseFloat(s.fontSize), large = size >= 24 || (parseInt(s.fontWeight) >= 700 && size >= 18.66);
  if (ratio < (large ? 3 : 4.5)) bad.push(`${e.tagName}#${e.id}.${e.className} ${ratio.toFixed(2)}: ${s.color} on ${behind(e)}: ${e.textContent.trim().slice(0, 30)}`);
}
return bad;
"#;

/// How the focused element is outlined, if at all.
const FOCUS_RING: &str = r#"
const s = getComputedStyle(document.activeElement);
return (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0) || s.boxShadow !== 'none';
"#;

async fn every_page_labels_its_controls_and_passes_wcag_aa_contrast(app: TestApp) {
    let Some(browser) = Browser::start().await else { return };
    let token = app.sandbox_token().await;
    for (id, phone) in [("a11y-ok", "0701020301"), ("a11y-ko", "0701020304")] {
        let body = collect_v1(id, phone, "GAMMA_MONEY_CI", "1000");
        post(&app, &token, "/v1/collecte/mobile-money", &body).await;
    }
    let customers = answer(app.get("/v1/customers").bearer_auth(&token)).await;
    assert_eq!(customers.status, StatusCode::OK);
    let customer = customers.body["data"][0]["id"].as_str().expect("a customer").to_owned();

    browser.goto(&app.url("/dashboard/login")).await;
    // The checks see what they look for: a grey text and a bare field, added for a moment.
    let planted = "const p = document.createElement('p'); p.id = 'planted'; p.style.color = '#aaa'; \
                   p.append('pâle', document.createElement('input')); document.body.append(p); return null;";
    browser.script(planted).await;
    let low = browser.script(LOW_CONTRAST).await;
    assert!(low.to_string().contains("P#planted"), "{low}");
    assert_eq!(browser.script(UNLABELLED).await.as_array().map(Vec::len), Some(1));
    browser
        .script("document.getElementById('planted').remove(); return null;")
        .await;
    check(&browser, "/dashboard/login", "fr").await;
    // Every stop of the keyboard on the sign-in page shows where it is.
    for _ in 0..6 {
        let focused = browser.tab().await;
        assert_eq!(
            browser.script(FOCUS_RING).await,
            json!(true),
            "{focused} has no visible focus"
        );
    }
    let link = post(
        &app,
        &token,
        "/v1/payment-links",
        &json!({"amount": "5000", "description": "Robe"}),
    )
    .await;
    let link_page = format!("/dashboard/links/{}", link.body["data"]["id"].as_str().expect("a link"));
    let batch = post(
        &app,
        &token,
        "/v1/payout-batches",
        &json!({"items": [crate::support::requests::transfer_v1("a11y-pay", "0701020301", "GAMMA_MONEY_CI", "1000")]}),
    )
    .await;
    let batch_page = format!(
        "/dashboard/payouts/{}",
        batch.body["data"]["batch"]["id"].as_str().expect("a batch")
    );
    sign_in(&browser, &app, &app.merchant.sandbox.clone()).await;
    let customer_page = format!("/dashboard/customers/{customer}");
    let pages = [
        "/dashboard",
        "/dashboard/transactions",
        "/dashboard/transactions/a11y-ok",
        "/dashboard/customers",
        &customer_page,
        "/dashboard/links",
        "/dashboard/links/new",
        &link_page,
        "/dashboard/payouts",
        &batch_page,
        "/dashboard/webhooks",
        "/dashboard/api-keys",
        "/dashboard/no-such-page",
    ];
    for page in pages {
        browser.goto(&app.url(page)).await;
        check(&browser, page, "fr").await;
    }
    // English, asked once, is remembered.
    browser.goto(&app.url("/dashboard?lang=en")).await;
    check(&browser, "/dashboard?lang=en", "en").await;
    browser.goto(&app.url("/dashboard/transactions")).await;
    check(&browser, "/dashboard/transactions", "en").await;
}

/// The page shown has labelled controls, AA contrast, and says it is in `lang`.
async fn check(browser: &Browser, page: &str, lang: &str) {
    let said = browser.script("return document.documentElement.lang").await;
    assert_eq!(said, json!(lang), "{page}");
    let unlabelled = browser.script(UNLABELLED).await;
    assert_eq!(unlabelled, Value::Array(Vec::new()), "{page}: controls without a name");
    let low = browser.script(LOW_CONTRAST).await;
    assert_eq!(low, Value::Array(Vec::new()), "{page}: contrast under WCAG AA");
}
