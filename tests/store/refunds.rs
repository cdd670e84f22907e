//! Refunds in the store contract: a refund holds part of its collection in the same
//! transaction that records it, so the refunds of a collection that are not `FAILED` never sum
//! to more than it took, whatever runs at once; a failed refund frees its part.

use std::sync::Arc;

use momo_gateway::domain::{
    Balance, Customer, Kind, RefundLink, RefundReason, Status, Tenant, Timestamp, Transaction, TransactionRecord,
    TransactionRef,
};
use momo_gateway::domain::{Francs, Purpose};
use momo_gateway::store::{Store, StoreError};

use crate::payments::{create, funded, payer, payment, pending_entry, settlement, NOW, SOUND};
use crate::{open, Opened};
use momo_test_support::both_backends;

both_backends!(
    open =>
    twenty_concurrent_refunds_of_one_collection_never_give_back_more_than_it_took,
    only_a_successful_collection_of_the_tenant_is_refunded_and_a_failed_refund_frees_its_part,
);

/// A `PENDING` refund of `francs` of `collection`, with a reason.
pub(crate) fn refund(
    tenant: &Tenant,
    payer: &Customer,
    collection: &TransactionRecord,
    francs: i64,
    id: &str,
) -> Transaction {
    let mut t = payment(tenant, payer, Kind::Refund, francs, id, NOW + 10_000);
    t.purpose = Purpose::Refund(RefundLink {
        collection: collection.transaction.reference.clone(),
        reason: Some(RefundReason::parse("Commande retournée").unwrap()),
    });
    t
}

async fn record(store: &dyn Store, payer: &Customer, t: &Transaction) -> Result<(), StoreError> {
    store
        .insert_pending(payer, t, &pending_entry(t), Timestamp(NOW + 70_000), None)
        .await
        .map(|_| ())
}

/// A BETA collection of `francs`, settled `status`.
pub(crate) async fn collection(
    store: &dyn Store,
    tenant: &Tenant,
    payer: &Customer,
    francs: i64,
    id: &str,
    status: Status,
) -> TransactionRecord {
    let pending = create(
        store,
        payer,
        &payment(tenant, payer, Kind::Collection, francs, id, NOW),
        NOW + 60_000,
    )
    .await;
    if status != Status::Pending {
        assert!(store.settle(&settlement(&pending, status, NOW + 1_000)).await.unwrap());
    }
    store
        .transaction(tenant, &TransactionRef::from(id))
        .await
        .unwrap()
        .unwrap()
}

async fn twenty_concurrent_refunds_of_one_collection_never_give_back_more_than_it_took((store, _db): Opened) {
    let (tenant, _) = funded(store.as_ref(), "refunds", 50_000).await;
    let awa = payer(&tenant, "0501020304", NOW);
    let paid = collection(store.as_ref(), &tenant, &awa, 10_000, "order-1", Status::Successful).await;
    let store: Arc<dyn Store> = store;
    let mut racing = tokio::task::JoinSet::new();
    for i in 0..20 {
        let (store, tenant, awa, paid) = (store.clone(), tenant.clone(), awa.clone(), paid.clone());
        racing.spawn(async move {
            record(
                store.as_ref(),
                &awa,
                &refund(&tenant, &awa, &paid, 1_000, &format!("refund-{i}")),
            )
            .await
        });
    }
    let (mut held, mut refused) = (0, 0);
    while let Some(answer) = racing.join_next().await {
        match answer.unwrap() {
            Ok(()) => held += 1,
            Err(StoreError::NotRefundable) => refused += 1,
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!((held, refused), (10, 10), "only the refunds that fit are recorded");
    let read = store
        .transaction(&tenant, &TransactionRef::from("order-1"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(read.transaction.purpose.refunded(), Francs(10_000));
    assert_eq!(
        store.balance(&tenant).await.unwrap(),
        Balance {
            // The opening 50,000 and the collection's 10,000 less BETA's 1.5 %, less the ten
            // refunds held.
            available: momo_gateway::domain::Francs(50_000 + 9_850 - 10_000),
            reserved: momo_gateway::domain::Francs(10_000),
        }
    );
    assert_eq!(store.check_ledger().await.unwrap(), SOUND);
}

async fn only_a_successful_collection_of_the_tenant_is_refunded_and_a_failed_refund_frees_its_part(
    (store, _db): Opened,
) {
    let store = store.as_ref();
    let (tenant, _) = funded(store, "refunds", 50_000).await;
    let (other, _) = funded(store, "someone else", 50_000).await;
    let awa = payer(&tenant, "0501020304", NOW);
    let pending = collection(store, &tenant, &awa, 10_000, "pending-1", Status::Pending).await;
    let failed = collection(store, &tenant, &awa, 10_000, "failed-1", Status::Failed).await;
    let paid = collection(store, &tenant, &awa, 10_000, "paid-1", Status::Successful).await;
    let transfer = create(
        store,
        &awa,
        &payment(&tenant, &awa, Kind::Transfer, 1_000, "transfer-1", NOW),
        NOW + 60_000,
    )
    .await;
    for (what, of) in [
        ("a pending collection", &pending),
        ("a failed collection", &failed),
        ("a transfer", &transfer),
    ] {
        assert!(
            matches!(
                record(store, &awa, &refund(&tenant, &awa, of, 1_000, "r-x")).await,
                Err(StoreError::NotRefundable)
            ),
            "{what}"
        );
    }
    let stranger = payer(&other, "0501020304", NOW);
    assert!(
        matches!(
            record(store, &stranger, &refund(&other, &stranger, &paid, 1_000, "r-x")).await,
            Err(StoreError::NotRefundable)
        ),
        "another tenant's collection"
    );
    assert!(
        matches!(
            record(store, &awa, &refund(&tenant, &awa, &paid, 10_001, "r-x")).await,
            Err(StoreError::NotRefundable)
        ),
        "more than it took"
    );

    let first = refund(&tenant, &awa, &paid, 6_000, "r-1");
    record(store, &awa, &first).await.unwrap();
    assert!(
        matches!(
            record(store, &awa, &refund(&tenant, &awa, &paid, 5_000, "r-2")).await,
            Err(StoreError::NotRefundable)
        ),
        "more than what remains"
    );
    let first = store
        .transaction(&tenant, &TransactionRef::from("r-1"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        first.transaction.purpose.refund_of(),
        Some(&RefundLink {
            collection: paid.transaction.reference.clone(),
            reason: Some(RefundReason::parse("Commande retournée").unwrap()),
        }),
        "the refund keeps its collection and its reason"
    );
    assert!(store
        .settle(&settlement(&first, Status::Failed, NOW + 20_000))
        .await
        .unwrap());
    let read = store
        .transaction(&tenant, &TransactionRef::from("paid-1"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        read.transaction.purpose.refunded(),
        Francs::ZERO,
        "the failed refund freed its part"
    );
    record(store, &awa, &refund(&tenant, &awa, &paid, 10_000, "r-3"))
        .await
        .unwrap();
    assert_eq!(store.check_ledger().await.unwrap(), SOUND);
}
