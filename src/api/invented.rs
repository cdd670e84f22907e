//! The routes of the resources the gateway invented (refunds, the recipient check, payment
//! links, payout batches): one handler a route, generic over the generation, mounted under each
//! generation's prefix from here, so the two generations' paths cannot drift apart.

use axum::routing::{get, post};
use axum::Router;

use super::dialect::Generation;
use super::{links, payouts, recipients, refunds};
use crate::service::Gateway;

/// Refunds, the recipient check and payment links under `prefix` (`/v1`, `/v2`).
pub fn routes<G: Generation>(prefix: &str) -> Router<Gateway> {
    Router::new()
        .route(&format!("{prefix}/refunds"), post(refunds::create::<G>))
        .route(
            &format!("{prefix}/account-holders/lookups"),
            get(recipients::lookups::<G>),
        )
        .route(
            &format!("{prefix}/account-holders/{{operator}}/{{phone}}"),
            get(recipients::show::<G>),
        )
        .route(
            &format!("{prefix}/payment-links"),
            post(links::create::<G>).get(links::list::<G>),
        )
        .route(&format!("{prefix}/payment-links/{{id}}"), get(links::fetch::<G>))
        .route(
            &format!("{prefix}/payment-links/{{id}}/deactivate"),
            post(links::deactivate::<G>),
        )
}

/// Payout batches under `prefix`: their bodies are larger than any other request's, so the
/// caller gives them their own limit.
pub fn batch_routes<G: Generation>(prefix: &str) -> Router<Gateway> {
    Router::new()
        .route(
            &format!("{prefix}/payout-batches"),
            post(payouts::create::<G>).get(payouts::list::<G>),
        )
        .route(&format!("{prefix}/payout-batches/{{id}}"), get(payouts::fetch::<G>))
}
