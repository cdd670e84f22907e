//! What the webhook tests share: a gateway allowed to call a receiver on this machine, that
//! receiver set as the merchant's webhook URL, a dispatcher, and an event as the API shows it.

use momo_gateway::config::Config;
use momo_gateway::webhook::dispatcher::Dispatcher;
use reqwest::StatusCode;
use serde_json::Value;

use crate::support::helpers::{answer, TestApp};
use momo_test_support::receiver::{Receiver, Reply};

/// The configuration every webhook test starts from: the receiver is a local server.
pub fn private_targets_allowed(c: &mut Config) {
    c.webhook.allow_private = true;
}

/// [`private_targets_allowed`], with Production served by the simulator.
pub fn private_targets_allowed_production_simulated(c: &mut Config) {
    private_targets_allowed(c);
    crate::support::helpers::production_simulated(c);
}

/// A receiver answering with `script`, then `otherwise` (200 when `None`), set as the default
/// merchant's Sandbox webhook URL; and a Sandbox token.
pub async fn listen(app: &TestApp, script: Vec<Reply>, otherwise: Option<Reply>) -> (Receiver, String) {
    let receiver = Receiver::start(script, otherwise).await;
    app.gateway
        .merchants
        .set_webhook_url(&app.sandbox_tenant(), Some(&receiver.url))
        .await
        .unwrap();
    let token = app.sandbox_token().await;
    (receiver, token)
}

/// A dispatcher for the app's gateway, driven by the test through `run_once(now)`.
pub fn dispatcher(app: &TestApp) -> Dispatcher {
    app.gateway.webhook_dispatcher(&app.gateway.config().webhook).unwrap()
}

/// The event `id` as `GET /v1/webhooks/events/{id}` shows it to the merchant.
pub async fn event_of(app: &TestApp, token: &str, id: &str) -> Value {
    let a = answer(app.get(&format!("/v1/webhooks/events/{id}")).bearer_auth(token)).await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.body);
    a.body["data"].clone()
}
