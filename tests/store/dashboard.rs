//! The dashboard's sessions in the store contract: usable until idle or past their end, and
//! refused as soon as their credential is revoked; sign-out and the sweep delete them.

use momo_gateway::domain::{DashboardSession, Environment, NewDashboardSession, Tenant, Timestamp};

use momo_gateway::store::SessionUse;

use crate::{credential, merchant, open, Opened};
use momo_test_support::both_backends;

both_backends!(
    open =>
    a_session_lives_until_idle_or_its_end_and_dies_with_its_credential,
    a_session_seen_lately_is_not_written_again,
    signing_out_and_the_sweep_delete_sessions,
);

/// A session of the merchant's Sandbox credential, opened at 1000 and ending at 10,000.
async fn sandbox_session(
    store: &dyn momo_gateway::store::Store,
    hash: &str,
) -> (Tenant, momo_gateway::domain::CredentialId) {
    let m = merchant(hash);
    store.create_merchant(&m).await.unwrap();
    let tenant = Tenant {
        merchant_id: m.id.clone(),
        environment: Environment::Sandbox,
    };
    let credential_id = m
        .environments
        .iter()
        .find(|e| e.environment == Environment::Sandbox)
        .unwrap()
        .credential
        .id
        .clone();
    store
        .insert_session(&NewDashboardSession {
            token_hash: hash.to_owned(),
            session: DashboardSession {
                tenant: tenant.clone(),
                credential_id: credential_id.clone(),
            },
            created_at: Timestamp(1_000),
            expires_at: Timestamp(10_000),
        })
        .await
        .unwrap();
    (tenant, credential_id)
}

/// A session used at `now`, idle since `idle_since`, written when last seen by `seen_before`.
fn at(now: i64, idle_since: i64, seen_before: i64) -> SessionUse {
    SessionUse {
        now: Timestamp(now),
        idle_since: Timestamp(idle_since),
        seen_before: Timestamp(seen_before),
    }
}

async fn a_session_lives_until_idle_or_its_end_and_dies_with_its_credential((store, _db): Opened) {
    let (tenant, credential_id) = sandbox_session(store.as_ref(), "h1").await;
    // Idle limit: used after `idle_since`. Each use here moves `last_seen_at` to `now` (it was
    // last seen before `now`, its `seen_before`).
    let used = store.use_session("h1", at(2_000, 500, 2_000)).await.unwrap();
    assert_eq!(
        used,
        Some(DashboardSession {
            tenant: tenant.clone(),
            credential_id
        })
    );
    assert!(
        store
            .use_session("h1", at(3_000, 2_000, 3_000))
            .await
            .unwrap()
            .is_none(),
        "idle since 2000"
    );
    assert!(store
        .use_session("h1", at(3_000, 1_999, 3_000))
        .await
        .unwrap()
        .is_some());
    assert!(
        store.use_session("h1", at(10_000, 0, 10_000)).await.unwrap().is_none(),
        "past its end"
    );
    assert!(store
        .use_session("nobody", at(3_000, 0, 3_000))
        .await
        .unwrap()
        .is_none());

    let (other_tenant, _) = sandbox_session(store.as_ref(), "h2").await;
    store
        .rotate_credential(
            &other_tenant,
            &credential(&other_tenant.merchant_id, Environment::Sandbox, "pk_h2_new", 5),
        )
        .await
        .unwrap();
    assert!(
        store.use_session("h2", at(2_000, 0, 2_000)).await.unwrap().is_none(),
        "a revoked credential's session is refused at once"
    );
}

/// Its last-seen time moves only when older than `seen_before`: used at 2000 (last seen 1000),
/// then at 2500 with a limit of 1500, it stays at 2000, so at 3000 a session idle since 2000 is
/// over.
async fn a_session_seen_lately_is_not_written_again((store, _db): Opened) {
    sandbox_session(store.as_ref(), "lately").await;
    let used = |now: i64, idle_since: i64, seen_before: i64| {
        let store = store.clone();
        async move {
            let used = store.use_session("lately", at(now, idle_since, seen_before));
            used.await.unwrap().is_some()
        }
    };
    assert!(used(2_000, 500, 1_500).await, "last seen 1000: written");
    assert!(used(2_500, 1_999, 1_500).await, "last seen 2000: usable, not written");
    assert!(!used(3_000, 2_000, 1_500).await, "still last seen at 2000");
    assert!(!used(3_000, 2_000, 3_000).await, "not usable either");
    assert!(
        used(3_000, 1_999, 3_000).await,
        "usable, and last seen long enough ago: written"
    );
    assert!(used(3_500, 2_999, 0).await, "seen at 3000");
}

async fn signing_out_and_the_sweep_delete_sessions((store, _db): Opened) {
    sandbox_session(store.as_ref(), "out").await;
    store.delete_session("out").await.unwrap();
    store.delete_session("out").await.unwrap();
    assert!(store.use_session("out", at(2_000, 0, 2_000)).await.unwrap().is_none());

    sandbox_session(store.as_ref(), "fresh").await;
    sandbox_session(store.as_ref(), "stale").await;
    store.use_session("fresh", at(5_000, 0, 5_000)).await.unwrap();
    let (revoked_tenant, _) = sandbox_session(store.as_ref(), "revoked").await;
    store.use_session("revoked", at(5_000, 0, 5_000)).await.unwrap();
    let replacement = credential(&revoked_tenant.merchant_id, Environment::Sandbox, "pk_revoked_new", 5);
    store.rotate_credential(&revoked_tenant, &replacement).await.unwrap();
    // At 5500, idle since 4000: "stale" (last seen 1000) and "revoked" go, "fresh" stays.
    assert_eq!(
        store
            .delete_stale_sessions(Timestamp(5_500), Timestamp(4_000))
            .await
            .unwrap(),
        2
    );
    assert!(store
        .use_session("fresh", at(5_600, 4_000, 5_600))
        .await
        .unwrap()
        .is_some());
}
