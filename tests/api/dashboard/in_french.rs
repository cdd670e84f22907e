//! Every refusal the pages show, in French on a French page (the dashboard's default) and as
//! the API says it on an English one: each line a payout batch preview refuses, each file it
//! refuses whole, each webhook URL refused, a filter that means nothing; and the command line's
//! under `LANG=fr_CI.UTF-8`. A French page holds no English sentence
//! (`momo_test_support::english`).

use std::io::Write;

use reqwest::StatusCode;

use crate::support::dashboard_client::{Browser, Page};
use crate::support::helpers::TestApp;
use crate::support::requests::{collect_v1, post};
use momo_test_support::english::{assert_french, english_words};
use momo_test_support::{both_backends, process};

both_backends!(
    TestApp::spawn =>
    a_preview_refuses_each_bad_line_and_each_bad_file_in_the_pages_language,
    webhook_urls_and_filters_are_refused_in_the_pages_language,
    the_command_line_refuses_in_french_under_a_french_locale,
);

/// A line per way a line can be refused, after one that is paid.
const LINES: &str = "transaction_id,operator,phone,amount,last_name,first_name,email,check_recipient\n\
fr-ok,GAMMA_MONEY_CI,0701020301,1500,Koné,Awa,,\n\
fr-phone,GAMMA_MONEY_CI,12345,1500,Koné,Awa,,\n\
fr-amount,GAMMA_MONEY_CI,0701020301,12.5,Koné,Awa,,\n\
fr-operator,OMEGA_CI,0701020301,1500,Koné,Awa,,\n\
,GAMMA_MONEY_CI,0701020301,1500,Koné,Awa,,\n\
fr-last,GAMMA_MONEY_CI,0701020301,1500,,Awa,,\n\
fr-first,GAMMA_MONEY_CI,0701020301,1500,Koné,,,\n\
fr-email,GAMMA_MONEY_CI,0701020301,1500,Koné,Awa,not-an-email,\n\
fr-check,GAMMA_MONEY_CI,0701020301,1500,Koné,Awa,,maybe\n\
fr-ok,GAMMA_MONEY_CI,0701020301,1500,Koné,Awa,,\n\
fr-quote,GAMMA_MONEY_CI,0701020301,1500,\"Koné,Awa,,\n";

/// Files that are no batch at all.
const FILES: [&str; 5] = [
    "",
    "transaction_id,who\nx,1\n",
    "transaction_id,operator,phone,phone,amount,last_name,first_name\n",
    "transaction_id,operator\nx,GAMMA_MONEY_CI\n",
    "transaction_id,operator,phone,amount,last_name,first_name\n",
];

/// The text of each `data-outcome="refused"` row, its tags left out.
fn refused_rows(page: &Page) -> Vec<String> {
    page.body
        .split("data-outcome=\"refused\"")
        .skip(1)
        .map(|row| {
            let row = &row[..row.find("</tr>").unwrap_or(row.len())];
            let mut text = String::new();
            let mut in_tag = true;
            for c in row.chars() {
                match c {
                    '<' => in_tag = true,
                    '>' => in_tag = false,
                    c if !in_tag => text.push(c),
                    _ => {}
                }
            }
            text
        })
        .collect()
}

async fn preview(browser: &mut Browser<'_>, csrf: &str, file: &str) -> Page {
    browser
        .post_multipart(
            "/dashboard/payouts/preview",
            &[("csrf_token", csrf)],
            ("pay.csv", file.as_bytes()),
        )
        .await
}

async fn a_preview_refuses_each_bad_line_and_each_bad_file_in_the_pages_language(app: TestApp) {
    let mut browser = Browser::new(&app);
    browser.sign_in(&app.merchant.sandbox).await;
    let csrf = browser.get("/dashboard/payouts").await.csrf();
    let french = preview(&mut browser, &csrf, LINES).await;
    assert_eq!(french.status, StatusCode::OK, "{}", french.body);
    let rows = refused_rows(&french);
    assert_eq!(rows.len(), 10, "every line but the first: {rows:?}");
    for row in &rows {
        assert_french(row, "preview line");
    }
    assert!(rows.iter().any(|r| r.contains("10 chiffres")), "{rows:?}");
    assert!(
        rows.iter().any(|r| r.contains("même identifiant")),
        "the repeated id: {rows:?}"
    );
    for file in FILES {
        let page = preview(&mut browser, &csrf, file).await;
        assert_eq!(page.status, StatusCode::BAD_REQUEST, "{file:?}: {}", page.body);
        assert_french(
            &page.text_of("error").unwrap_or_default(),
            &format!("refusal of {file:?}"),
        );
    }

    let csrf = browser.get("/dashboard/payouts?lang=en").await.csrf();
    let english = preview(&mut browser, &csrf, LINES).await;
    let rows = refused_rows(&english);
    assert_eq!(rows.len(), 10);
    assert!(
        rows.iter()
            .any(|r| r.contains("phone must be a 10-digit Ivorian mobile number")),
        "the API's own reason on an English page: {rows:?}"
    );
    let wrong = preview(&mut browser, &csrf, FILES[1]).await;
    assert!(!english_words(&wrong.text_of("error").unwrap_or_default()).is_empty());
}

async fn webhook_urls_and_filters_are_refused_in_the_pages_language(app: TestApp) {
    let mut browser = Browser::new(&app);
    browser.sign_in(&app.merchant.sandbox).await;
    let csrf = browser.get("/dashboard/webhooks").await.csrf();
    let nowhere = browser.post("/dashboard/webhooks/test", &[("csrf_token", &csrf)]).await;
    assert_eq!(nowhere.status, StatusCode::BAD_REQUEST, "no URL yet: {}", nowhere.body);
    let error = nowhere.text_of("error").unwrap_or_default();
    assert!(error.starts_with("Aucune URL de webhook"), "{error}");
    assert_french(&error, "a test event with no URL");
    for url in ["ftp://shop.example.ci/hooks", "not a url", "http://10.0.0.5/hooks"] {
        let page = browser
            .post("/dashboard/webhooks/url", &[("csrf_token", &csrf), ("url", url)])
            .await;
        assert_eq!(page.status, StatusCode::BAD_REQUEST, "{url}: {}", page.body);
        let error = page.text_of("error").unwrap_or_default();
        assert!(error.contains("URL de webhook"), "{error}");
        assert_french(&error, url);
    }
    for query in [
        "status=NOPE",
        "type=gift",
        "operator=OMEGA",
        "phone=12",
        "from=yesterday",
    ] {
        let page = browser.get(&format!("/dashboard/transactions?{query}")).await;
        assert_eq!(page.status, StatusCode::BAD_REQUEST, "{query}");
        let error = page.text_of("error").unwrap_or_default();
        assert!(error.starts_with("Filtre invalide"), "{error}");
        assert_french(&error, query);
    }
    let english = browser.get("/dashboard/transactions?status=NOPE&lang=en").await;
    assert!(english
        .text_of("error")
        .unwrap_or_default()
        .starts_with("Invalid filter"));

    // A payment the payer declined (a Sandbox number ending 04): why, in the page's language.
    let token = app.sandbox_token().await;
    let body = collect_v1("fr-declined", "0701020304", "GAMMA_MONEY_CI", "1500");
    let declined = post(&app, &token, "/v1/collecte/mobile-money", &body).await;
    assert_eq!(declined.body["data"]["status"], "FAILED", "{}", declined.body);
    let page = browser.get("/dashboard/transactions/fr-declined?lang=en").await;
    let english = page.text_of("failure-reason").unwrap_or_default();
    assert!(
        !english_words(&english).is_empty(),
        "the operator's reason on an English page: {english}"
    );
    let page = browser.get("/dashboard/transactions/fr-declined?lang=fr").await;
    let french = page.text_of("failure-reason").unwrap_or_default();
    assert!(french.contains("le payeur a refusé"), "{french}: {}", page.body);
    assert_french(&french, "failure reason");
}

async fn the_command_line_refuses_in_french_under_a_french_locale(app: TestApp) {
    let (database_url, merchant) = (app.database_url.clone(), app.merchant.id.as_str().to_owned());
    let run = move |file: &'static str| {
        let mut csv = tempfile::NamedTempFile::new().unwrap();
        csv.write_all(file.as_bytes()).unwrap();
        let mut command = process::command(&database_url);
        command
            .env("LANG", "fr_CI.UTF-8")
            .args(["payouts", "batch", "--merchant", &merchant, "--env", "Sandbox"])
            .args(["--all-or-nothing", "--no-wait", "--file"])
            .arg(csv.path());
        let output = command.output().expect("the binary runs");
        drop(csv);
        output
    };
    let again = run.clone();
    let refused = tokio::task::spawn_blocking(move || run(LINES)).await.unwrap();
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr).into_owned();
    assert!(said.contains("le lot a été refusé en entier"), "{said}");
    let lines: Vec<&str> = said.lines().filter(|l| l.starts_with("ligne ")).collect();
    assert_eq!(lines.len(), 11, "ten refused and the good one not attempted: {said}");
    for line in lines {
        assert_french(line, "command-line refusal");
    }
    let wrong = tokio::task::spawn_blocking(move || again(FILES[1])).await.unwrap();
    let said = String::from_utf8_lossy(&wrong.stderr).into_owned();
    assert!(said.contains("rien n’a été enregistré"), "{said}");
    let said = said
        .lines()
        .find(|l| l.contains("rien n’a été enregistré"))
        .unwrap_or_default();
    assert_french(&said[said.find(" : ").unwrap_or(0)..], "command-line file refusal");
}
