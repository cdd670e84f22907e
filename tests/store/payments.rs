//! Payments in the store contract: a `PENDING` insert with its payer and its reservation, all or
//! nothing, even when raced. The helpers build payments and settlements as
//! `service/payments/create.rs` does; `settlements` and `leases` use them too.

use momo_gateway::domain::fees::FeeSchedule;
use momo_gateway::domain::ledger::{self, Posting};
use momo_gateway::domain::purpose::Collection;
use momo_gateway::domain::{
    Amount, Balance, Cause, Customer, Environment, FailureCode, Kind, Msisdn, OperatorCode, Outcome, PageRequest,
    Status, Tenant, Timestamp, Transaction, TransactionRecord, TransactionRef,
};
use momo_gateway::domain::{Francs, Purpose, RefundLink, ReturnUrls};
use momo_gateway::store::{LedgerCheck, Settlement, Store, StoreError};

use crate::{customer, merchant, open, Opened};
use momo_test_support::both_backends;

both_backends!(
    open =>
    a_pending_transfer_reserves_its_total_and_a_duplicate_or_an_overdraft_writes_nothing,
    concurrent_creations_never_overdraw_nor_share_a_transaction_id,
);

/// The instant the tests happen around, in epoch milliseconds.
pub const NOW: i64 = 1_700_000_000_000;

/// What every ledger check of a sound store says.
pub const SOUND: LedgerCheck = LedgerCheck {
    postings_sum: 0,
    inconsistent_balances: 0,
    final_without_one_event: 0,
};

/// A new merchant whose environments open with `opening` francs: its Production tenant and
/// that tenant's credential id.
pub async fn funded(store: &dyn Store, name: &str, opening: i64) -> (Tenant, momo_gateway::domain::CredentialId) {
    let mut m = merchant(name);
    for env in &mut m.environments {
        env.opening_balance = Francs(opening);
    }
    store.create_merchant(&m).await.unwrap();
    let production = m
        .environments
        .iter()
        .find(|e| e.environment == Environment::Production)
        .unwrap();
    let tenant = Tenant {
        merchant_id: m.id.clone(),
        environment: Environment::Production,
    };
    (tenant, production.credential.id.clone())
}

/// A payer as a payment request names them, with a fresh id.
pub fn payer(tenant: &Tenant, phone: &str, at: i64) -> Customer {
    Customer {
        phone: Msisdn::parse(phone).unwrap(),
        ..customer(tenant, &uuid::Uuid::now_v7().to_string(), at)
    }
}

/// A `PENDING` BETA payment of `francs` for `payer`, as the service builds one (default fees).
pub fn payment(
    tenant: &Tenant,
    payer: &Customer,
    kind: Kind,
    francs: i64,
    transaction_id: &str,
    at: i64,
) -> Transaction {
    let amounts = FeeSchedule::default().amounts(OperatorCode::Beta, kind, Amount::from_francs(francs).unwrap());
    Transaction {
        id: momo_gateway::domain::ids::new_transaction_id().to_string().into(),
        // Ten characters of the reference alphabet (upper-case hexadecimal is in it).
        reference: uuid::Uuid::new_v4().simple().to_string()[..10].to_uppercase().into(),
        tenant: tenant.clone(),
        transaction_id: transaction_id.into(),
        purpose: match kind {
            Kind::Collection => Purpose::Collection(Collection {
                return_urls: ReturnUrls {
                    success: Some("https://shop.example/ok".into()),
                    error: None,
                },
                ..Collection::default()
            }),
            Kind::Transfer => Purpose::Transfer(Default::default()),
            // A refund of no collection the store knows: the tests that record one name theirs.
            Kind::Refund => Purpose::Refund(RefundLink {
                collection: "ZZZZZZZZZZ".into(),
                reason: None,
            }),
        },
        operator: OperatorCode::Beta,
        operator_alias: Some("BETA_MONEY_CI".into()),
        phone: payer.phone.clone(),
        phone_as_sent: format!("+225{}", payer.phone.as_str()),
        amounts,
        status: Status::Pending,
        customer_id: payer.id.clone(),
        name: format!("{} {}", payer.first_name, payer.last_name),
        email: payer.email.clone(),
        failure_code: None,
        failure_reason: None,
        created_at: Timestamp(at),
        updated_at: None,
        carrier: Default::default(),
    }
}

/// What a creation writes to the balance: a payout's reservation, nothing for a collection.
pub fn pending_entry(t: &Transaction) -> Vec<Posting> {
    if t.kind().pays_out() {
        ledger::reserve(&t.amounts)
    } else {
        Vec::new()
    }
}

/// Records `t` `PENDING` for `payer`, its first check due at `first_check`: the record as
/// the store now holds it.
pub async fn create(store: &dyn Store, payer: &Customer, t: &Transaction, first_check: i64) -> TransactionRecord {
    let customer = store
        .insert_pending(payer, t, &pending_entry(t), Timestamp(first_check), None)
        .await
        .unwrap();
    let mut transaction = t.clone();
    transaction.customer_id = customer.id.clone();
    TransactionRecord { transaction, customer }
}

/// A later settlement of `record` (a callback's), as `Gateway::settle` writes one: the final
/// transaction, its ledger entry, and its event with a fresh id and the frozen webhook body.
pub fn settlement(record: &TransactionRecord, status: Status, at: i64) -> Settlement {
    let code = (status == Status::Failed).then_some(FailureCode::OperatorRefused);
    let reason = code.map(|_| "the operator refused".to_owned());
    let mut settled = record.clone();
    let t = &mut settled.transaction;
    t.status = status;
    t.failure_code = code;
    t.failure_reason = reason.clone();
    t.updated_at = Some(Timestamp(at));
    Settlement {
        entry: ledger::settle(t.kind(), &t.amounts, status),
        transaction: t.clone(),
        outcome: Outcome {
            status,
            cause: Cause::OperatorCallback,
            code,
            reason,
        },
        at: Timestamp(at),
        updated_at: Some(Timestamp(at)),
        event_id: format!("msg_{}", uuid::Uuid::now_v7().simple()).into(),
        event_payload: momo_gateway::webhook::payload::body(&settled),
        batch_event: None,
        audit: None,
    }
}

pub fn page(limit: u32) -> PageRequest {
    PageRequest { limit, after: None }
}

pub async fn customer_count(store: &dyn Store, tenant: &Tenant) -> usize {
    store.customers(tenant, &page(100)).await.unwrap().len()
}

async fn a_pending_transfer_reserves_its_total_and_a_duplicate_or_an_overdraft_writes_nothing((store, _db): Opened) {
    let (tenant, credential_id) = funded(store.as_ref(), "payouts", 50_000).await;
    let awa = payer(&tenant, "0501020304", NOW);
    let t = payment(&tenant, &awa, Kind::Transfer, 10_000, "order-1", NOW);
    assert_eq!(
        t.amounts.amount_total,
        momo_gateway::domain::Francs(10_150),
        "BETA transfers pay 150 bp on top"
    );
    let stored = store
        .insert_pending(
            &awa,
            &t,
            &ledger::reserve(&t.amounts),
            Timestamp(NOW + 60_000),
            Some(&credential_id),
        )
        .await
        .unwrap();
    assert_eq!(stored, awa, "a new payer is stored as given");
    let reserved = Balance {
        available: momo_gateway::domain::Francs(39_850),
        reserved: momo_gateway::domain::Francs(10_150),
    };
    assert_eq!(store.balance(&tenant).await.unwrap(), reserved);
    let record = store
        .transaction(&tenant, &TransactionRef::from("order-1"))
        .await
        .unwrap()
        .expect("written");
    let expected = TransactionRecord {
        transaction: t.clone(),
        customer: awa.clone(),
    };
    assert_eq!(record, expected, "read back as written, PENDING, with its payer");
    assert_eq!(
        store
            .transaction(&tenant, &TransactionRef::from(t.reference.as_str()))
            .await
            .unwrap(),
        Some(expected)
    );
    let sandbox = Tenant {
        environment: Environment::Sandbox,
        ..tenant.clone()
    };
    assert!(store
        .transaction(&sandbox, &TransactionRef::from("order-1"))
        .await
        .unwrap()
        .is_none());
    assert_eq!(
        store.balance(&sandbox).await.unwrap(),
        Balance {
            available: momo_gateway::domain::Francs(50_000),
            reserved: momo_gateway::domain::Francs(0)
        },
        "the other environment's money is its own"
    );

    // The same merchant id again, for another payer and amount: refused, nothing written.
    let ibrahim = payer(&tenant, "0102030405", NOW + 1);
    let again = payment(&tenant, &ibrahim, Kind::Transfer, 5_000, "order-1", NOW + 1);
    let err = store
        .insert_pending(
            &ibrahim,
            &again,
            &ledger::reserve(&again.amounts),
            Timestamp(NOW + 60_001),
            None,
        )
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Conflict { .. }), "{err:?}");
    assert_eq!(store.balance(&tenant).await.unwrap(), reserved, "no second reservation");
    assert_eq!(
        store
            .transaction(&tenant, &TransactionRef::from("order-1"))
            .await
            .unwrap(),
        Some(record.clone())
    );
    assert!(store.transaction_by_ref(&again.reference).await.unwrap().is_none());
    assert_eq!(
        customer_count(store.as_ref(), &tenant).await,
        1,
        "the refused payer is not kept"
    );

    // More than is available: refused, nothing written.
    let big = payment(&tenant, &ibrahim, Kind::Transfer, 40_000, "order-2", NOW + 2);
    assert!(big.amounts.amount_total > reserved.available);
    let err = store
        .insert_pending(
            &ibrahim,
            &big,
            &ledger::reserve(&big.amounts),
            Timestamp(NOW + 60_002),
            None,
        )
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::InsufficientFunds), "{err:?}");
    assert_eq!(store.balance(&tenant).await.unwrap(), reserved);
    assert!(store
        .transaction(&tenant, &TransactionRef::from("order-2"))
        .await
        .unwrap()
        .is_none());
    assert_eq!(customer_count(store.as_ref(), &tenant).await, 1);

    // Exactly what is available fits: 39,261 + 589 of fees.
    let all_in = payment(&tenant, &ibrahim, Kind::Transfer, 39_261, "order-3", NOW + 3);
    assert_eq!(all_in.amounts.amount_total, momo_gateway::domain::Francs(39_850));
    let created = create(store.as_ref(), &ibrahim, &all_in, NOW + 60_003).await;
    assert_eq!(created.customer, ibrahim);
    assert_eq!(
        store.balance(&tenant).await.unwrap(),
        Balance {
            available: momo_gateway::domain::Francs(0),
            reserved: momo_gateway::domain::Francs(50_000)
        }
    );
    assert_eq!(customer_count(store.as_ref(), &tenant).await, 2);
    assert_eq!(store.check_ledger().await.unwrap(), SOUND);
}

async fn concurrent_creations_never_overdraw_nor_share_a_transaction_id((store, _db): Opened) {
    let (tenant, _) = funded(store.as_ref(), "payouts", 50_000).await;
    // Ten transfers of 10,150 each against 50,000: four fit, whatever the batches.
    let spawn = |n: usize, kind: Kind, transaction_id: String| {
        let (store, tenant) = (store.clone(), tenant.clone());
        tokio::spawn(async move {
            let who = payer(&tenant, &format!("07020000{n:02}"), NOW);
            let t = payment(&tenant, &who, kind, 10_000, &transaction_id, NOW);
            store
                .insert_pending(&who, &t, &pending_entry(&t), Timestamp(NOW + 60_000), None)
                .await
        })
    };
    let transfers: Vec<_> = (0..10)
        .map(|n| spawn(n, Kind::Transfer, format!("payout-{n}")))
        .collect();
    let (mut created, mut short) = (0, 0);
    for t in transfers {
        match t.await.unwrap() {
            Ok(_) => created += 1,
            Err(StoreError::InsufficientFunds) => short += 1,
            Err(e) => panic!("{e:?}"),
        }
    }
    assert_eq!((created, short), (4, 6));
    let balance = Balance {
        available: momo_gateway::domain::Francs(50_000 - 4 * 10_150),
        reserved: momo_gateway::domain::Francs(4 * 10_150),
    };
    assert_eq!(store.balance(&tenant).await.unwrap(), balance);
    assert_eq!(
        customer_count(store.as_ref(), &tenant).await,
        4,
        "refused payers are not kept"
    );

    // Ten collections with one merchant id, each for another payer: one is created.
    let twins: Vec<_> = (10..20).map(|n| spawn(n, Kind::Collection, "twin".into())).collect();
    let mut kept = Vec::new();
    for t in twins {
        match t.await.unwrap() {
            Ok(payer) => kept.push(payer),
            Err(StoreError::Conflict { .. }) => {}
            Err(e) => panic!("{e:?}"),
        }
    }
    assert_eq!(kept.len(), 1, "{kept:?}");
    let twin = store
        .transaction(&tenant, &TransactionRef::from("twin"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(twin.customer, kept[0], "the one created carries its own payer");
    assert_eq!(customer_count(store.as_ref(), &tenant).await, 5);
    assert_eq!(store.balance(&tenant).await.unwrap(), balance);
    assert_eq!(store.check_ledger().await.unwrap(), SOUND);
}
