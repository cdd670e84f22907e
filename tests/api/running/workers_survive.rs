//! A worker whose step panics (an operator's answer we did not foresee) is caught, counted in
//! `momo_worker_panics_total{worker}`, and goes on: the payment it was settling is settled by
//! its next step.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use momo_gateway::config::Config;
use momo_gateway::domain::{Timestamp, Transaction};
use momo_gateway::operator::{Operator, OperatorAnswer, OperatorError, OperatorRequest};
use reqwest::StatusCode;

use crate::support::helpers::{answer, TestApp};
use crate::support::requests::{collect_v1, post};
use momo_test_support::{both_backends, eventually};

both_backends!(
    TestApp::spawn_with(quick_callbacks) =>
    a_worker_step_that_panics_is_counted_and_the_worker_goes_on,
);

fn quick_callbacks(c: &mut Config) {
    c.simulator.delay = Duration::from_millis(200);
}

/// An operator that leaves every payment pending and calls back once it is paid, except that
/// its first callback panics, as a connector's bug would.
#[derive(Default)]
struct PanicsOnce {
    panicked: AtomicBool,
}

#[async_trait]
impl Operator for PanicsOnce {
    async fn initiate(&self, _request: &OperatorRequest<'_>) -> Result<OperatorAnswer, OperatorError> {
        Ok(OperatorAnswer::Pending)
    }

    async fn status(&self, _transaction: &Transaction, _now: Timestamp) -> Result<OperatorAnswer, OperatorError> {
        Ok(OperatorAnswer::Pending)
    }

    fn callback(&self, _transaction: &Transaction, _now: Timestamp) -> Option<OperatorAnswer> {
        if !self.panicked.swap(true, Ordering::SeqCst) {
            panic!("an answer nobody foresaw");
        }
        Some(OperatorAnswer::Succeeded)
    }
}

async fn a_worker_step_that_panics_is_counted_and_the_worker_goes_on(mut app: TestApp) {
    app.replace_operator(Arc::new(PanicsOnce::default())).await;
    let token = app.sandbox_token().await;
    let a = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("panics-once", "0701020302", "ALPHA_MONEY_CI", "1000"),
    )
    .await;
    assert_eq!(a.status, StatusCode::ACCEPTED, "{}", a.body);
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let workers = momo_gateway::reconcile::spawn_loops(&app.gateway, stopped);
    eventually("the panic counted", Duration::from_secs(20), async || {
        let text = app.get("/metrics").send().await.unwrap().text().await.unwrap();
        if text.contains("momo_worker_panics_total{worker=\"simulated_operator_callbacks\"} 1") {
            Ok(())
        } else {
            Err(text
                .lines()
                .filter(|l| l.contains("worker"))
                .collect::<Vec<_>>()
                .join("\n"))
        }
    })
    .await;
    eventually(
        "the payment settled by a later step",
        Duration::from_secs(20),
        async || {
            let a = answer(app.get("/v2/get-status-payment/panics-once").bearer_auth(&token)).await;
            match a.body["data"]["status"].as_str() {
                Some("SUCCESSFUL") => Ok(()),
                _ => Err(a.body),
            }
        },
    )
    .await;
    stop.send(true).unwrap();
    for worker in workers {
        worker
            .await
            .expect("every worker is still running and stops when asked");
    }
    app.assert_ledger().await;
}
