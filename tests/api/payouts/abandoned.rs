//! A batch whose request ended while it recorded the items one by one (a killed process or an
//! HTTP timeout drops the task; the item-by-item path is taken when the whole batch cannot go
//! in one transaction because the balance or the ids moved meanwhile) is left unsealed; the
//! sweep seals it once it is older than any request may run, and it completes with the
//! transfers that were recorded, the rest counted as refused. The cut request is made here as
//! it leaves the database: the batch's row through the store, then some of its transfers.
//! Time is driven through the workers' `run_once(now)`.

use momo_gateway::domain::{BatchId, Timestamp};
use momo_gateway::reconcile::abandoned_batches;
use momo_gateway::service::payments::{RecipientCheck, Requested};
use momo_gateway::service::payouts::csv;
use momo_gateway::store::{BatchLimits, NewBatch};
use serde_json::{json, Value};

use crate::payouts::batches::drain;
use crate::support::helpers::{answer, later, TestApp};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    a_batch_whose_request_ended_midway_is_sealed_by_the_sweep_and_completes,
);

const ITEMS: usize = 3_000;
const RECORDED: usize = 7;

async fn only_batch(app: &TestApp, token: &str) -> Value {
    answer(app.get("/v1/payout-batches").bearer_auth(token)).await.body["data"][0].clone()
}

async fn a_batch_whose_request_ended_midway_is_sealed_by_the_sweep_and_completes(app: TestApp) {
    let token = app.sandbox_token().await;
    let tenant = app.sandbox_tenant();
    let store = momo_gateway::store::connect(&app.database_url).await.unwrap();
    let id = BatchId::new();
    store
        .insert_batch(&NewBatch {
            id: id.clone(),
            tenant: tenant.clone(),
            label: Some("cut short".into()),
            all_or_nothing: false,
            submitted: ITEMS as i64,
            created_at: Timestamp::now(),
            limits: BatchLimits {
                queued_max: ITEMS as i64,
                at_once: 2,
            },
        })
        .await
        .unwrap();
    let mut file = csv::header();
    for i in 0..RECORDED {
        file.push_str(&format!("\ncut-{i},GAMMA_MONEY_CI,0701020301,1000,Koné,Awa"));
    }
    for item in csv::read(file.as_bytes(), &app.gateway.config().operator_aliases).unwrap() {
        let mut request = item.unwrap();
        request.purpose = Requested::Transfer {
            recipient_check: RecipientCheck::Skip,
            batch: Some(id.clone()),
        };
        app.gateway
            .payments
            .create_payment(&tenant, request, Timestamp::now())
            .await
            .unwrap();
    }
    let cut = only_batch(&app, &token).await;
    assert_eq!(cut["status"], "processing", "{cut}");
    assert_eq!(cut["accepted"]["count"], RECORDED, "{cut}");
    assert_eq!(
        cut["refused"], 0,
        "not sealed, so nothing counted as refused yet: {cut}"
    );

    let young = abandoned_batches::run_once(&app.gateway.payouts, later(60_000))
        .await
        .unwrap();
    assert_eq!(young.examined, 0, "a minute old: its request may still run");
    let swept = abandoned_batches::run_once(&app.gateway.payouts, later(16 * 60_000))
        .await
        .unwrap();
    assert_eq!(swept.examined, 1);
    let again = abandoned_batches::run_once(&app.gateway.payouts, later(17 * 60_000))
        .await
        .unwrap();
    assert_eq!(again.examined, 0, "sealed once");

    let sealed = only_batch(&app, &token).await;
    assert_eq!(sealed["accepted"]["count"], RECORDED, "{sealed}");
    assert_eq!(sealed["submitted"], ITEMS, "{sealed}");
    assert_eq!(
        sealed["refused"],
        (ITEMS - RECORDED) as i64,
        "what was not recorded is refused: {sealed}"
    );
    assert_eq!(sealed["duplicates"], 0, "{sealed}");

    drain(&app).await;
    let done = only_batch(&app, &token).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        done["successful"],
        json!({"count": RECORDED, "amount": (RECORDED * 1000).to_string()}),
        "{done}"
    );
    app.assert_ledger().await;
}
