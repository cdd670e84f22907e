//! Which connector carries a payment: recorded at its creation, moved by a compare-and-set that
//! two senders cannot both win, and fixed once its protocol's token is recorded; a resend
//! claimed, or "not received" noted, only on the carrier its status check read.

use momo_gateway::domain::{Carrier, Kind, Timestamp, TransactionRef};
use momo_gateway::store::{CarrierChange, Missing};

use crate::payments::{funded, payer, payment, NOW};
use crate::{open, Opened};
use momo_test_support::both_backends;

both_backends!(open => a_carrier_moves_only_from_the_one_recorded_and_never_after_a_resend_or_a_token);

async fn a_carrier_moves_only_from_the_one_recorded_and_never_after_a_resend_or_a_token((store, _db): Opened) {
    let (tenant, credential_id) = funded(store.as_ref(), "carriers", 0).await;
    let awa = payer(&tenant, "0501020304", NOW);
    let mut t = payment(&tenant, &awa, Kind::Collection, 1_000, "carried", NOW);
    t.carrier.connector = Some("momo-openapi".to_owned());
    // A collection holds nothing at its creation.
    store
        .insert_pending(&awa, &t, &[], Timestamp(NOW + 60_000), Some(&credential_id))
        .await
        .unwrap();
    let carrier = async || {
        let found = store
            .transaction(&tenant, &TransactionRef::from("carried"))
            .await
            .unwrap();
        found.expect("written").transaction.carrier
    };
    assert_eq!(
        carrier().await.connector.as_deref(),
        Some("momo-openapi"),
        "recorded at its creation"
    );
    let id = &t.id;
    let record = |expected, connector, token| {
        let change = CarrierChange {
            expected,
            connector,
            token,
        };
        store.record_carrier(id, change)
    };
    assert!(
        !record(None, "paydunya", None).await.unwrap(),
        "not from a connector it does not have"
    );
    assert!(
        !record(Some("wave-checkout"), "paydunya", None).await.unwrap(),
        "nor from another one"
    );
    assert!(
        record(Some("momo-openapi"), "paydunya", None).await.unwrap(),
        "a fallback moves it"
    );
    assert!(
        !record(Some("momo-openapi"), "paydunya", None).await.unwrap(),
        "a second sender that read the old carrier cannot move it too"
    );
    let read = |connector: &str, token: Option<&str>| Carrier {
        connector: Some(connector.to_owned()),
        token: token.map(str::to_owned),
    };
    let stale = read("momo-openapi", None);
    assert_eq!(
        store.claim_resend(id, &stale, Timestamp(NOW + 80_000)).await.unwrap(),
        Missing::Moved,
        "no resend on the carrier a status check read before the fallback"
    );
    assert_eq!(
        store.missing_since(id, &stale, Timestamp(NOW + 80_000)).await.unwrap(),
        Missing::Moved,
        "nor found missing there"
    );
    let fresh = read("paydunya", None);
    assert_eq!(
        store.claim_resend(id, &fresh, Timestamp(NOW + 90_000)).await.unwrap(),
        Missing::Marked(())
    );
    assert_eq!(
        store.claim_resend(id, &fresh, Timestamp(NOW + 95_000)).await.unwrap(),
        Missing::Spent,
        "one resend"
    );
    assert_eq!(
        store.missing_since(id, &fresh, Timestamp(NOW + 99_000)).await.unwrap(),
        Missing::Marked(Timestamp(NOW + 90_000)),
        "missing since the resend's claim"
    );
    assert!(
        !record(Some("paydunya"), "momo-openapi", None).await.unwrap(),
        "never moved once a resend is claimed"
    );
    assert!(
        record(Some("paydunya"), "paydunya", Some("invoice-1")).await.unwrap(),
        "its token"
    );
    assert!(
        !record(Some("paydunya"), "paydunya", Some("invoice-2")).await.unwrap(),
        "one token"
    );
    assert_eq!(carrier().await, read("paydunya", Some("invoice-1")));
    assert_eq!(
        store.missing_since(id, &fresh, Timestamp(NOW + 99_000)).await.unwrap(),
        Missing::Moved,
        "a check that read no token says nothing of the recorded one"
    );
}
