//! Settlements in the store contract: a `PENDING` payment moves once to its final state, with
//! its ledger entry and its one webhook event, even when settlements race.

use momo_gateway::domain::{Balance, EventFilter, FailureCode, Kind, Status, Timestamp, TransactionRef};

use crate::payments::{create, funded, page, payer, payment, settlement, NOW, SOUND};
use crate::{open, Opened};
use momo_test_support::both_backends;

both_backends!(
    open =>
    a_settlement_moves_a_pending_payment_once_with_its_entry_and_one_event,
    of_ten_concurrent_settlements_of_one_payment_exactly_one_moves_it,
    a_refund_is_stored_as_its_own_kind_and_pays_out_like_a_transfer,
);

async fn a_settlement_moves_a_pending_payment_once_with_its_entry_and_one_event((store, _db): Opened) {
    let (tenant, _) = funded(store.as_ref(), "payouts", 50_000).await;
    let awa = payer(&tenant, "0501020304", NOW);
    let paid = create(
        store.as_ref(),
        &awa,
        &payment(&tenant, &awa, Kind::Transfer, 10_000, "order-1", NOW),
        NOW + 60_000,
    )
    .await;
    let refused = create(
        store.as_ref(),
        &awa,
        &payment(&tenant, &awa, Kind::Transfer, 5_000, "order-2", NOW + 1),
        NOW + 60_001,
    )
    .await;
    let after_reserving = Balance {
        available: momo_gateway::domain::Francs(50_000 - 10_150 - 5_075),
        reserved: momo_gateway::domain::Francs(10_150 + 5_075),
    };
    assert_eq!(store.balance(&tenant).await.unwrap(), after_reserving);

    let done = settlement(&paid, Status::Successful, NOW + 5_000);
    assert!(store.settle(&done).await.unwrap(), "the first settlement moves it");
    let paid_out = Balance {
        available: after_reserving.available,
        reserved: momo_gateway::domain::Francs(5_075),
    };
    assert_eq!(
        store.balance(&tenant).await.unwrap(),
        paid_out,
        "the reservation paid out"
    );
    let read = store
        .transaction(&tenant, &TransactionRef::from("order-1"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        read.transaction, done.transaction,
        "SUCCESSFUL, updated at the settlement"
    );

    // A late contrary outcome, or the same one again: nothing moves, nothing is written.
    assert!(!store
        .settle(&settlement(&paid, Status::Failed, NOW + 6_000))
        .await
        .unwrap());
    assert!(!store.settle(&done).await.unwrap());
    assert_eq!(store.balance(&tenant).await.unwrap(), paid_out);
    assert_eq!(
        store
            .transaction(&tenant, &TransactionRef::from("order-1"))
            .await
            .unwrap(),
        Some(read)
    );

    // A failed transfer gives its reservation back.
    let undone = settlement(&refused, Status::Failed, NOW + 7_000);
    assert!(store.settle(&undone).await.unwrap());
    assert_eq!(
        store.balance(&tenant).await.unwrap(),
        Balance {
            available: momo_gateway::domain::Francs(50_000 - 10_150),
            reserved: momo_gateway::domain::Francs(0)
        }
    );
    let failed = store
        .transaction(&tenant, &TransactionRef::from("order-2"))
        .await
        .unwrap()
        .unwrap()
        .transaction;
    assert_eq!(
        (failed.status, failed.failure_code, failed.failure_reason.as_deref()),
        (
            Status::Failed,
            Some(FailureCode::OperatorRefused),
            Some("the operator refused")
        )
    );

    // One event each, due at its settlement, with the body frozen then.
    let mut due = store
        .claim_due_events(Timestamp(NOW + 7_000), Timestamp(NOW + 37_000), 10)
        .await
        .unwrap();
    due.sort_by(|a, b| a.id.cmp(&b.id));
    let mut expected = [&done, &undone];
    expected.sort_by(|a, b| a.event_id.cmp(&b.event_id));
    let got: Vec<_> = due
        .iter()
        .map(|e| (e.id.as_str(), e.payload.as_str(), &e.tenant, e.attempts))
        .collect();
    let want: Vec<_> = expected
        .iter()
        .map(|s| (s.event_id.as_str(), s.event_payload.as_str(), &tenant, 0))
        .collect();
    assert_eq!(got, want);
    let filter = EventFilter {
        transaction_id: Some("order-1".into()),
        state: None,
    };
    let events = store.events(Some(&tenant), &filter, &page(10)).await.unwrap();
    let summary: Vec<_> = events
        .iter()
        .map(|e| (e.id.as_str(), e.transaction_status, e.created_at))
        .collect();
    assert_eq!(
        summary,
        [(done.event_id.as_str(), Status::Successful, Timestamp(NOW + 5_000))]
    );
    assert_eq!(store.check_ledger().await.unwrap(), SOUND);
}

async fn of_ten_concurrent_settlements_of_one_payment_exactly_one_moves_it((store, _db): Opened) {
    let (tenant, _) = funded(store.as_ref(), "payouts", 50_000).await;
    let awa = payer(&tenant, "0501020304", NOW);
    let t = payment(&tenant, &awa, Kind::Transfer, 10_000, "order-1", NOW);
    let record = create(store.as_ref(), &awa, &t, NOW + 60_000).await;
    // A callback, a status check and a payer crossing: half say paid, half refused.
    let racers: Vec<_> = (0..10)
        .map(|i| {
            let store = store.clone();
            let status = if i % 2 == 0 { Status::Successful } else { Status::Failed };
            let s = settlement(&record, status, NOW + 1_000 + i);
            tokio::spawn(async move { (store.settle(&s).await.unwrap(), s) })
        })
        .collect();
    let mut winners = Vec::new();
    for racer in racers {
        let (moved, s) = racer.await.unwrap();
        if moved {
            winners.push(s);
        }
    }
    assert_eq!(winners.len(), 1, "exactly one settlement moves it");
    let winner = &winners[0];
    let stored = store
        .transaction(&tenant, &TransactionRef::from("order-1"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        stored.transaction, winner.transaction,
        "the winner's outcome is the one kept"
    );
    let available = match winner.outcome.status {
        Status::Successful => 50_000 - 10_150,
        _ => 50_000,
    };
    assert_eq!(
        store.balance(&tenant).await.unwrap(),
        Balance {
            available: momo_gateway::domain::Francs(available),
            reserved: momo_gateway::domain::Francs(0)
        },
        "one entry applied"
    );
    let events = store
        .events(Some(&tenant), &EventFilter::default(), &page(20))
        .await
        .unwrap();
    let ids: Vec<_> = events.iter().map(|e| (e.id.as_str(), e.transaction_status)).collect();
    assert_eq!(ids, [(winner.event_id.as_str(), winner.outcome.status)], "one event");
    assert_eq!(store.check_ledger().await.unwrap(), SOUND);
}

async fn a_refund_is_stored_as_its_own_kind_and_pays_out_like_a_transfer((store, _db): Opened) {
    let (tenant, _) = funded(store.as_ref(), "refunds", 50_000).await;
    let awa = payer(&tenant, "0501020304", NOW);
    let paid = super::refunds::collection(store.as_ref(), &tenant, &awa, 20_000, "paid-1", Status::Successful).await;
    let before = store.balance(&tenant).await.unwrap();
    let given_back = create(
        store.as_ref(),
        &awa,
        &super::refunds::refund(&tenant, &awa, &paid, 10_000, "refund-1"),
        NOW + 60_000,
    )
    .await;
    let refused = create(
        store.as_ref(),
        &awa,
        &super::refunds::refund(&tenant, &awa, &paid, 5_000, "refund-2"),
        NOW + 60_001,
    )
    .await;
    assert_eq!(
        given_back.transaction.amounts.fees,
        momo_gateway::domain::Francs(0),
        "no refund fee unless configured"
    );
    let read = store
        .transaction(&tenant, &TransactionRef::from("refund-1"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(read.transaction.kind(), Kind::Refund);
    assert_eq!(
        store.balance(&tenant).await.unwrap(),
        Balance {
            available: before.available - momo_gateway::domain::Francs(15_000),
            reserved: before.reserved + momo_gateway::domain::Francs(15_000),
        },
        "both reserved, as transfers are"
    );
    assert!(store
        .settle(&settlement(&given_back, Status::Successful, NOW + 5_000))
        .await
        .unwrap());
    assert!(store
        .settle(&settlement(&refused, Status::Failed, NOW + 5_001))
        .await
        .unwrap());
    assert_eq!(
        store.balance(&tenant).await.unwrap(),
        Balance {
            available: before.available - momo_gateway::domain::Francs(10_000),
            reserved: before.reserved,
        },
        "the successful one paid out, the failed one released"
    );
    assert_eq!(store.check_ledger().await.unwrap(), SOUND);
}
