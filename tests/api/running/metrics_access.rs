//! Who may read `/metrics` and what a scrape costs the database: with `MOMO_METRICS_TOKEN`
//! set, only its bearer (anyone else is 401 in the v1 envelope); without it, anyone, unless the
//! gateway serves Production, where nobody may until a token is set or `MOMO_METRICS_PUBLIC`
//! opens it; the database's figures are read at most once per
//! `MOMO_METRICS_DATABASE_REFRESH_MS`, whatever the scrapes.

use reqwest::StatusCode;
use serde_json::json;

use crate::support::helpers::{answer, later, production_simulated, TestApp};
use crate::support::requests::{collect_v1, post};
use momo_test_support::both_backends;

both_backends!(TestApp::spawn_with(with_token) => with_a_metrics_token_only_its_bearer_reads_metrics);
both_backends!(TestApp::spawn => the_database_figures_are_read_at_most_once_per_refresh_period);
both_backends!(TestApp::spawn_with(production_simulated) => a_gateway_serving_production_serves_metrics_to_no_one_without_a_token);
both_backends!(TestApp::spawn_with(production_in_public) => metrics_public_opens_them_on_a_gateway_serving_production);

fn production_in_public(c: &mut momo_gateway::config::Config) {
    production_simulated(c);
    c.metrics.public = true;
}

const METRICS_TOKEN: &str = "scrape-0123456789-abcdef";

fn with_token(c: &mut momo_gateway::config::Config) {
    c.metrics.token = Some(METRICS_TOKEN.to_owned());
}

fn has_line(text: &str, line: &str) -> bool {
    text.lines().any(|l| l == line)
}

async fn with_a_metrics_token_only_its_bearer_reads_metrics(app: TestApp) {
    let merchant_token = app.sandbox_token().await;
    let refused = [
        app.get("/metrics"),
        app.get("/metrics").bearer_auth("scrape-0123456789-abcdeg"),
        app.get("/metrics").bearer_auth(&METRICS_TOKEN[..10]),
        app.get("/metrics").bearer_auth(format!("{METRICS_TOKEN}x")),
        app.get("/metrics").bearer_auth(&merchant_token),
        app.get("/metrics").basic_auth(METRICS_TOKEN, Some(METRICS_TOKEN)),
        app.get("/metrics").header("authorization", METRICS_TOKEN),
    ];
    let count = refused.len();
    for request in refused {
        let a = answer(request).await;
        assert_eq!(a.status, StatusCode::UNAUTHORIZED, "{}", a.body);
        assert_eq!(a.body["statusCode"], json!(401));
        assert_eq!(a.body["message"], json!("UnauthorizedError"));
        assert!(
            a.body["reason"].as_str().unwrap().contains("MOMO_METRICS_TOKEN"),
            "{}",
            a.body
        );
        assert!(a.header("www-authenticate").unwrap().starts_with("Bearer"));
    }
    for scheme in ["Bearer", "bearer"] {
        let allowed = app
            .get("/metrics")
            .header("authorization", format!("{scheme} {METRICS_TOKEN}"))
            .send()
            .await
            .unwrap();
        assert_eq!(allowed.status(), StatusCode::OK);
        let text = allowed.text().await.unwrap();
        assert!(has_line(&text, "momo_database_up 1"), "{text}");
        let failures = format!("momo_auth_failures_total{{kind=\"metrics\"}} {count}");
        assert!(has_line(&text, &failures), "each refusal counted: {failures}\n{text}");
    }
}

async fn scrape(app: &TestApp) -> String {
    let response = app.get("/metrics").send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    response.text().await.unwrap()
}

async fn the_database_figures_are_read_at_most_once_per_refresh_period(app: TestApp) {
    assert_eq!(
        app.gateway.config().metrics.database_refresh,
        std::time::Duration::from_secs(5),
        "the default"
    );
    let first = scrape(&app).await;
    assert!(has_line(&first, "momo_pending_transactions 0"), "{first}");
    let token = app.sandbox_token().await;
    let pending = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("cached", "0701020302", "GAMMA_MONEY_CI", "1000"),
    )
    .await;
    assert_eq!(pending.status, StatusCode::ACCEPTED, "{}", pending.body);
    // Scrapes within the period show the reading they share, not a count of their own.
    for _ in 0..20 {
        let again = scrape(&app).await;
        assert!(has_line(&again, "momo_pending_transactions 0"), "{again}");
        assert!(has_line(&again, "momo_database_up 1"), "{again}");
    }
    // Past the period the figures are read again.
    let gauges = app.gateway.gauges(later(5_500)).await;
    let figures = gauges.database.expect("the database answers");
    assert_eq!(figures.pending_transactions, 1);
    let after = scrape(&app).await;
    assert!(has_line(&after, "momo_pending_transactions 1"), "{after}");
}

async fn a_gateway_serving_production_serves_metrics_to_no_one_without_a_token(app: TestApp) {
    let a = answer(app.get("/metrics")).await;
    assert_eq!(a.status, StatusCode::UNAUTHORIZED, "{}", a.body);
    let reason = a.body["reason"].as_str().unwrap();
    assert!(
        reason.contains("serves Production") && reason.contains("MOMO_METRICS_PUBLIC"),
        "says why and what to set: {reason}"
    );
}

async fn metrics_public_opens_them_on_a_gateway_serving_production(app: TestApp) {
    let text = scrape(&app).await;
    assert!(has_line(&text, "momo_database_up 1"), "{text}");
}
