//! The idempotency key contract: a claim settled by the database, even raced; the claim's token
//! guarding the answer and the release; takeovers of expired keys and lapsed leases; the purge
//! in batches; the answers written by the batch writer, in shared commits.

use std::time::Duration;

use momo_gateway::config::BatchSettings;
use momo_gateway::domain::{Environment, IdempotencyKey, KeptAnswer, MerchantId, Tenant, Timestamp};
use momo_gateway::store::{ClaimOutcome, HeldKey, KeyClaim};

use crate::{open, Opened};
use momo_test_support::both_backends;

both_backends!(
    open =>
    of_twenty_concurrent_claims_of_one_key_exactly_one_wins,
    only_the_claims_token_keeps_an_answer_or_releases_the_key,
    an_expired_key_is_anyones_and_a_lapsed_lease_only_the_same_requests,
    expired_keys_are_purged_in_batches,
    an_expired_key_whose_request_still_runs_is_neither_taken_over_nor_purged,
    keys_claims_and_answers_ride_in_the_write_batches_and_share_commits,
);

fn tenant() -> Tenant {
    Tenant {
        merchant_id: MerchantId::from("m-1"),
        environment: Environment::Sandbox,
    }
}

fn claim(key: &str, fingerprint: &str, token: &str, at: i64) -> KeyClaim {
    KeyClaim {
        tenant: tenant(),
        key: IdempotencyKey::parse(key).unwrap(),
        fingerprint: fingerprint.into(),
        token: token.into(),
        at: Timestamp(at),
        locked_until: Timestamp(at + 100),
        expires_at: Timestamp(at + 1_000),
    }
}

/// Key `key` as the claimant with `token` holds it (a stale or a foreign token included).
fn held(key: &str, token: &str) -> HeldKey {
    claim(key, "f", token, 0).held()
}

fn answer() -> KeptAnswer {
    KeptAnswer {
        status: 202,
        body: r#"{"statusCode":202}"#.into(),
    }
}

async fn of_twenty_concurrent_claims_of_one_key_exactly_one_wins((store, _db): Opened) {
    let claims = (0..20).map(|i| {
        let store = store.clone();
        tokio::spawn(async move {
            store
                .claim_idempotency_key(&claim("k", "f", &format!("t{i}"), 1))
                .await
                .unwrap()
        })
    });
    let mut won = 0;
    for c in claims.collect::<Vec<_>>() {
        match c.await.unwrap() {
            ClaimOutcome::Claimed => won += 1,
            ClaimOutcome::Held(holder) => assert_eq!(holder.answer, None, "in flight"),
        }
    }
    assert_eq!(won, 1);
}

async fn only_the_claims_token_keeps_an_answer_or_releases_the_key((store, _db): Opened) {
    assert_eq!(
        store.claim_idempotency_key(&claim("k", "f", "mine", 1)).await.unwrap(),
        ClaimOutcome::Claimed
    );
    assert!(!store
        .keep_idempotent_answer(&held("k", "other"), &answer())
        .await
        .unwrap());
    assert!(!store.release_idempotency_key(&held("k", "other")).await.unwrap());
    assert!(store
        .keep_idempotent_answer(&held("k", "mine"), &answer())
        .await
        .unwrap());
    // A kept answer is final: neither kept again nor released.
    assert!(!store
        .keep_idempotent_answer(&held("k", "mine"), &answer())
        .await
        .unwrap());
    assert!(!store.release_idempotency_key(&held("k", "mine")).await.unwrap());
    match store.claim_idempotency_key(&claim("k", "f", "retry", 2)).await.unwrap() {
        ClaimOutcome::Held(holder) => assert_eq!(holder.answer, Some(answer())),
        other => panic!("{other:?}"),
    }
    // A released key is free.
    store
        .claim_idempotency_key(&claim("k2", "f", "first", 1))
        .await
        .unwrap();
    assert!(store.release_idempotency_key(&held("k2", "first")).await.unwrap());
    assert_eq!(
        store
            .claim_idempotency_key(&claim("k2", "g", "second", 2))
            .await
            .unwrap(),
        ClaimOutcome::Claimed
    );
}

async fn an_expired_key_is_anyones_and_a_lapsed_lease_only_the_same_requests((store, _db): Opened) {
    store.claim_idempotency_key(&claim("k", "f", "dead", 1)).await.unwrap();
    // Within the lease: held, whatever the request.
    assert!(matches!(
        store.claim_idempotency_key(&claim("k", "f", "a", 50)).await.unwrap(),
        ClaimOutcome::Held(_)
    ));
    // Past the lease: another request still meets the first one ...
    match store.claim_idempotency_key(&claim("k", "g", "b", 200)).await.unwrap() {
        ClaimOutcome::Held(holder) => assert_eq!(holder.fingerprint, "f"),
        other => panic!("{other:?}"),
    }
    // ... the same request takes it over, and the dead claim's token no longer counts.
    assert_eq!(
        store.claim_idempotency_key(&claim("k", "f", "c", 200)).await.unwrap(),
        ClaimOutcome::Claimed
    );
    assert!(!store
        .keep_idempotent_answer(&held("k", "dead"), &answer())
        .await
        .unwrap());
    assert!(store.keep_idempotent_answer(&held("k", "c"), &answer()).await.unwrap());
    // Expired (1,000 ms after the takeover at 200): anyone's, answer and all.
    assert!(matches!(
        store.claim_idempotency_key(&claim("k", "g", "d", 1_199)).await.unwrap(),
        ClaimOutcome::Held(_)
    ));
    assert_eq!(
        store.claim_idempotency_key(&claim("k", "g", "e", 1_200)).await.unwrap(),
        ClaimOutcome::Claimed
    );
}

async fn expired_keys_are_purged_in_batches((store, _db): Opened) {
    for (key, at) in [("a", 0), ("b", 10), ("c", 20), ("d", 5_000)] {
        store.claim_idempotency_key(&claim(key, "f", "t", at)).await.unwrap();
    }
    assert_eq!(store.purge_idempotency_keys(Timestamp(999), 10).await.unwrap(), 0);
    assert_eq!(store.purge_idempotency_keys(Timestamp(1_020), 2).await.unwrap(), 2);
    assert_eq!(store.purge_idempotency_keys(Timestamp(1_020), 2).await.unwrap(), 1);
    assert_eq!(store.purge_idempotency_keys(Timestamp(1_020), 2).await.unwrap(), 0);
    // The key that has not expired is still held.
    assert!(matches!(
        store.claim_idempotency_key(&claim("d", "g", "u", 5_001)).await.unwrap(),
        ClaimOutcome::Held(_)
    ));
}

/// A key time to live shorter than the in-flight lease (60 s against 90 s): the key expires
/// while its request still runs. Until the request answers or its lease lapses, nobody takes
/// the key over and the purge leaves it.
async fn an_expired_key_whose_request_still_runs_is_neither_taken_over_nor_purged((store, _db): Opened) {
    let running = KeyClaim {
        locked_until: Timestamp(2_000),
        expires_at: Timestamp(1_000),
        ..claim("k", "f", "running", 0)
    };
    assert_eq!(
        store.claim_idempotency_key(&running).await.unwrap(),
        ClaimOutcome::Claimed
    );
    // Expired, lease running: held, for another body and for the same one.
    for (fingerprint, token) in [("g", "other"), ("f", "same")] {
        match store
            .claim_idempotency_key(&claim("k", fingerprint, token, 1_500))
            .await
            .unwrap()
        {
            ClaimOutcome::Held(holder) => assert_eq!((holder.fingerprint.as_str(), holder.answer), ("f", None)),
            other => panic!("{fingerprint}: {other:?}"),
        }
    }
    assert_eq!(store.purge_idempotency_keys(Timestamp(1_500), 10).await.unwrap(), 0);
    // Its request answers: the answer is kept, and the expired key is now anyone's.
    assert!(store
        .keep_idempotent_answer(&held("k", "running"), &answer())
        .await
        .unwrap());
    assert_eq!(
        store
            .claim_idempotency_key(&claim("k", "g", "next", 1_600))
            .await
            .unwrap(),
        ClaimOutcome::Claimed
    );
    // Another key expired with its lease running is purged once the lease lapses.
    let stuck = KeyClaim {
        locked_until: Timestamp(2_000),
        expires_at: Timestamp(1_000),
        ..claim("s", "f", "stuck", 0)
    };
    store.claim_idempotency_key(&stuck).await.unwrap();
    assert_eq!(store.purge_idempotency_keys(Timestamp(1_999), 10).await.unwrap(), 0);
    assert_eq!(store.purge_idempotency_keys(Timestamp(2_000), 10).await.unwrap(), 1);
}

/// A writer that waits for two writes before it commits: a key's claim, answer or release goes
/// through the batch writer, so it is not committed (nor answered) alone, and the second write's
/// arrival commits both in one transaction, each with its own outcome (a stale token writes
/// nothing).
async fn keys_claims_and_answers_ride_in_the_write_batches_and_share_commits((_store, db): Opened) {
    let batching = BatchSettings {
        max: 2,
        wait: Duration::from_secs(600),
        writers: 1,
    };
    let store = momo_gateway::store::connect_with(&db.url, batching).await.unwrap();

    let mut first = {
        let store = store.clone();
        tokio::spawn(async move { store.claim_idempotency_key(&claim("a", "f", "a", 1)).await })
    };
    let alone = tokio::time::timeout(Duration::from_millis(300), &mut first).await;
    assert!(alone.is_err(), "a lone claim waits for its batch");
    let second = store.claim_idempotency_key(&claim("b", "f", "b", 1)).await.unwrap();
    assert_eq!(first.await.unwrap().unwrap(), ClaimOutcome::Claimed);
    assert_eq!(second, ClaimOutcome::Claimed);

    let mut kept = {
        let store = store.clone();
        tokio::spawn(async move { store.keep_idempotent_answer(&held("a", "a"), &answer()).await })
    };
    let alone = tokio::time::timeout(Duration::from_millis(300), &mut kept).await;
    assert!(alone.is_err(), "a lone answer waits for its batch");
    assert!(
        !store.release_idempotency_key(&held("b", "stale")).await.unwrap(),
        "a stale token wrote nothing"
    );
    assert!(kept.await.unwrap().unwrap(), "the claim's token kept its answer");

    let (probe_a, probe_b) = (claim("a", "f", "probe", 2), claim("b", "f", "probe", 2));
    let (probe_a, probe_b) = tokio::join!(
        store.claim_idempotency_key(&probe_a),
        store.claim_idempotency_key(&probe_b),
    );
    let holder = |outcome: ClaimOutcome| match outcome {
        ClaimOutcome::Held(holder) => holder.answer,
        ClaimOutcome::Claimed => panic!("the key is held"),
    };
    assert_eq!(holder(probe_a.unwrap()), Some(answer()));
    assert_eq!(holder(probe_b.unwrap()), None, "b is still in flight");
}
