//! A creation's credential is checked by the batch that writes it (`store::sql::caller_check`),
//! not by a read of its own: in a batch shared by two merchants, the creations of the one whose
//! credential was revoked meanwhile are refused alone, and the other's commit.

use std::time::Duration;

use momo_gateway::config::Config;
use momo_gateway::domain::{Environment, MerchantId, Tenant, TransactionRef};
use reqwest::StatusCode;

use crate::support::helpers::{answer, Answer, TestApp};
use crate::support::requests::collect_v1;
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn_with(batched) =>
    a_creation_whose_credential_was_revoked_fails_alone_in_its_batch,
);

/// Writers that wait for more work, so concurrent requests land in one batch.
fn batched(c: &mut Config) {
    c.batching.wait = Duration::from_millis(50);
}

async fn a_creation_whose_credential_was_revoked_fails_alone_in_its_batch(app: TestApp) {
    let kept = app.sandbox_token().await;
    let other = app.new_merchant("Revoked meanwhile").await;
    let revoked = app.token(&other.sandbox).await;
    // Each token's credential is checked once, then trusted by this process for a few seconds.
    for (token, id) in [(&kept, "warm-kept"), (&revoked, "warm-revoked")] {
        let a = answer(
            app.post("/v1/collecte/mobile-money")
                .bearer_auth(token)
                .json(&collect_v1(id, "0701020302", "GAMMA_MONEY_CI", "1000")),
        )
        .await;
        assert_eq!(a.status, StatusCode::ACCEPTED, "{id}: {}", a.body);
    }
    // The other merchant's credential is rotated by another process: this one still trusts it.
    let tenant = Tenant {
        merchant_id: MerchantId::from(other.id.clone()),
        environment: Environment::Sandbox,
    };
    let store = app.rotate_elsewhere(&tenant).await;

    let requests: Vec<(String, &String)> = (0..20)
        .map(|i| (format!("batch-{i}"), if i % 4 == 0 { &revoked } else { &kept }))
        .collect();
    let handles: Vec<_> = requests
        .iter()
        .map(|(id, token)| {
            tokio::spawn(answer(
                app.post("/v1/collecte/mobile-money")
                    .bearer_auth(token.as_str())
                    .json(&collect_v1(id, "0701020302", "GAMMA_MONEY_CI", "1000")),
            ))
        })
        .collect();
    let mut answers: Vec<Answer> = Vec::new();
    for handle in handles {
        answers.push(handle.await.expect("request task"));
    }
    let kept_tenant = app.sandbox_tenant();
    for ((id, token), a) in requests.iter().zip(&answers) {
        if *token == &revoked {
            assert_eq!(a.status, StatusCode::UNAUTHORIZED, "{id}: {}", a.body);
            assert_eq!(a.body["message"], "UnauthorizedError", "{id}: {}", a.body);
            let stored = store
                .transaction(&tenant, &TransactionRef::from(id.as_str()))
                .await
                .unwrap();
            assert!(stored.is_none(), "{id}: nothing is written for a revoked caller");
        } else {
            assert_eq!(a.status, StatusCode::ACCEPTED, "{id}: {}", a.body);
            let stored = store
                .transaction(&kept_tenant, &TransactionRef::from(id.as_str()))
                .await
                .unwrap();
            assert!(stored.is_some(), "{id}: the other merchant's creations commit");
        }
    }
    app.assert_ledger().await;
}
