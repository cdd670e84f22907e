//! The reports a merchant reconciles with: the ledger statement (`GET /v1/ledger/entries`) and
//! the settlement report (`GET /v1/reports/settlement`), after a mixed Sandbox scenario, checked
//! against the balance, against each other, and across pages and formats. Bad requests and other
//! merchants' money are in `access.rs`; how these tests read the reports, in `reading.rs`.

use std::collections::{BTreeMap, BTreeSet};

use momo_gateway::reconcile::callbacks;
use reqwest::StatusCode;
use serde_json::Value;

use super::reading::{balance, csv, day_of, field, millis, money, statement};
use crate::support::helpers::{answer, later, TestApp};
use crate::support::requests::{collect_v1, post, transfer_v1};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    the_statement_and_the_settlement_report_agree_with_the_balance_after_a_mixed_scenario,
);

/// Settlement rows by (operator, typeTransaction, status): (count, amount, fees, net).
type RowSums = BTreeMap<(String, String, String), (i64, i64, i64, i64)>;

/// Collections and transfers over the four operators with the simulator's endings: `01`
/// succeeds at once, `04` fails at once, `02` and `03` succeed and fail at the callback,
/// `06` stays pending. Returns after the callbacks ran.
async fn mixed_scenario(app: &TestApp, token: &str) {
    let payments = [
        (
            "/v1/collecte/mobile-money",
            "c-a1",
            "0701020301",
            "ALPHA_MONEY_CI",
            "1500",
        ),
        (
            "/v1/collecte/mobile-money",
            "c-g4",
            "0701020304",
            "GAMMA_MONEY_CI",
            "1200",
        ),
        (
            "/v1/collecte/mobile-money",
            "c-g2",
            "0701020302",
            "GAMMA_MONEY_CI",
            "2000",
        ),
        (
            "/v1/collecte/mobile-money",
            "c-d3",
            "0701020303",
            "DELTA_MONEY_CI",
            "2500",
        ),
        (
            "/v1/collecte/mobile-money",
            "c-a6",
            "0701020306",
            "ALPHA_MONEY_CI",
            "900",
        ),
        (
            "/v1/transfer/mobile-money",
            "t-b1",
            "0501020301",
            "BETA_MONEY_CI",
            "1000",
        ),
        (
            "/v1/transfer/mobile-money",
            "t-g4",
            "0701020304",
            "GAMMA_MONEY_CI",
            "1100",
        ),
        (
            "/v1/transfer/mobile-money",
            "t-d3",
            "0701020303",
            "DELTA_MONEY_CI",
            "1300",
        ),
        (
            "/v1/transfer/mobile-money",
            "t-a2",
            "0701020302",
            "ALPHA_MONEY_CI",
            "3000",
        ),
        (
            "/v1/transfer/mobile-money",
            "t-d6",
            "0701020306",
            "DELTA_MONEY_CI",
            "4000",
        ),
    ];
    for (path, id, phone, operator, amount) in payments {
        let body = if path.contains("collecte") {
            collect_v1(id, phone, operator, amount)
        } else {
            transfer_v1(id, phone, operator, amount)
        };
        let a = post(app, token, path, &body).await;
        let expected = match &phone[8..] {
            "01" => StatusCode::OK,
            "04" => StatusCode::GATEWAY_TIMEOUT,
            _ => StatusCode::ACCEPTED,
        };
        assert_eq!(a.status, expected, "{id}: {}", a.body);
    }
    let settled = callbacks::run_once(&app.gateway.payments, later(2_500)).await.unwrap();
    assert_eq!(settled.settled, 4, "c-g2 c-d3 t-d3 t-a2");
}

async fn the_statement_and_the_settlement_report_agree_with_the_balance_after_a_mixed_scenario(app: TestApp) {
    let token = app.sandbox_token().await;
    mixed_scenario(&app, &token).await;

    // The balance, worked out by hand: fees 2 % (BETA 1.5 %) on collections, 1 % on transfers.
    let (available, reserved) = balance(&app, &token).await;
    assert_eq!(
        (available, reserved),
        (10_000_000 + 1_470 + 1_960 - 1_015 - 3_030 - 4_040, 4_040)
    );

    // One page: the opening credit, then every posting, the last one leaving the balance.
    let (lines, pages) = statement(&app, &token, "").await;
    assert_eq!(pages, 1);
    assert_eq!(lines.len(), 19, "credit 1, collections 2, transfers 3 + 4 + 4 + 3 + 2");
    assert_eq!(
        (
            lines[0]["movement"].as_str(),
            money(&lines[0]["amount"]),
            lines[0]["ref"].clone()
        ),
        (Some("credit"), 10_000_000, Value::Null)
    );
    let last = lines.last().unwrap();
    assert_eq!(
        (money(&last["balanceAvailable"]), money(&last["balanceReserved"])),
        (available, reserved),
        "the last running balance is GET /v1/balance"
    );
    // Each line moves its own account from the line before, from zero; order is (time, id).
    let (mut a, mut r) = (0, 0);
    for (i, line) in lines.iter().enumerate() {
        match line["account"].as_str().unwrap() {
            "available" => a += money(&line["amount"]),
            "reserved" => r += money(&line["amount"]),
            other => panic!("{other} is not the merchant's account"),
        }
        assert_eq!(
            (money(&line["balanceAvailable"]), money(&line["balanceReserved"])),
            (a, r),
            "line {i}"
        );
        assert!(a >= 0 && r >= 0, "line {i} shows a balance below zero: {line}");
        // Oldest first (ISO 8601 UTC texts sort as their times); the id order among postings
        // of one millisecond is the database's own, and paging below relies on it.
        if i > 0 {
            assert!(millis(&lines[i - 1]) <= millis(line), "line {i} in time order");
        }
    }
    let movements: BTreeMap<&str, usize> = lines.iter().fold(BTreeMap::new(), |mut m, l| {
        *m.entry(l["movement"].as_str().unwrap()).or_default() += 1;
        m
    });
    assert_eq!(
        movements,
        BTreeMap::from([
            ("collection", 2),
            ("credit", 1),
            ("transfer_payout", 2),
            ("transfer_release", 4),
            ("transfer_reservation", 10)
        ])
    );

    // From the first payment on: the window's opening balance counts the credit before it, and
    // its lines sum to the balance change.
    let from = lines[1]["createdAt"].as_str().unwrap();
    let (window, _) = statement(&app, &token, &format!("from={from}")).await;
    assert_eq!(
        window,
        lines[1..].to_vec(),
        "the same lines, with the same running balances"
    );
    let sum = |account: &str| -> i64 {
        window
            .iter()
            .filter(|l| l["account"] == account)
            .map(|l| money(&l["amount"]))
            .sum()
    };
    assert_eq!((sum("available"), sum("reserved")), (available - 10_000_000, reserved));

    // Small pages give the same lines and running balances as one page.
    let (paged, pages) = statement(&app, &token, "limit=3").await;
    assert_eq!(pages, 7);
    assert_eq!(paged, lines);

    // CSV: a header, then the same lines in the same order, page by page too.
    let (headers, records) = csv(&app, &token, "/v1/ledger/entries?format=csv").await;
    assert!(!headers.contains_key("x-next-cursor"));
    let columns = records[0].clone();
    assert_eq!(
        columns.join(","),
        "createdAt,id,entryId,account,movement,amount,balanceAvailable,balanceReserved,ref,transactionId,typeTransaction,operator,status,linkPaymentId"
    );
    let as_csv: Vec<Vec<String>> = lines
        .iter()
        .map(|l| columns.iter().map(|c| field(&l[c.as_str()])).collect())
        .collect();
    assert_eq!(records[1..].to_vec(), as_csv);
    let (headers, first_page) = csv(&app, &token, "/v1/ledger/entries?format=csv&limit=3").await;
    assert_eq!(first_page[1..].to_vec(), as_csv[..3].to_vec());
    let json_page = answer(app.get("/v1/ledger/entries?limit=3").bearer_auth(&token)).await;
    assert_eq!(
        headers["x-next-cursor"].to_str().unwrap(),
        json_page.header("x-next-cursor").unwrap(),
        "the same next page"
    );

    // The settlement report of each day the statement spans (one, unless the scenario ran
    // across midnight UTC) against the statement lines of that day.
    let days: BTreeSet<String> = lines[1..].iter().map(day_of).collect();
    let mut rows: RowSums = BTreeMap::new();
    let mut fees = 0;
    for day in &days {
        let a = answer(
            app.get(&format!("/v1/reports/settlement?date={day}"))
                .bearer_auth(&token),
        )
        .await;
        assert_eq!(a.status, StatusCode::OK, "{}", a.body);
        let report = &a.body["data"];
        assert_eq!(
            (report["date"].as_str(), report["environment"].as_str()),
            (Some(day.as_str()), Some("Sandbox"))
        );
        // Today, or a day that ended less than the settle lag (60 s) ago: not final yet.
        assert_eq!(report["complete"], false, "{day} read as it happens");
        let of_day = |kind: &str| -> i64 {
            lines
                .iter()
                .filter(|l| day_of(l) == *day && l["typeTransaction"] == kind)
                .map(|l| money(&l["amount"]))
                .sum()
        };
        let totals = &report["totals"];
        assert_eq!(
            money(&totals["collected"]),
            of_day("collecte"),
            "collections credited on {day}"
        );
        assert_eq!(
            money(&totals["paidOut"]),
            -of_day("transfer"),
            "transfers paid out on {day}"
        );
        assert_eq!(
            money(&totals["net"]),
            of_day("collecte") + of_day("transfer"),
            "the day's change but for credits"
        );
        fees += money(&totals["fees"]);
        for row in report["rows"].as_array().unwrap() {
            let key = (
                field(&row["operator"]),
                field(&row["typeTransaction"]),
                field(&row["status"]),
            );
            let sums = rows.entry(key).or_default();
            *sums = (
                sums.0 + row["count"].as_i64().unwrap(),
                sums.1 + money(&row["amount"]),
                sums.2 + money(&row["fees"]),
                sums.3 + money(&row["net"]),
            );
        }
        // Its CSV has the same rows.
        let (_, records) = csv(&app, &token, &format!("/v1/reports/settlement?date={day}&format=csv")).await;
        assert_eq!(
            records[0].join(","),
            "date,operator,typeTransaction,status,count,amount,fees,net,complete"
        );
        let as_csv: Vec<Vec<String>> = report["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let mut cells = vec![day.clone()];
                let of_row_or_report = |c: &str| field(r.get(c).unwrap_or(&report[c]));
                cells.extend(records[0][1..].iter().map(|c| of_row_or_report(c)));
                cells
            })
            .collect();
        assert_eq!(records[1..].to_vec(), as_csv);
    }
    assert_eq!(fees, 30 + 40 + 15 + 30, "the fees of the successful transactions");
    let expected = [
        ("ALPHA_MONEY_CI", "collecte", "SUCCESSFUL", 1500, 30, 1470),
        ("ALPHA_MONEY_CI", "collecte", "PENDING", 900, 18, 882),
        ("ALPHA_MONEY_CI", "transfer", "SUCCESSFUL", 3000, 30, 3030),
        ("BETA_MONEY_CI", "transfer", "SUCCESSFUL", 1000, 15, 1015),
        ("GAMMA_MONEY_CI", "collecte", "SUCCESSFUL", 2000, 40, 1960),
        ("GAMMA_MONEY_CI", "collecte", "FAILED", 1200, 24, 1176),
        ("GAMMA_MONEY_CI", "transfer", "FAILED", 1100, 11, 1111),
        ("DELTA_MONEY_CI", "collecte", "FAILED", 2500, 50, 2450),
        ("DELTA_MONEY_CI", "transfer", "FAILED", 1300, 13, 1313),
        ("DELTA_MONEY_CI", "transfer", "PENDING", 4000, 40, 4040),
    ];
    let expected: RowSums = expected
        .iter()
        .map(|(o, k, s, amount, fees, net)| ((o.to_string(), k.to_string(), s.to_string()), (1, *amount, *fees, *net)))
        .collect();
    assert_eq!(rows, expected);
    app.assert_ledger().await;
}
