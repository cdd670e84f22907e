//! What keeps a browser from misusing the gateway's answers: the payer's BETA page carries the
//! dashboard's page headers (no framing, no sniffing, no referrer), and with an https public
//! URL every answer carries HSTS and the session cookie is a `__Host-` cookie.

use reqwest::StatusCode;
use serde_json::json;

use crate::support::dashboard_client::Browser;
use crate::support::helpers::TestApp;
use crate::support::requests::{collect_v1, post};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    the_launch_page_sends_the_dashboards_page_headers_and_no_hsts_over_http,
);
both_backends!(
    TestApp::spawn_with(over_https) =>
    over_https_every_answer_carries_hsts_and_the_session_cookie_is_a_host_cookie,
);

fn over_https(c: &mut momo_gateway::config::Config) {
    c.public_url = "https://gateway.test".to_owned();
}

const PAGE_HEADERS: [&str; 3] = ["content-security-policy", "x-content-type-options", "referrer-policy"];

/// A BETA collection's launch page path, with `urlSuccess` set when given.
async fn launch_path(app: &TestApp, id: &str, success_url: Option<&str>) -> String {
    let token = app.sandbox_token().await;
    let mut body = collect_v1(id, "0701020307", "BETA_MONEY_CI", "1000");
    if let Some(url) = success_url {
        body["urlSuccess"] = json!(url);
    }
    let a = post(app, &token, "/v1/collecte/mobile-money", &body).await;
    assert_eq!(a.status, StatusCode::ACCEPTED, "{}", a.body);
    let launch = a.body["data"]["betaLaunchUrl"].as_str().unwrap();
    let (_, path) = launch.split_once("gateway.test").unwrap();
    path.to_owned()
}

async fn the_launch_page_sends_the_dashboards_page_headers_and_no_hsts_over_http(app: TestApp) {
    let login = app.get("/dashboard/login").send().await.unwrap();
    let dashboard = |name: &str| login.headers()[name].to_str().unwrap().to_owned();
    assert!(dashboard("content-security-policy").contains("frame-ancestors 'none'"));

    let path = launch_path(&app, "csp-plain", None).await;
    let page = app.get(&path).send().await.unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    for name in PAGE_HEADERS {
        assert_eq!(page.headers()[name].to_str().unwrap(), dashboard(name), "{name}");
    }
    assert_eq!(page.headers()["x-content-type-options"], "nosniff");
    assert!(page.headers().get("strict-transport-security").is_none(), "plain http");
    assert!(login.headers().get("strict-transport-security").is_none(), "plain http");

    // Approving sends the payer on to the merchant, which the page's form-action allows.
    let path = launch_path(&app, "csp-return", Some("https://shop.example.ci:8443/merci?o=1")).await;
    let page = app.get(&path).send().await.unwrap();
    let csp = page.headers()["content-security-policy"].to_str().unwrap().to_owned();
    assert_eq!(
        csp,
        dashboard("content-security-policy")
            .replace("form-action 'self'", "form-action 'self' https://shop.example.ci:8443"),
    );
    // The result page after the decision carries them too.
    let decided = app.post(&format!("{path}/decline")).send().await.unwrap();
    assert_eq!(decided.status(), StatusCode::OK, "no error URL: the result page");
    for name in PAGE_HEADERS {
        assert_eq!(decided.headers()[name].to_str().unwrap(), dashboard(name), "{name}");
    }
}

async fn over_https_every_answer_carries_hsts_and_the_session_cookie_is_a_host_cookie(app: TestApp) {
    let path = launch_path(&app, "hsts", None).await;
    let requests = [
        app.get("/health"),
        app.get("/metrics"),
        app.get("/v1/customers"),
        app.get("/v2/no-such-route"),
        app.post("/v1/auth"),
        app.get("/dashboard/login"),
        app.get("/dashboard"),
        app.get(&path),
        app.get("/checkout/unknown-token"),
    ];
    for request in requests {
        let answer = request.send().await.unwrap();
        let url = answer.url().path().to_owned();
        assert_eq!(
            answer
                .headers()
                .get("strict-transport-security")
                .map(|v| v.to_str().unwrap()),
            Some("max-age=31536000"),
            "{url} answered {}",
            answer.status()
        );
    }

    let mut browser = Browser::new(&app);
    let signed_in = browser.sign_in(&app.merchant.sandbox).await;
    assert!(signed_in.set_cookie("momo_session").is_none(), "only the prefixed name");
    let cookie = signed_in
        .set_cookie("__Host-momo_session")
        .expect("a __Host- session cookie");
    for attribute in ["; Secure", "; Path=/;", "HttpOnly", "SameSite=Strict"] {
        assert!(cookie.contains(attribute), "{cookie} has {attribute}");
    }
    assert!(!cookie.to_ascii_lowercase().contains("domain="), "{cookie}");
    let overview = browser.get("/dashboard").await;
    assert_eq!(overview.status, StatusCode::OK);
    // The plain name planted beside it (by a sibling subdomain, say) is no session here.
    let token = browser.cookies.remove("__Host-momo_session").unwrap();
    browser.cookies.insert("momo_session".into(), token.clone());
    let planted = browser.get("/dashboard").await;
    assert_eq!(planted.status, StatusCode::SEE_OTHER);
    assert_eq!(planted.location(), Some("/dashboard/login"));
    // Signing out deletes the prefixed cookie, with the attributes it was set with.
    browser.cookies.clear();
    browser.cookies.insert("__Host-momo_session".into(), token);
    let overview = browser.get("/dashboard").await;
    let logout = browser
        .post("/dashboard/logout", &[("csrf_token", &overview.csrf())])
        .await;
    let deleted = logout.set_cookie("__Host-momo_session").expect("the cookie deleted");
    assert!(
        deleted.contains("Max-Age=0") && deleted.contains("; Path=/;") && deleted.contains("; Secure"),
        "{deleted}"
    );
}
