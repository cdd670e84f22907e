//! Status lookups of many tenants at once: concurrent lookups are read in one query
//! (`store::lookup_batch`, on both databases), and each must still get its own answer, scoped
//! to its own tenant and refused when its own credential was revoked.

use std::future::Future;
use std::pin::Pin;
use std::task::Poll;

use momo_gateway::domain::{Credential, Environment, MerchantId, Tenant, Timestamp, TransactionRef};
use momo_gateway::store::{CheckedLookup, StoreError};
use reqwest::StatusCode;

use crate::support::helpers::{answer, Answer, Creds, TestApp, TestMerchant};
use crate::support::requests::{collect_v1, post};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    lookups_of_many_tenants_in_one_batch_each_get_their_own_answer,
);

/// Polls every future in turn until all are done, so that all of them have asked before any
/// is answered: on a single-threaded runtime, every lookup is queued before a reader runs,
/// and the first reader takes them all into one batch.
async fn all_at_once<T>(mut futures: Vec<Pin<Box<dyn Future<Output = T> + Send + '_>>>) -> Vec<T> {
    let mut done: Vec<Option<T>> = futures.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (future, slot) in futures.iter_mut().zip(done.iter_mut()) {
            if slot.is_none() {
                match future.as_mut().poll(cx) {
                    Poll::Ready(value) => *slot = Some(value),
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    })
    .await;
    done.into_iter().map(|v| v.expect("every future finished")).collect()
}

fn sandbox(merchant: &TestMerchant) -> Tenant {
    Tenant {
        merchant_id: MerchantId::from(merchant.id.clone()),
        environment: Environment::Sandbox,
    }
}

/// A merchant's collections `{prefix}-0..3` and `same` (a transaction id every merchant uses),
/// with their references.
async fn collections(app: &TestApp, creds: &Creds, prefix: &str) -> Vec<(String, String)> {
    let token = app.token(creds).await;
    let mut made = Vec::new();
    for id in [
        format!("{prefix}-0"),
        format!("{prefix}-1"),
        format!("{prefix}-2"),
        "same".into(),
    ] {
        let a = post(
            app,
            &token,
            "/v1/collecte/mobile-money",
            &collect_v1(&id, "0701020302", "GAMMA_MONEY_CI", "1000"),
        )
        .await;
        assert_eq!(a.status, StatusCode::ACCEPTED, "{}", a.body);
        made.push((id, a.body["data"]["ref"].as_str().unwrap().to_owned()));
    }
    made
}

async fn lookups_of_many_tenants_in_one_batch_each_get_their_own_answer(app: TestApp) {
    let merchants = [
        app.merchant.clone(),
        app.new_merchant("Second").await,
        app.new_merchant("Revoked").await,
    ];
    let mut owned = Vec::new();
    for (m, prefix) in merchants.iter().zip(["first", "second", "revoked"]) {
        owned.push(collections(&app, &m.sandbox, prefix).await);
    }
    let tokens = [
        app.token(&merchants[0].sandbox).await,
        app.token(&merchants[1].sandbox).await,
        app.token(&merchants[2].sandbox).await,
    ];
    // A second process's store: its lookups are batched on PostgreSQL, and it revokes the third
    // merchant's credential, which the gateway's own memory of it does not know.
    let store = momo_gateway::store::connect(&app.database_url).await.unwrap();
    let mut credentials = Vec::new();
    for m in &merchants {
        let c = store.credential_by_key(&m.sandbox.api_key).await.unwrap().unwrap();
        credentials.push(c.id);
    }
    let replacement = Credential {
        id: "revoked-merchant-new".into(),
        merchant_id: MerchantId::from(merchants[2].id.clone()),
        environment: Environment::Sandbox,
        api_key: "ak_revoked_merchant_new".into(),
        secret_hash: vec![0; 32],
        created_at: Timestamp::now(),
        revoked_at: None,
    };
    store
        .rotate_credential(&sandbox(&merchants[2]), &replacement)
        .await
        .unwrap();

    // Every merchant asks for every id and reference of every merchant, and for one nobody has.
    let everything: Vec<&str> = owned
        .iter()
        .flatten()
        .flat_map(|(id, reference)| [id.as_str(), reference.as_str()])
        .chain(["nobody-has-this"])
        .collect();
    let mut asked = Vec::new();
    for caller in 0..merchants.len() {
        for id in &everything {
            asked.push((caller, *id));
        }
    }
    // Expected: the caller's own transaction (by its id or reference), else nothing.
    let own = |caller: usize, id: &str| {
        owned[caller]
            .iter()
            .find(|(tid, reference)| tid == id || reference == id)
            .map(|(tid, reference)| (tid.clone(), reference.clone()))
    };

    let store = &store;
    let (tenants, credentials) = (merchants.iter().map(sandbox).collect::<Vec<_>>(), &credentials);
    let futures = asked
        .iter()
        .map(|&(caller, id)| {
            let tenant = &tenants[caller];
            Box::pin(async move {
                store
                    .transaction_checked(tenant, &credentials[caller], &TransactionRef::from(id))
                    .await
            }) as Pin<Box<dyn Future<Output = Result<CheckedLookup, StoreError>> + Send>>
        })
        .collect();
    let results = all_at_once(futures).await;
    for (&(caller, id), result) in asked.iter().zip(results) {
        let lookup = result.unwrap();
        assert_eq!(
            lookup.credential_active,
            caller != 2,
            "merchant {caller} asking for {id}"
        );
        if caller == 2 {
            continue;
        }
        let found = lookup.record.map(|r| {
            assert_eq!(r.transaction.tenant, tenants[caller], "{id}");
            (
                r.transaction.transaction_id.into_string(),
                r.transaction.reference.into_string(),
            )
        });
        assert_eq!(found, own(caller, id), "merchant {caller} asking for {id}");
    }

    // The same through the API, all requests at once: 200 for the caller's own, 404 for
    // another's or nobody's, 401 for the revoked credential.
    let requests = asked
        .iter()
        .map(|&(caller, id)| {
            let request = app
                .get(&format!("/v2/get-status-payment/{id}"))
                .bearer_auth(&tokens[caller]);
            Box::pin(answer(request)) as Pin<Box<dyn Future<Output = Answer> + Send>>
        })
        .collect();
    let answers = all_at_once(requests).await;
    for (&(caller, id), a) in asked.iter().zip(answers) {
        match (caller, own(caller, id)) {
            (2, _) => assert_eq!(a.status, StatusCode::UNAUTHORIZED, "{id}: {}", a.body),
            (_, Some((tid, reference))) => {
                assert_eq!(
                    a.status,
                    StatusCode::OK,
                    "merchant {caller} asking for {id}: {}",
                    a.body
                );
                assert_eq!(a.body["data"]["transaction_id"], tid.as_str());
                assert_eq!(a.body["data"]["ref"], reference.as_str());
            }
            (_, None) => assert_eq!(a.status, StatusCode::NOT_FOUND, "merchant {caller} asking for {id}"),
        }
    }
    app.assert_ledger().await;
}
