//! Refunds as Wave checkout refunds: `POST /v1/checkout/sessions/{id}/refund` gives a paid
//! session's whole amount back to its payer, with an empty 200. The session is the one the
//! collection's `ref` finds (`client_reference`), as for its status; the refund's internal id is
//! the `idempotency-key`.
//!
//! Wave refunds a session only in full, so this connector refunds nothing in part
//! ([`Operator::refunds_in_part`](crate::operator::Operator::refunds_in_part)): the gateway
//! refuses a partial refund of a Wave collection before anything is reserved, rather than pay
//! the difference out as a payout, which Wave's books would not tie to the payment and which
//! costs the payout's fee (docs/refunds.md).
//!
//! | Wave's answer | our answer |
//! |---|---|
//! | 200 | `Succeeded` |
//! | 4xx (`checkout-refund-failed`, `checkout-session-not-found`, …) to the first request | `Err(Rejected { OperatorRefused })`: nothing was refunded |
//! | no paid session carries the collection's `ref` | `Err(Rejected)`, nothing sent |
//! | 5xx, a timeout, a reset, a 409 | `Err(Ambiguous)`: the refund stays `PENDING` |
//!
//! Wave has no lookup of a refund. Its status is asked by sending it again under the same
//! `idempotency-key`: Wave answers a key it has seen with the first answer, and makes a refund
//! it never received. A refusal of that resend is ambiguous, never a failure: a session
//! refunded earlier (under a key Wave no longer remembers) is refused just as one that cannot
//! be refunded, and failing the refund then would release money that has left.

use reqwest::StatusCode;

use super::checkout::{answer_of_all, path_safe, SESSIONS};
use super::{refused, WaveConnector};
use crate::domain::{FailureCode, Transaction};
use crate::operator::{OperatorAnswer, OperatorError, OperatorRequest, RefundOf};

/// Whether a refund is asked for the first time, or again to learn where it stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Asking {
    First,
    Again,
}

impl WaveConnector {
    pub(super) async fn give_back(
        &self,
        r: &OperatorRequest<'_>,
        collection: RefundOf<'_>,
    ) -> Result<OperatorAnswer, OperatorError> {
        self.refund_session(
            collection.reference,
            r.operator_reference,
            r.amount.francs(),
            Asking::First,
        )
        .await
    }

    pub(super) async fn session_refund_status(&self, t: &Transaction) -> Result<OperatorAnswer, OperatorError> {
        let Some(collection) = t.purpose.refund_of().map(|link| &link.collection) else {
            return Err(OperatorError::Ambiguous(format!(
                "refund {} names no collection: a person must look",
                t.reference
            )));
        };
        self.refund_session(collection, &t.id, t.amounts.amount.get(), Asking::Again)
            .await
    }

    /// Refunds the paid session of the collection `reference` under `key`.
    async fn refund_session(
        &self,
        reference: &str,
        key: &str,
        amount: i64,
        asking: Asking,
    ) -> Result<OperatorAnswer, OperatorError> {
        let sessions = self.sessions(reference).await?;
        let paid: Vec<_> = sessions
            .iter()
            .filter(|s| s.checkout_status == "complete" && s.payment_status == "succeeded")
            .collect();
        let session = match (paid.as_slice(), asking) {
            ([session], _) => *session,
            ([], Asking::First) => {
                return Err(rejected(format!(
                    "no paid checkout session carries {reference}: there is nothing to refund"
                )))
            }
            // The session said paid when the refund was sent: now it says otherwise.
            (_, _) => {
                // Also refuses to go on when a session says something we cannot read.
                answer_of_all(&sessions, amount)?;
                return Err(OperatorError::Ambiguous(format!(
                    "{} paid checkout sessions carry {reference}: a person must look",
                    paid.len()
                )));
            }
        };
        // Checked by the gateway before the refund was recorded (`refunds_in_part`).
        if super::check_sent("the refunded session", &session.amount, &session.currency, amount).is_err() {
            return Err(match asking {
                Asking::First => rejected(format!(
                    "Wave refunds checkout session {} only in full ({} {}), not {amount}",
                    session.id, session.amount, session.currency
                )),
                Asking::Again => OperatorError::Ambiguous(format!(
                    "checkout session {} is of {} {}, the refund of {amount}: a person must look",
                    session.id, session.amount, session.currency
                )),
            });
        }
        if !path_safe(&session.id) {
            return Err(OperatorError::Ambiguous(format!(
                "Wave gave a session id we will not put in a URL: {:?}",
                session.id
            )));
        }
        let what = format!("refunding checkout session {}", session.id);
        let answer = self
            .send(
                self.http
                    .post(self.url(&format!("{SESSIONS}/{}/refund", session.id)))
                    .header("idempotency-key", key),
            )
            .await?;
        if answer.status == StatusCode::OK {
            return Ok(OperatorAnswer::Succeeded);
        }
        match (refused(&what, &answer), asking) {
            (OperatorError::Rejected { reason, .. }, Asking::Again) => Err(OperatorError::Ambiguous(format!(
                "{reason}; the refund may have been made before, so it is not failed"
            ))),
            (e, _) => Err(e),
        }
    }
}

fn rejected(reason: String) -> OperatorError {
    OperatorError::Rejected {
        code: FailureCode::OperatorRefused,
        reason,
    }
}
