//! The leases of the workers in the store contract: the reconciler's claims of due status
//! checks (`claim_due_checks`), each pending payment to one claimer until its lease ends; and
//! the dispatcher's results (`finish_attempts`), recorded only while the claim's lease holds.

use momo_gateway::domain::{Attempt, EventState, Kind, Status, Tenant, Timestamp, TransactionRecord};
use momo_gateway::store::DueChecks;
use momo_gateway::store::{DueEvent, EventUpdate, Finished, Store};

use crate::payments::{create, funded, payer, payment, settlement, NOW, SOUND};
use crate::{open, Opened};
use momo_test_support::both_backends;

both_backends!(
    open =>
    each_due_pending_payment_goes_to_one_claimer_until_its_lease_ends,
    only_the_holder_of_an_events_lease_records_its_attempt,
    an_event_finished_twice_in_one_batch_is_recorded_by_its_own_lease_only,
);

const HOOK: &str = "https://shop.example/hooks";

fn ids(records: &[TransactionRecord]) -> Vec<&str> {
    records.iter().map(|r| r.transaction.id.as_str()).collect()
}

/// A pending payment of its own payer, created at `at`, its first check due at `first_check`.
async fn pending(
    store: &dyn Store,
    tenant: &Tenant,
    kind: Kind,
    n: i64,
    at: i64,
    first_check: i64,
) -> TransactionRecord {
    let who = payer(tenant, &format!("07000000{n:02}"), at);
    let t = payment(tenant, &who, kind, 1_000 + n, &format!("order-{n}"), at);
    create(store, &who, &t, first_check).await
}

async fn each_due_pending_payment_goes_to_one_claimer_until_its_lease_ends((store, _db): Opened) {
    let (tenant, _) = funded(store.as_ref(), "claims", 100_000).await;
    let mut due = Vec::new();
    for n in 0..6 {
        due.push(
            pending(
                store.as_ref(),
                &tenant,
                Kind::Collection,
                n,
                NOW - 10_000 + n * 100,
                NOW - 1_000,
            )
            .await,
        );
    }
    let transfer = pending(store.as_ref(), &tenant, Kind::Transfer, 6, NOW - 5_000, NOW - 1_000).await;
    let _not_due = pending(
        store.as_ref(),
        &tenant,
        Kind::Collection,
        7,
        NOW - 9_000,
        NOW + 1_000_000,
    )
    .await;
    let too_new = pending(store.as_ref(), &tenant, Kind::Collection, 8, NOW + 10, NOW - 1_000).await;

    // Two reconcilers at once, each asking for six collections.
    let lease = NOW + 30_000;
    let claim = |kind| {
        let store = store.clone();
        tokio::spawn(async move {
            store
                .claim_due_checks(DueChecks {
                    now: Timestamp(NOW),
                    created_before: Timestamp(NOW),
                    kind,
                    lease_until: Timestamp(lease),
                    limit: 6,
                })
                .await
                .unwrap()
        })
    };
    let (first, second) = (claim(Some(Kind::Collection)), claim(Some(Kind::Collection)));
    let (first, second) = (first.await.unwrap(), second.await.unwrap());
    for claimed in [&first, &second] {
        let created: Vec<_> = claimed.iter().map(|r| r.transaction.created_at).collect();
        assert!(created.is_sorted(), "oldest first: {created:?}");
    }
    assert!(
        ids(&first).iter().all(|id| !ids(&second).contains(id)),
        "no payment goes to both: {:?} and {:?}",
        ids(&first),
        ids(&second)
    );
    let mut claimed: Vec<TransactionRecord> = first.into_iter().chain(second).collect();
    claimed.sort_by_key(|a| a.transaction.created_at);
    assert_eq!(claimed, due, "the six due collections, as stored, between them");

    // While leased, nobody gets them again; the transfer was never asked for, so it is due.
    let at = |now: i64, created_before: i64, kind: Option<Kind>| {
        let store = store.clone();
        async move {
            store
                .claim_due_checks(DueChecks {
                    now: Timestamp(now),
                    created_before: Timestamp(created_before),
                    kind,
                    lease_until: Timestamp(lease),
                    limit: 100,
                })
                .await
                .unwrap()
        }
    };
    assert!(at(NOW, NOW, Some(Kind::Collection)).await.is_empty());
    assert!(at(NOW + 29_999, NOW, Some(Kind::Collection)).await.is_empty());
    assert_eq!(
        at(NOW, NOW, None).await,
        std::slice::from_ref(&transfer),
        "only the transfer is left"
    );
    assert!(at(NOW + 29_999, NOW, None).await.is_empty());

    // A payment settled meanwhile is no longer checked; the others come back when the lease ends.
    assert!(store
        .settle(&settlement(&due[0], Status::Successful, NOW + 10_000))
        .await
        .unwrap());
    let next = store
        .claim_due_checks(DueChecks {
            now: Timestamp(lease),
            created_before: Timestamp(NOW),
            kind: None,
            lease_until: Timestamp(lease + 30_000),
            limit: 100,
        })
        .await
        .unwrap();
    let mut expected = due[1..].to_vec();
    expected.push(transfer);
    assert_eq!(ids(&next), ids(&expected), "what the lease held, oldest first");
    assert!(next.iter().all(|r| r.transaction.status == Status::Pending));
    // The one created after `created_before` waited for a later one.
    let later = store
        .claim_due_checks(DueChecks {
            now: Timestamp(lease),
            created_before: Timestamp(NOW + 10),
            kind: None,
            lease_until: Timestamp(lease + 30_000),
            limit: 100,
        })
        .await
        .unwrap();
    assert_eq!(later, [too_new]);
    assert_eq!(store.check_ledger().await.unwrap(), SOUND);
}

fn tried(attempt: u32, at: i64, status_code: u16) -> Attempt {
    Attempt {
        attempt,
        at: Timestamp(at),
        url: HOOK.into(),
        status_code: Some(status_code),
        latency_ms: 42,
        error: (status_code >= 300).then(|| format!("HTTP {status_code}")),
        response: Some("ok?".into()),
    }
}

async fn finish(
    store: &dyn Store,
    event: &DueEvent,
    attempt: Option<Attempt>,
    update: EventUpdate,
    now: i64,
) -> Vec<bool> {
    let finished = Finished {
        event: event.clone(),
        attempt,
        update,
    };
    store.finish_attempts(&[finished], Timestamp(now)).await.unwrap()
}

async fn only_the_holder_of_an_events_lease_records_its_attempt((store, _db): Opened) {
    let (tenant, _) = funded(store.as_ref(), "hooks", 0).await;
    store.set_webhook_url(&tenant, Some(HOOK)).await.unwrap();
    let mut settled = Vec::new();
    for n in 0..2 {
        let record = pending(store.as_ref(), &tenant, Kind::Collection, n, NOW + n, NOW + 60_000).await;
        let s = settlement(&record, Status::Successful, NOW);
        assert!(store.settle(&s).await.unwrap());
        settled.push(s);
    }
    let claimed = store
        .claim_due_events(Timestamp(NOW), Timestamp(NOW + 30_000), 10)
        .await
        .unwrap();
    assert_eq!(claimed.len(), 2);
    let of = |s: &momo_gateway::store::Settlement| claimed.iter().find(|e| e.id == s.event_id).unwrap().clone();
    let (a, b) = (of(&settled[0]), of(&settled[1]));
    assert_eq!(
        (a.webhook_url.as_deref(), a.attempts, a.endpoint_disabled),
        (Some(HOOK), 0, false)
    );
    let event = |id: momo_gateway::domain::EventId| {
        let (store, tenant) = (store.clone(), tenant.clone());
        async move { store.event(Some(&tenant), &id).await.unwrap().unwrap() }
    };

    // One batch: A's attempt with A's lease, and B's with a token that is not B's lease.
    let forged = DueEvent {
        lease_token: "not-the-lease".into(),
        ..b.clone()
    };
    let retry = EventUpdate::RetryAt {
        next_attempt_at: Timestamp(NOW + 60_000),
        error: "HTTP 503".into(),
    };
    let batch = [
        Finished {
            event: a.clone(),
            attempt: Some(tried(1, NOW + 100, 503)),
            update: retry,
        },
        Finished {
            event: forged,
            attempt: Some(tried(1, NOW + 100, 200)),
            update: EventUpdate::Delivered,
        },
    ];
    let recorded = store.finish_attempts(&batch, Timestamp(NOW + 150)).await.unwrap();
    assert_eq!(recorded, [true, false]);
    let (summary, attempts) = event(a.id.clone()).await;
    assert_eq!(
        (
            summary.state,
            summary.attempts,
            summary.next_attempt_at,
            summary.last_error.as_deref(),
            summary.delivered_at
        ),
        (
            EventState::Pending,
            1,
            Some(Timestamp(NOW + 60_000)),
            Some("HTTP 503"),
            None
        )
    );
    assert_eq!(attempts, [tried(1, NOW + 100, 503)]);
    let (untouched, none) = event(b.id.clone()).await;
    assert_eq!(
        (untouched.state, untouched.attempts, none.len()),
        (EventState::Pending, 0, 0)
    );

    // A's lease is spent: finishing it again records nothing.
    let again = finish(
        store.as_ref(),
        &a,
        Some(tried(2, NOW + 200, 200)),
        EventUpdate::Delivered,
        NOW + 200,
    )
    .await;
    assert_eq!(again, [false]);
    let (summary, attempts) = event(a.id.clone()).await;
    assert_eq!(
        (summary.state, summary.attempts, attempts.len()),
        (EventState::Pending, 1, 1)
    );

    // While B's lease holds nobody claims it; once it ends, another claim takes B over.
    let claim = |now: i64| store.claim_due_events(Timestamp(now), Timestamp(now + 30_000), 10);
    assert!(claim(NOW + 29_999).await.unwrap().is_empty());
    let taken = claim(NOW + 30_000).await.unwrap();
    assert_eq!(taken.iter().map(|e| e.id.as_str()).collect::<Vec<_>>(), [b.id.as_str()]);
    let b2 = taken[0].clone();
    assert_ne!(b2.lease_token, b.lease_token);
    let late = finish(
        store.as_ref(),
        &b,
        Some(tried(1, NOW + 30_001, 200)),
        EventUpdate::Delivered,
        NOW + 30_002,
    )
    .await;
    assert_eq!(late, [false], "the lease it lost");
    let now_b = finish(
        store.as_ref(),
        &b2,
        Some(tried(1, NOW + 30_010, 200)),
        EventUpdate::Delivered,
        NOW + 30_020,
    )
    .await;
    assert_eq!(now_b, [true]);
    let (summary, attempts) = event(b.id.clone()).await;
    assert_eq!(
        (
            summary.state,
            summary.attempts,
            summary.next_attempt_at,
            summary.delivered_at
        ),
        (EventState::Delivered, 1, None, Some(Timestamp(NOW + 30_020)))
    );
    assert_eq!(attempts, [tried(1, NOW + 30_010, 200)], "only the holder's attempt");

    // A is due again at its retry, with its attempt counted; gone with no attempt, it fails.
    let retried = claim(NOW + 60_000).await.unwrap();
    assert_eq!(
        retried.iter().map(|e| (e.id.as_str(), e.attempts)).collect::<Vec<_>>(),
        [(a.id.as_str(), 1)]
    );
    let gone = EventUpdate::Failed {
        error: "no endpoint".into(),
    };
    assert_eq!(
        finish(store.as_ref(), &retried[0], None, gone, NOW + 60_001).await,
        [true]
    );
    let (summary, attempts) = event(a.id.clone()).await;
    assert_eq!(
        (
            summary.state,
            summary.attempts,
            summary.last_error.as_deref(),
            attempts.len()
        ),
        (EventState::Failed, 1, Some("no endpoint"), 1)
    );
    assert!(
        claim(NOW + 1_000_000).await.unwrap().is_empty(),
        "nothing left to deliver"
    );
    assert_eq!(store.check_ledger().await.unwrap(), SOUND);
}

/// A dispatcher can hold one event twice in a batch (a handed event that a claim also took once
/// its lease ran out): each result is answered by its own token, never by the other's.
async fn an_event_finished_twice_in_one_batch_is_recorded_by_its_own_lease_only((store, _db): Opened) {
    let (tenant, _) = funded(store.as_ref(), "twice", 0).await;
    store.set_webhook_url(&tenant, Some(HOOK)).await.unwrap();
    let record = pending(store.as_ref(), &tenant, Kind::Collection, 1, NOW, NOW + 60_000).await;
    assert!(store
        .settle(&settlement(&record, Status::Successful, NOW))
        .await
        .unwrap());
    let claimed = store
        .claim_due_events(Timestamp(NOW), Timestamp(NOW + 30_000), 10)
        .await
        .unwrap();
    let current = claimed.into_iter().next().expect("the event, claimed");
    let stale = DueEvent {
        lease_token: "an-earlier-lease".into(),
        ..current.clone()
    };
    let batch = [
        Finished {
            event: stale,
            attempt: Some(tried(1, NOW + 100, 200)),
            update: EventUpdate::Delivered,
        },
        Finished {
            event: current.clone(),
            attempt: Some(tried(1, NOW + 100, 503)),
            update: EventUpdate::RetryAt {
                next_attempt_at: Timestamp(NOW + 60_000),
                error: "HTTP 503".into(),
            },
        },
    ];
    let recorded = store.finish_attempts(&batch, Timestamp(NOW + 150)).await.unwrap();
    assert_eq!(recorded, [false, true], "only the current lease's result");
    let (summary, attempts) = store.event(Some(&tenant), &current.id).await.unwrap().unwrap();
    assert_eq!(
        (summary.state, summary.attempts, attempts.len()),
        (EventState::Pending, 1, 1),
        "one attempt counted and kept"
    );
}
