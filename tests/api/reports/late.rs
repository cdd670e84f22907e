//! Lines that commit late: a posting's time is stamped before its write is queued, so lines
//! younger than the settle lag (60 s) may still be joined by lines dated just before them. The
//! statement's `X-Next-Cursor` never passes such a line while an older one is on the page, and
//! a settlement report is `complete` only for a day past by more than that lag.

use std::time::Duration;

use momo_gateway::domain::Francs;
use momo_gateway::domain::{Address, Amount, Environment, MerchantId, Msisdn, OperatorCode, Tenant, Timestamp};
use momo_gateway::service::{Party, PaymentRequest};
use reqwest::StatusCode;

use crate::support::helpers::{answer, TestApp};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    the_next_cursor_stops_before_lines_younger_than_the_settle_lag,
    a_past_days_report_is_complete_and_counts_the_settlements_of_that_day_only,
);

async fn the_next_cursor_stops_before_lines_younger_than_the_settle_lag(app: TestApp) {
    let tenant = Tenant {
        merchant_id: MerchantId::from(app.merchant.id.clone()),
        environment: Environment::Production,
    };
    // Two top-ups ten minutes ago (settled), two now (younger than the lag).
    let now = Timestamp::now();
    let old = now.minus(Duration::from_secs(600));
    let steps = [
        (1, old),
        (2, old.plus(Duration::from_millis(1))),
        (4, now.minus(Duration::from_millis(1))),
        (8, now),
    ];
    for (amount, at) in steps {
        app.gateway.balances.top_up(&tenant, Francs(amount), at).await.unwrap();
    }
    let token = app.token(&app.merchant.production.clone()).await;
    let page = |cursor: Option<String>| {
        let path = match cursor {
            Some(c) => format!("/v1/ledger/entries?limit=3&cursor={c}"),
            None => "/v1/ledger/entries?limit=3".to_owned(),
        };
        let request = app.get(&path).bearer_auth(&token);
        async move {
            let a = answer(request).await;
            assert_eq!(a.status, StatusCode::OK, "{}", a.body);
            let amounts: Vec<String> = a.body["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l["amount"].as_str().unwrap().to_owned())
                .collect();
            (amounts, a.header("x-next-cursor").map(str::to_owned))
        }
    };
    // Page 1 ends with a young line: its cursor is at the last settled one, so page 2 reads
    // the young lines again, with any that committed late among them.
    let (first, cursor) = page(None).await;
    assert_eq!(first, ["1", "2", "4"]);
    assert!(cursor.is_some(), "more lines follow");
    let (second, cursor) = page(cursor).await;
    assert_eq!(second, ["4", "8"], "page 2 starts after the last settled line");
    assert_eq!(cursor, None, "the last page");

    // A page of young lines only moves on: it cannot wait for them to age.
    let young_from = format!(
        "/v1/ledger/entries?limit=1&from={}",
        now.minus(Duration::from_millis(1)).iso8601_millis()
    );
    let a = answer(app.get(&young_from).bearer_auth(&token)).await;
    assert_eq!(a.body["data"][0]["amount"], "4");
    let next = a
        .header("x-next-cursor")
        .expect("a young page still moves on")
        .to_owned();
    let b = answer(app.get(&format!("{young_from}&cursor={next}")).bearer_auth(&token)).await;
    assert_eq!(b.body["data"][0]["amount"], "8", "the next young line");
}

fn collection(transaction_id: &str, francs: i64) -> PaymentRequest {
    let phone = Msisdn::parse("0701020301").unwrap();
    PaymentRequest {
        transaction_id: transaction_id.into(),
        operator: OperatorCode::Alpha,
        phone: phone.clone(),
        phone_as_sent: phone.as_str().to_owned(),
        amount: Amount::from_francs(francs).unwrap(),
        party: Party {
            first_name: "Awa".into(),
            last_name: "Kone".into(),
            email: None,
            phone,
            address: Address::parse("CI", None, None).unwrap(),
        },
        operator_alias: None,
        purpose: momo_gateway::service::payments::Requested::collection(),
    }
}

/// Collections that succeed at once, one just before midnight and one just after: each day's
/// report (read from that day's transitions) has its own, and is complete, the day being past.
async fn a_past_days_report_is_complete_and_counts_the_settlements_of_that_day_only(app: TestApp) {
    let tenant = Tenant {
        merchant_id: MerchantId::from(app.merchant.id.clone()),
        environment: Environment::Sandbox,
    };
    let at = |iso: &str| Timestamp::parse_iso8601(iso).unwrap();
    for (id, francs, when) in [
        ("before", 1_000, "2026-11-20T23:59:59.900Z"),
        ("after", 2_000, "2026-11-21T00:00:00.100Z"),
    ] {
        app.gateway
            .payments
            .create_payment(&tenant, collection(id, francs), at(when))
            .await
            .unwrap();
    }
    let token = app.sandbox_token().await;
    for (day, amount) in [
        ("2026-11-19", None),
        ("2026-11-20", Some("1000")),
        ("2026-11-21", Some("2000")),
    ] {
        let a = answer(
            app.get(&format!("/v1/reports/settlement?date={day}"))
                .bearer_auth(&token),
        )
        .await;
        assert_eq!(a.status, StatusCode::OK, "{}", a.body);
        assert_eq!(a.body["data"]["complete"], true, "{day}");
        let rows = a.body["data"]["rows"].as_array().unwrap();
        let amounts: Vec<&str> = rows.iter().map(|r| r["amount"].as_str().unwrap()).collect();
        assert_eq!(amounts, amount.into_iter().collect::<Vec<_>>(), "{day}: {rows:?}");
        if let Some(row) = rows.first() {
            assert_eq!(
                (row["status"].as_str(), row["count"].as_i64()),
                (Some("SUCCESSFUL"), Some(1))
            );
        }
    }
}
