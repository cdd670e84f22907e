//! A batch whose commit fails, seen from outside (PostgreSQL only: a deferred check fails the
//! commit, and SQLite has no check that runs at commit): a batch that fails at its commit answers
//! every request in it 503 in its envelope and writes nothing of it, and an operator's answer
//! whose write fails is answered `PENDING`, as it is stored.

use std::time::Duration;

use reqwest::StatusCode;

use super::pipeline::{all_at_once, batched, listed};
use crate::support::helpers::{answer, TestApp};
use crate::support::requests::{collect_v1, transfer_v1};
use momo_test_support::Backend;

/// A batch whose commit fails (a deferred check refuses one of its rows at commit time, the
/// way a lost connection or a full disk would fail it) answers each of its requests 503 and
/// writes none of them. PostgreSQL only: SQLite has no check that runs at commit.
#[tokio::test]
async fn a_batch_that_fails_at_its_commit_answers_503_to_each_and_writes_nothing() {
    let Some(app) = TestApp::spawn_with(Backend::Postgres, |c| {
        batched(c);
        c.batching.wait = Duration::from_millis(300);
    })
    .await
    else {
        return;
    };
    let pool = sqlx::PgPool::connect(&app.database_url).await.unwrap();
    for statement in [
        "CREATE FUNCTION refuse_poison() RETURNS trigger AS $$ BEGIN \
         IF NEW.transaction_id LIKE 'poison%' THEN RAISE EXCEPTION 'poisoned batch'; END IF; \
         RETURN NEW; END $$ LANGUAGE plpgsql",
        "CREATE CONSTRAINT TRIGGER refuse_poison AFTER INSERT ON transactions \
         DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION refuse_poison()",
    ] {
        sqlx::query(statement).execute(&pool).await.unwrap();
    }
    let token = app.sandbox_token().await;
    let requests = (0..10)
        .map(|i| format!("fine-{i}"))
        .chain(["poison-1".to_owned()])
        .map(|id| {
            app.post("/v1/collecte/mobile-money")
                .bearer_auth(&token)
                .json(&collect_v1(&id, "0701020301", "GAMMA_MONEY_CI", "1000"))
        })
        .collect();
    let answers = all_at_once(requests).await;
    for a in &answers {
        assert_eq!(a.status, StatusCode::SERVICE_UNAVAILABLE, "{}", a.body);
        assert_eq!(
            a.body["message"], "ServiceUnavailableError",
            "the v1 envelope: {}",
            a.body
        );
    }
    assert!(
        listed(&app, &token).await.is_empty(),
        "nothing of the batch was written"
    );
    let metrics = app.get("/metrics").send().await.unwrap().text().await.unwrap();
    let failed = "momo_write_batches_total{outcome=\"failed\"} 1";
    assert!(metrics.contains(failed), "{failed} in {metrics}");
    let after = answer(
        app.post("/v1/collecte/mobile-money")
            .bearer_auth(&token)
            .json(&collect_v1("after", "0701020301", "GAMMA_MONEY_CI", "1000")),
    )
    .await;
    assert_eq!(after.status, StatusCode::OK, "the next batch commits: {}", after.body);
    app.assert_ledger().await;
    pool.close().await;
}

/// The operator has taken a payment, and then the write of its answer fails (the database went
/// away between the two commits): the merchant is answered 202 with the payment `PENDING`, as
/// it is stored, never a 503 that reads as "nothing happened" and invites paying again; the
/// reconciler records the outcome later. PostgreSQL only: a deferred check fails the commit.
#[tokio::test]
async fn an_operator_answer_that_cannot_be_recorded_is_answered_pending_not_503() {
    let Some(app) = TestApp::spawn_with(Backend::Postgres, batched).await else {
        return;
    };
    let pool = sqlx::PgPool::connect(&app.database_url).await.unwrap();
    for statement in [
        "CREATE FUNCTION refuse_settling() RETURNS trigger AS $$ BEGIN \
         IF NEW.transaction_id LIKE 'unrecorded%' AND NEW.status <> 'PENDING' THEN \
         RAISE EXCEPTION 'the database went away'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql",
        "CREATE CONSTRAINT TRIGGER refuse_settling AFTER UPDATE ON transactions \
         DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION refuse_settling()",
    ] {
        sqlx::query(statement).execute(&pool).await.unwrap();
    }
    let token = app.sandbox_token().await;
    // 01: the simulator takes it at once; 04: it refuses at once.
    for (id, phone) in [("unrecorded-1", "0701020301"), ("unrecorded-2", "0701020304")] {
        let created = answer(
            app.post("/v1/transfer/mobile-money")
                .bearer_auth(&token)
                .json(&transfer_v1(id, phone, "GAMMA_MONEY_CI", "1000")),
        )
        .await;
        assert_eq!(created.status, StatusCode::ACCEPTED, "{id}: {}", created.body);
        assert_eq!(created.body["data"]["status"], "PENDING", "{}", created.body);
    }
    sqlx::query("DROP TRIGGER refuse_settling ON transactions")
        .execute(&pool)
        .await
        .unwrap();
    momo_gateway::reconcile::reconciler::run_once(&app.gateway.payments, crate::support::helpers::later(60_000))
        .await
        .unwrap();
    for (id, status) in [("unrecorded-1", "SUCCESSFUL"), ("unrecorded-2", "FAILED")] {
        let looked_up = answer(app.get(&format!("/v2/get-status-payment/{id}")).bearer_auth(&token)).await;
        assert_eq!(looked_up.body["data"]["status"], status, "{}", looked_up.body);
    }
    app.assert_ledger().await;
    pool.close().await;
}
