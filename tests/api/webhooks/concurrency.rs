//! Dispatchers recording at the same time: two batches whose 410 answers disable the same
//! endpoints, given in opposite orders, must not deadlock on PostgreSQL (the endpoints are
//! locked in one fixed order whatever the batch's order).

use std::collections::BTreeMap;

use momo_gateway::domain::{FailedEvents, Timestamp};
use momo_gateway::store::{DueEvent, EventUpdate, Finished};

use crate::support::helpers::{later, TestApp};
use crate::support::requests::{collect_v1, post};
use crate::support::webhooks::private_targets_allowed;
use momo_test_support::both_backends;

both_backends!(TestApp::spawn_with(private_targets_allowed) => batches_disabling_the_same_endpoints_in_opposite_orders_do_not_deadlock);

const MERCHANTS: usize = 24;
const ROUNDS: usize = 8;

fn gone(events: Vec<DueEvent>) -> Vec<Finished> {
    events
        .into_iter()
        .map(|event| Finished {
            event,
            attempt: None,
            update: EventUpdate::FailedAndDisableEndpoint { error: "gone".into() },
        })
        .collect()
}

async fn batches_disabling_the_same_endpoints_in_opposite_orders_do_not_deadlock(app: TestApp) {
    for i in 0..MERCHANTS {
        let merchant = app.new_merchant(&format!("Shop {i}")).await;
        let tenant = momo_gateway::domain::Tenant {
            merchant_id: momo_gateway::domain::MerchantId::from(merchant.id.clone()),
            environment: merchant.sandbox.environment,
        };
        app.gateway
            .merchants
            .set_webhook_url(&tenant, Some("http://127.0.0.1:9/hook"))
            .await
            .unwrap();
        let token = app.token(&merchant.sandbox).await;
        for n in 0..2 {
            let body = collect_v1(&format!("m{i}-{n}"), "0701020301", "ALPHA_MONEY_CI", "1500");
            assert!(post(&app, &token, "/v1/collecte/mobile-money", &body)
                .await
                .status
                .is_success());
        }
    }
    let store = momo_gateway::store::connect(&app.database_url).await.unwrap();
    let mut now = later(0);
    for round in 0..ROUNDS {
        let claimed = store
            .claim_due_events(now, Timestamp(now.millis() + 60_000), 1_000)
            .await
            .unwrap();
        assert_eq!(claimed.len(), 2 * MERCHANTS, "round {round}");
        // One event of each merchant in each batch: the first in merchant order, the second in
        // the reverse order, as two dispatchers' batches can come.
        let mut by_merchant: BTreeMap<String, Vec<DueEvent>> = BTreeMap::new();
        for event in claimed {
            by_merchant
                .entry(event.tenant.merchant_id.to_string())
                .or_default()
                .push(event);
        }
        let (mut forward, mut backward) = (Vec::new(), Vec::new());
        for (_, mut events) in by_merchant {
            backward.push(events.pop().unwrap());
            forward.push(events.pop().unwrap());
        }
        backward.reverse();
        let (forward, backward) = (gone(forward), gone(backward));
        let (one, two) = tokio::join!(
            store.finish_attempts(&forward, now),
            store.finish_attempts(&backward, now)
        );
        let (one, two) = (one.expect("no deadlock"), two.expect("no deadlock"));
        assert!(one.iter().chain(&two).all(|recorded| *recorded), "round {round}");
        let again = store
            .redeliver_failed(
                &FailedEvents {
                    tenant: None,
                    created: Timestamp(0)..Timestamp(i64::MAX),
                },
                now,
            )
            .await
            .unwrap();
        assert_eq!(again, 2 * MERCHANTS as u64);
        now = Timestamp(now.millis() + 1_000);
    }
}
