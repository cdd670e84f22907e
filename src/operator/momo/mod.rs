//! `momo-openapi`: the request-to-pay and transfer protocol that MTN publishes on its MoMo
//! developer platform, as a connector behind the [`Operator`] trait.
//!
//! - The gateway's internal transaction id (a UUID v4, stored with the `PENDING` row before
//!   any call) is the `X-Reference-Id`: the operator's idempotency key. A refund is a
//!   disbursement naming its collection's `X-Reference-Id` as `referenceIdToRefund`. Sent twice, the same
//!   payment is refused as a duplicate (409) and never executed twice, so a resend after a
//!   crash is safe. Our `ref` travels as `externalId`.
//! - A token per product (`collection`, `disbursement`) is cached until shortly before it
//!   expires; a 401 drops it and the call is tried once more with a fresh one.
//! - Outcomes: 202 is `PENDING`; a 4xx refusal is a rejection (nothing happened); a 5xx or a
//!   timeout after sending is ambiguous (the payment stays `PENDING` for the reconciler); a
//!   refused connection is unreachable (nothing was sent). A status lookup's 404 means the
//!   operator never received the payment.
//! - Anything the operator answers that does not add up (unknown status, another amount or
//!   currency than we sent, malformed JSON) is logged and never settles anything.

pub mod callback;
pub mod wire;

mod holder;
mod status;
mod token;

use std::time::Duration;

use async_trait::async_trait;
use reqwest::StatusCode;

pub use self::status::{answer_of, failure_code};
use self::token::TokenCache;
use self::wire::{ErrorAnswer, Notes, Number, Party, Payment, PaymentResult, Refund, Sum, TokenAnswer};
use super::answer;
use super::http::{self, transport_error};
use super::OperatorRequest;
use super::{
    AccountHolder, BadAnswer, CallbackRejected, CallbackRequest, Operator, OperatorAnswer, OperatorError, RefundOf,
};
use crate::domain::{Msisdn, OperatorCode, Timestamp, Transaction};

/// The credentials of one product (collection or disbursement): MTN provisions an API user
/// and key per subscription key. `Debug` hides the secrets.
#[derive(Clone, PartialEq, Eq)]
pub struct MomoCredentials {
    pub api_user: String,
    pub api_key: String,
    pub subscription_key: String,
}

impl std::fmt::Debug for MomoCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MomoCredentials")
            .field("api_user", &self.api_user)
            .field("api_key", &"[redacted]")
            .field("subscription_key", &"[redacted]")
            .finish()
    }
}

/// Where and how to reach one MoMo Open API deployment. `Debug` hides the secrets.
#[derive(Clone)]
pub struct MomoSettings {
    /// e.g. `https://sandbox.momodeveloper.mtn.com`, or the emulator's address.
    pub base_url: String,
    pub collection: MomoCredentials,
    pub disbursement: MomoCredentials,
    /// `X-Target-Environment`: `sandbox`, or the production name (`mtnivorycoast`).
    pub target_environment: String,
    /// Where the operator should send its callback (`{public_url}/operator-callbacks/{OPERATOR}/
    /// {Environment}?token=…`); none means polling only.
    pub callback_url: Option<String>,
    /// The `token`s a callback may carry: this route's (the one `callback_url` carries) and,
    /// while a secret is being rotated, the previous one's. MoMo callbacks have no signature,
    /// so these secrets are what tell them from forgeries; none refuses every callback.
    pub callback_tokens: Vec<String>,
    /// For each call, connection to last byte.
    pub timeout: Duration,
    /// The most of an answer that is read (`MOMO_OPERATOR_MAX_ANSWER_BYTES`).
    pub max_answer_bytes: usize,
}

impl std::fmt::Debug for MomoSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MomoSettings")
            .field("base_url", &self.base_url)
            .field("collection", &self.collection)
            .field("disbursement", &self.disbursement)
            .field("target_environment", &self.target_environment)
            .field(
                "callback_url",
                &self.callback_url.as_ref().map(|_| "[redacted: carries the token]"),
            )
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// The connector.
pub struct MomoConnector {
    settings: MomoSettings,
    http: reqwest::Client,
    tokens: TokenCache,
}

/// The two products, each with its own credentials and token.
#[derive(Debug, Clone, Copy)]
enum Product {
    Collection,
    Disbursement,
}

impl Product {
    fn name(self) -> &'static str {
        match self {
            Product::Collection => "collection",
            Product::Disbursement => "disbursement",
        }
    }
}

/// Where one kind of payment is initiated and where its status is asked (`…/{referenceId}`),
/// and with which product's credentials.
#[derive(Debug, Clone, Copy)]
struct Route {
    product: Product,
    start: &'static str,
    lookup: &'static str,
}

const REQUEST_TO_PAY: Route = Route {
    product: Product::Collection,
    start: "/collection/v1_0/requesttopay",
    lookup: "/collection/v1_0/requesttopay",
};

const TRANSFER: Route = Route {
    product: Product::Disbursement,
    start: "/disbursement/v1_0/transfer",
    lookup: "/disbursement/v1_0/transfer",
};

/// The platform documents the refund's initiation in v2_0 and its lookup in v1_0.
const REFUND: Route = Route {
    product: Product::Disbursement,
    start: "/disbursement/v2_0/refund",
    lookup: "/disbursement/v1_0/refund",
};

impl MomoConnector {
    pub fn new(settings: MomoSettings) -> Result<MomoConnector, reqwest::Error> {
        let http = http::client(settings.timeout)?;
        Ok(MomoConnector {
            settings,
            http,
            tokens: TokenCache::default(),
        })
    }

    fn credentials(&self, product: Product) -> &MomoCredentials {
        match product {
            Product::Collection => &self.settings.collection,
            Product::Disbursement => &self.settings.disbursement,
        }
    }

    fn subscription_key(&self, product: Product) -> &str {
        &self.credentials(product).subscription_key
    }

    fn url(&self, path: &str) -> String {
        http::url(&self.settings.base_url, path)
    }

    async fn token(&self, product: Product) -> Result<String, OperatorError> {
        self.tokens
            .get(product.name(), || async {
                let answer = self
                    .http
                    .post(self.url(&format!("/{}/token/", product.name())))
                    .basic_auth(
                        &self.credentials(product).api_user,
                        Some(&self.credentials(product).api_key),
                    )
                    .header("Ocp-Apim-Subscription-Key", self.subscription_key(product))
                    .send()
                    .await
                    // No payment was sent yet, whatever happened to the token request.
                    .map_err(|e| OperatorError::Transient(format!("token request failed: {e}")))?;
                if !answer.status().is_success() {
                    return Err(OperatorError::Transient(format!(
                        "the operator refused our credentials for {} ({}); check the api user, key and subscription key",
                        product.name(),
                        answer.status()
                    )));
                }
                // No payment was sent yet: whatever is wrong with this answer is transient.
                let token: TokenAnswer = answer::json(answer, self.settings.max_answer_bytes)
                    .await
                    .map_err(|e| OperatorError::Transient(format!("token answer refused: {e}")))?
                    .map_err(|e| OperatorError::Transient(format!("malformed token answer: {e}")))?;
                Ok((token.access_token, Duration::from_secs(token.expires_in)))
            })
            .await
    }

    /// Sends `request` (built with a token) once, and once more with a fresh token after a 401.
    async fn send(
        &self,
        product: Product,
        build: impl Fn(&str) -> reqwest::RequestBuilder,
    ) -> Result<reqwest::Response, OperatorError> {
        for _ in 0..2 {
            let token = self.token(product).await?;
            let answer = build(&token).send().await.map_err(transport_error)?;
            if answer.status() == StatusCode::UNAUTHORIZED {
                self.tokens.forget(product.name()).await;
                continue;
            }
            return Ok(answer);
        }
        Err(OperatorError::Transient(format!(
            "the operator refused a fresh {} token (401)",
            product.name()
        )))
    }

    /// Sends a payment's `body` to `route` once under its `X-Reference-Id`: a 202 or a 409 (sent
    /// before) is `PENDING`, a 5xx ambiguous, any other refusal a rejection.
    async fn start(
        &self,
        r: &OperatorRequest<'_>,
        route: Route,
        body: Result<Vec<u8>, serde_json::Error>,
    ) -> Result<OperatorAnswer, OperatorError> {
        let product = route.product;
        let body = body.map_err(|e| OperatorError::Transient(format!("cannot encode the request: {e}")))?;
        let answer = self
            .send(product, |token| {
                let mut request = self
                    .http
                    .post(self.url(route.start))
                    .bearer_auth(token)
                    .header("X-Reference-Id", r.operator_reference)
                    .header("X-Target-Environment", &self.settings.target_environment)
                    .header("Ocp-Apim-Subscription-Key", self.subscription_key(product))
                    .header("Content-Type", "application/json")
                    .body(body.clone());
                if let Some(callback) = &self.settings.callback_url {
                    request = request.header("X-Callback-Url", callback);
                }
                request
            })
            .await?;
        let status = answer.status();
        if status.is_success() || status == StatusCode::CONFLICT {
            // 409: this reference was received before (a resend): the payment exists once.
            return Ok(OperatorAnswer::Pending);
        }
        if status.is_server_error() {
            return Err(OperatorError::Ambiguous(format!(
                "the operator answered {status} after receiving the payment"
            )));
        }
        let error: Option<ErrorAnswer> = answer::json(answer, self.settings.max_answer_bytes).await?.ok();
        let code = error.as_ref().and_then(|e| e.code.clone());
        Err(OperatorError::Rejected {
            code: failure_code(r.kind(), code.as_deref()),
            reason: format!(
                "the operator refused it ({status}): {}",
                error
                    .and_then(|e| e.message.or(e.code))
                    .unwrap_or_else(|| "no reason given".to_owned())
            ),
        })
    }

    /// Asks where `t` stands at `route`'s lookup: a 404 is a payment never received.
    async fn ask(&self, t: &Transaction, route: Route) -> Result<OperatorAnswer, OperatorError> {
        let product = route.product;
        let path = format!("{}/{}", route.lookup, t.id);
        let answer = self
            .send(product, |token| {
                self.http
                    .get(self.url(&path))
                    .bearer_auth(token)
                    .header("X-Target-Environment", &self.settings.target_environment)
                    .header("Ocp-Apim-Subscription-Key", self.subscription_key(product))
            })
            .await?;
        match answer.status() {
            StatusCode::NOT_FOUND => Ok(OperatorAnswer::NotReceived),
            status if status.is_success() => {
                let result: PaymentResult =
                    answer::json(answer, self.settings.max_answer_bytes)
                        .await?
                        .map_err(|e| {
                            OperatorError::bad_answer(BadAnswer::Malformed, format!("malformed status answer: {e}"))
                        })?;
                answer_of(&result, t)
            }
            status => Err(OperatorError::Ambiguous(format!("status lookup answered {status}"))),
        }
    }
}

/// What a payment body begins with: `r`'s sum in XOF, and its `ref`.
fn sum<'a>(r: &OperatorRequest<'a>) -> Sum<'a> {
    Sum {
        amount: r.amount.to_string(),
        currency: "XOF",
        external_id: r.reference,
    }
}

#[async_trait]
impl Operator for MomoConnector {
    async fn collect(&self, r: &OperatorRequest<'_>) -> Result<OperatorAnswer, OperatorError> {
        let body = serde_json::to_vec(&Payment {
            sum: sum(r),
            number: Number::Payer(Party::msisdn(r.phone.as_str())),
            // ALPHA's one-time code travels as the payer's message: the protocol has no field
            // of its own for it (docs/operators.md).
            notes: Notes {
                payer_message: r.otp_code().unwrap_or(""),
                payee_note: r.reference,
            },
        });
        self.start(r, REQUEST_TO_PAY, body).await
    }

    async fn transfer(&self, r: &OperatorRequest<'_>) -> Result<OperatorAnswer, OperatorError> {
        let body = serde_json::to_vec(&Payment {
            sum: sum(r),
            number: Number::Payee(Party::msisdn(r.phone.as_str())),
            notes: Notes {
                payer_message: r.reference,
                payee_note: r.reference,
            },
        });
        self.start(r, TRANSFER, body).await
    }

    async fn refund(&self, r: &OperatorRequest<'_>, collection: RefundOf<'_>) -> Result<OperatorAnswer, OperatorError> {
        let body = serde_json::to_vec(&Refund {
            sum: sum(r),
            notes: Notes {
                payer_message: r.reference,
                payee_note: collection.reference,
            },
            reference_id_to_refund: collection.operator_reference,
        });
        self.start(r, REFUND, body).await
    }

    async fn collection_status(&self, t: &Transaction, _now: Timestamp) -> Result<OperatorAnswer, OperatorError> {
        self.ask(t, REQUEST_TO_PAY).await
    }

    async fn transfer_status(&self, t: &Transaction, _now: Timestamp) -> Result<OperatorAnswer, OperatorError> {
        self.ask(t, TRANSFER).await
    }

    async fn refund_status(&self, t: &Transaction, _now: Timestamp) -> Result<OperatorAnswer, OperatorError> {
        self.ask(t, REFUND).await
    }

    async fn account_holder(&self, _operator: OperatorCode, phone: &Msisdn) -> Result<AccountHolder, OperatorError> {
        self.holder(phone).await
    }

    fn verify_callback(&self, request: &CallbackRequest<'_>) -> Result<String, CallbackRejected> {
        callback::verify(&self.settings.callback_tokens, request)
    }

    fn callback(&self, _: &Transaction, _: Timestamp) -> Option<OperatorAnswer> {
        // Callbacks arrive over HTTP (`verify_callback`), never made up here.
        None
    }
}

#[cfg(test)]
mod tests;
