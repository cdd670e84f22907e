//! The store contract: the same tests against SQLite and PostgreSQL, through the `Store` trait.

mod carriers;
mod dashboard;
mod idempotency;
mod leases;
mod payments;
mod refunds;
mod settlements;

use std::sync::Arc;

use momo_gateway::domain::statement::statement_lines;
use momo_gateway::domain::Francs;
use momo_gateway::domain::{
    Address, Credential, Cursor, Customer, CustomerId, Day, Environment, MerchantId, Msisdn, PageRequest, ReportScope,
    StatementFilter, Tenant, Timestamp,
};
use momo_gateway::store::{self, NewMerchant, NewMerchantEnvironment, Store, StoreError};

use momo_test_support::{both_backends, Backend, TestDatabase};

/// A migrated store over a fresh database, and the database, which lives as long as the test.
type Opened = (Arc<dyn Store>, TestDatabase);

/// What each test receives through `both_backends!(open => ...)`; `None` when PostgreSQL is
/// absent outside CI.
async fn open(backend: Backend) -> Option<Opened> {
    let db = TestDatabase::create(backend).await?;
    let store = store::connect(&db.url).await.expect("store opens and migrates");
    Some((store, db))
}

fn credential(merchant: &MerchantId, environment: Environment, key: &str, at: i64) -> Credential {
    Credential {
        id: uuid::Uuid::new_v4().to_string().into(),
        merchant_id: merchant.clone(),
        environment,
        api_key: key.to_owned(),
        secret_hash: vec![1, 2, 3, 0xff],
        created_at: Timestamp(at),
        revoked_at: None,
    }
}

fn merchant(name: &str) -> NewMerchant {
    let id = MerchantId::from(uuid::Uuid::new_v4().to_string());
    let environments = Environment::ALL
        .iter()
        .map(|&environment| NewMerchantEnvironment {
            environment,
            webhook_url: None,
            webhook_secret: "whsec_test".into(),
            credential: credential(&id, environment, &format!("pk_{name}_{environment}"), 1),
            opening_balance: Francs::ZERO,
        })
        .collect();
    NewMerchant {
        id,
        name: name.to_owned(),
        created_at: Timestamp(1),
        environments,
    }
}

fn customer(tenant: &Tenant, id: &str, at: i64) -> Customer {
    Customer {
        id: id.into(),
        tenant: tenant.clone(),
        first_name: "Awa".into(),
        last_name: "Koné".into(),
        email: None,
        phone: Msisdn::parse("0701020304").unwrap(),
        address: Address {
            country_code: "CI".into(),
            city: Some("Abidjan".into()),
            street_address: None,
        },
        created_at: Timestamp(at),
    }
}

both_backends!(
    open =>
    migrations_run_again_without_harm,
    a_setting_keeps_its_first_value_even_when_raced,
    merchants_are_recorded_with_their_environments_and_credentials,
    a_duplicate_api_key_is_a_conflict_and_nothing_is_written,
    rotation_revokes_the_old_credential_in_the_same_transaction,
    customers_stay_inside_their_tenant_and_page_newest_first,
    a_webhook_secret_rotation_needs_an_existing_tenant,
    a_statement_page_opens_with_every_earlier_posting_of_its_tenant,
);

async fn migrations_run_again_without_harm((store, db): Opened) {
    store.ping().await.unwrap();
    let again = store::connect(&db.url).await.expect("a second start migrates nothing");
    again.ping().await.unwrap();
    assert!(!again.has_merchants().await.unwrap());
}

async fn a_setting_keeps_its_first_value_even_when_raced((store, _db): Opened) {
    let tasks: Vec<_> = (0..10)
        .map(|i| {
            let store = store.clone();
            tokio::spawn(async move { store.setting_or_insert("race", &format!("value-{i}")).await.unwrap() })
        })
        .collect();
    let mut values = Vec::new();
    for t in tasks {
        values.push(t.await.unwrap());
    }
    values.dedup();
    assert_eq!(values.len(), 1, "every racer sees the one stored value: {values:?}");
    assert_eq!(store.setting_or_insert("race", "late").await.unwrap(), values[0]);
}

async fn merchants_are_recorded_with_their_environments_and_credentials((store, _db): Opened) {
    let m = merchant("shop");
    store.create_merchant(&m).await.unwrap();
    assert!(store.has_merchants().await.unwrap());
    let listed = store.merchants().await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].id, m.id);
    assert_eq!(listed[0].environments.len(), 2);
    for env in &m.environments {
        let c = store.credential_by_key(&env.credential.api_key).await.unwrap().unwrap();
        assert_eq!(c, env.credential, "stored exactly, hash bytes included");
        assert_eq!(store.credential(&c.id).await.unwrap().unwrap(), c);
    }
    assert!(store.credential_by_key("pk_nobody").await.unwrap().is_none());
}

async fn a_duplicate_api_key_is_a_conflict_and_nothing_is_written((store, _db): Opened) {
    store.create_merchant(&merchant("shop")).await.unwrap();
    let err = store.create_merchant(&merchant("shop")).await.unwrap_err();
    assert!(matches!(err, StoreError::Conflict { .. }), "{err:?}");
    assert_eq!(
        store.merchants().await.unwrap().len(),
        1,
        "the failed merchant left no row behind"
    );
}

async fn rotation_revokes_the_old_credential_in_the_same_transaction((store, _db): Opened) {
    let m = merchant("shop");
    store.create_merchant(&m).await.unwrap();
    let tenant = Tenant {
        merchant_id: m.id.clone(),
        environment: Environment::Sandbox,
    };
    let old = &m
        .environments
        .iter()
        .find(|e| e.environment == Environment::Sandbox)
        .unwrap()
        .credential;
    let replacement = credential(&m.id, Environment::Sandbox, "pk_new", 5);
    store.rotate_credential(&tenant, &replacement).await.unwrap();
    let old_now = store.credential(&old.id).await.unwrap().unwrap();
    assert_eq!(old_now.revoked_at, Some(Timestamp(5)));
    assert!(store.credential(&replacement.id).await.unwrap().unwrap().is_active());
    let production = store.credential_by_key("pk_shop_Production").await.unwrap().unwrap();
    assert!(production.is_active(), "the other environment is untouched");

    let nobody = Tenant {
        merchant_id: MerchantId::from("nobody"),
        environment: Environment::Sandbox,
    };
    let err = store
        .rotate_credential(
            &nobody,
            &credential(&nobody.merchant_id, Environment::Sandbox, "pk_x", 6),
        )
        .await;
    assert!(matches!(err, Err(StoreError::NotFound)), "{err:?}");
    assert!(
        store.credential_by_key("pk_x").await.unwrap().is_none(),
        "nothing written for an unknown tenant"
    );
}

async fn customers_stay_inside_their_tenant_and_page_newest_first((store, _db): Opened) {
    let a = merchant("a");
    let b = merchant("b");
    store.create_merchant(&a).await.unwrap();
    store.create_merchant(&b).await.unwrap();
    let a_sandbox = Tenant {
        merchant_id: a.id.clone(),
        environment: Environment::Sandbox,
    };
    let a_production = Tenant {
        merchant_id: a.id.clone(),
        environment: Environment::Production,
    };
    let b_sandbox = Tenant {
        merchant_id: b.id.clone(),
        environment: Environment::Sandbox,
    };
    // Two share a timestamp: the id breaks the tie.
    for (id, at) in [("c1", 10), ("c2", 20), ("c3", 20), ("c4", 30)] {
        store.insert_customer(&customer(&a_sandbox, id, at)).await.unwrap();
    }
    store.insert_customer(&customer(&b_sandbox, "other", 40)).await.unwrap();

    assert_eq!(
        store
            .customer(&a_sandbox, &CustomerId::from("c1"))
            .await
            .unwrap()
            .unwrap(),
        customer(&a_sandbox, "c1", 10)
    );
    assert!(store
        .customer(&a_production, &CustomerId::from("c1"))
        .await
        .unwrap()
        .is_none());
    assert!(store
        .customer(&b_sandbox, &CustomerId::from("c1"))
        .await
        .unwrap()
        .is_none());

    let ids = |list: Vec<Customer>| list.into_iter().map(|c| c.id).collect::<Vec<_>>();
    let all = store
        .customers(&a_sandbox, &PageRequest { limit: 10, after: None })
        .await
        .unwrap();
    assert_eq!(ids(all), ["c4", "c3", "c2", "c1"]);
    let after = Cursor {
        created_at: Timestamp(20),
        id: "c3".into(),
    };
    let rest = store
        .customers(
            &a_sandbox,
            &PageRequest {
                limit: 10,
                after: Some(after),
            },
        )
        .await
        .unwrap();
    assert_eq!(ids(rest), ["c2", "c1"]);
    let first = store
        .customers(&a_sandbox, &PageRequest { limit: 1, after: None })
        .await
        .unwrap();
    assert_eq!(ids(first), ["c4"]);
    assert!(store
        .customers(&a_production, &PageRequest { limit: 10, after: None })
        .await
        .unwrap()
        .is_empty());

    let duplicate = store
        .insert_customer(&customer(&a_sandbox, "c1", 50))
        .await
        .unwrap_err();
    assert!(matches!(duplicate, StoreError::Conflict { .. }), "{duplicate:?}");
}

async fn a_webhook_secret_rotation_needs_an_existing_tenant((store, _db): Opened) {
    let m = merchant("hooks");
    store.create_merchant(&m).await.unwrap();
    let tenant = Tenant {
        merchant_id: m.id.clone(),
        environment: Environment::Sandbox,
    };
    store
        .rotate_webhook_secret(&tenant, "whsec_new", Timestamp(5))
        .await
        .unwrap();
    store
        .rotate_webhook_secret(&tenant, "whsec_newer", Timestamp(6))
        .await
        .unwrap();
    let stranger = Tenant {
        merchant_id: MerchantId::from("nobody"),
        environment: Environment::Sandbox,
    };
    assert!(matches!(
        store.rotate_webhook_secret(&stranger, "whsec_x", Timestamp(5)).await,
        Err(StoreError::NotFound)
    ));
}

async fn a_statement_page_opens_with_every_earlier_posting_of_its_tenant((store, _db): Opened) {
    let (mine, theirs) = (merchant("mine"), merchant("theirs"));
    store.create_merchant(&mine).await.unwrap();
    store.create_merchant(&theirs).await.unwrap();
    let tenant = |m: &store::NewMerchant| Tenant {
        merchant_id: m.id.clone(),
        environment: Environment::Production,
    };
    // Three credits in one millisecond, one later, and another tenant's in between.
    for (amount, at) in [(100, 10), (200, 10), (400, 10), (800, 20)] {
        store
            .credit(&tenant(&mine), Francs(amount), Timestamp(at))
            .await
            .unwrap();
    }
    store
        .credit(&tenant(&theirs), Francs(5_000), Timestamp(15))
        .await
        .unwrap();
    let since = StatementFilter {
        from: Some(Timestamp(5)),
        to: None,
    };
    let read = |filter: StatementFilter, limit: u32, after: Option<Cursor>| {
        let store = store.clone();
        let tenant = tenant(&mine);
        async move {
            let page = store
                .ledger_postings(&tenant, &filter, &PageRequest { limit, after })
                .await
                .unwrap();
            (page.opening.available, statement_lines(page))
        }
    };
    let (opening, all) = read(since, 100, None).await;
    assert_eq!(opening, momo_gateway::domain::Francs(0));
    let balances: Vec<i64> = all.iter().map(|l| l.balance.available.get()).collect();
    let mut amounts: Vec<i64> = all[..3].iter().map(|l| l.posting.amount.get()).collect();
    amounts.sort();
    assert_eq!(
        (amounts, balances[3]),
        (vec![100, 200, 400], 1_500),
        "only mine: {balances:?}"
    );
    // One posting a page: each page opens where the one before closed.
    let mut after = None;
    for line in &all {
        let (opening, page) = read(since, 1, after).await;
        assert_eq!(page.len(), 1);
        assert_eq!(page[0], *line, "the same line, the same running balance");
        assert_eq!(
            opening + momo_gateway::domain::Francs(line.posting.amount.get()),
            line.balance.available
        );
        after = Some(line.posting.cursor());
    }
    assert!(read(since, 1, after).await.1.is_empty(), "past the last posting");
    // A window opens with everything before it; any cursor text is a position.
    let (opening, window) = read(
        StatementFilter {
            from: Some(Timestamp(20)),
            to: None,
        },
        100,
        None,
    )
    .await;
    assert_eq!((opening, window.len()), (momo_gateway::domain::Francs(700), 1));
    let forged = Cursor {
        created_at: Timestamp(10),
        id: "zzz".into(),
    };
    let (opening, page) = read(since, 100, Some(forged)).await;
    assert_eq!(
        (opening, page.len()),
        (momo_gateway::domain::Francs(700), 1),
        "money in sorts first in its millisecond"
    );
    let (_, window) = read(
        StatementFilter {
            from: None,
            to: Some(Timestamp(10)),
        },
        100,
        None,
    )
    .await;
    assert!(window.iter().all(|l| l.posting.at < Timestamp(10)), "to is exclusive");
    let scope = ReportScope {
        environment: Environment::Production,
        merchant: None,
    };
    let day = Day::parse("1970-01-01").unwrap();
    assert!(
        store.settlement_rows(&scope, day).await.unwrap().is_empty(),
        "credits are no transactions"
    );
}
