//! Which connector carries a payment: recorded at its creation, moved by a compare-and-set that
//! two senders cannot both win, and fixed once its protocol's token is recorded.

use momo_gateway::domain::{Carrier, Kind, Timestamp, TransactionRef};
use momo_gateway::store::CarrierChange;

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
    assert!(store.claim_resend(id, Timestamp(NOW + 90_000)).await.unwrap());
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
    assert_eq!(
        carrier().await,
        Carrier {
            connector: Some("paydunya".to_owned()),
            token: Some("invoice-1".to_owned()),
        }
    );
}
