//! Operator errors that the simulator never produces, through a connector that fails on
//! purpose: a timeout after sending leaves the payment PENDING, an unreachable operator fails
//! it with 503, an outright rejection fails it with 504.

use std::sync::Arc;

use async_trait::async_trait;
use momo_gateway::domain::{Timestamp, Transaction};
use momo_gateway::operator::{Operator, OperatorAnswer, OperatorError, OperatorRequest};
use reqwest::StatusCode;
use serde_json::json;

use crate::support::helpers::TestApp;
use crate::support::requests::{collect_v1, collect_v2, post};
use momo_test_support::both_backends;

/// Fails every request in the way its phone number's last digit says.
struct FailingOperator;

#[async_trait]
impl Operator for FailingOperator {
    async fn initiate(&self, r: &OperatorRequest<'_>) -> Result<OperatorAnswer, OperatorError> {
        match r.phone.last_two_digits() {
            "11" => Err(OperatorError::Ambiguous("timed out after sending".into())),
            "12" => Err(OperatorError::Transient("connection refused".into())),
            _ => Err(OperatorError::Rejected {
                code: momo_gateway::domain::FailureCode::OperatorRefused,
                reason: "payer over their limit".into(),
            }),
        }
    }

    async fn status(&self, _: &Transaction, _: Timestamp) -> Result<OperatorAnswer, OperatorError> {
        Err(OperatorError::Transient("still down".into()))
    }

    fn callback(&self, _: &Transaction, _: Timestamp) -> Option<OperatorAnswer> {
        None
    }
}

both_backends!(TestApp::spawn => operator_errors_leave_pending_or_fail_as_they_should);

async fn operator_errors_leave_pending_or_fail_as_they_should(mut app: TestApp) {
    app.replace_operator(Arc::new(FailingOperator)).await;
    let token = app.sandbox_token().await;
    let a = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("amb", "0701020311", "ALPHA_MONEY_CI", "1000"),
    )
    .await;
    assert_eq!(a.status, StatusCode::ACCEPTED, "ambiguous is never FAILED: {}", a.body);
    assert_eq!(a.body["data"]["status"], "PENDING");
    let a = post(
        &app,
        &token,
        "/v1/collecte/mobile-money",
        &collect_v1("down", "0701020312", "ALPHA_MONEY_CI", "1000"),
    )
    .await;
    assert_eq!(a.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(a.body["message"], "ServiceUnavailableError");
    assert_eq!(a.body["data"]["status"], "FAILED");
    let a = post(
        &app,
        &token,
        "/v2/collecte/mobile-money",
        &collect_v2("down2", json!("0701020312"), "GAMMA_MONEY_CI", json!(1000)),
    )
    .await;
    assert_eq!(
        (a.status, a.body["message"].as_str().unwrap()),
        (StatusCode::SERVICE_UNAVAILABLE, "OPERATOR_IS_UNAVAILABLE")
    );
    let a = post(
        &app,
        &token,
        "/v2/collecte/mobile-money",
        &collect_v2("rej", json!("0701020313"), "GAMMA_MONEY_CI", json!(1000)),
    )
    .await;
    assert_eq!(
        (a.status, a.body["message"].as_str().unwrap()),
        (StatusCode::GATEWAY_TIMEOUT, "PAYMENT_FAILED_TRY_AGAINST")
    );
    // The reconciler cannot reach the operator either: the ambiguous payment stays PENDING.
    let later = Timestamp(Timestamp::now().millis() + 60_000);
    let report = momo_gateway::reconcile::reconciler::run_once(&app.gateway.payments, later)
        .await
        .unwrap();
    assert_eq!((report.examined, report.settled), (1, 0));
    app.assert_ledger().await;
}
