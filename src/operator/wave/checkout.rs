//! Collections as Wave checkout sessions: create one restricted to the payer's number, find it
//! again by our `ref` (`client_reference`), and expire it when the collection expires.
//!
//! | `checkout_status` / `payment_status` | our answer |
//! |---|---|
//! | `open` / `processing` (even with `last_payment_error`) | `AwaitingPayer` with its `wave_launch_url` (`Pending` without one): a failed attempt is not final, the payer may try again until the session expires |
//! | `complete` / `succeeded` (amount and currency as sent) | `Succeeded` |
//! | `expired` / `cancelled` | `Failed { Expired }` |
//! | anything else, or another amount or currency | `Err(BadAnswer)`: never settled, counted |
//! | no session with our `ref` | `NotReceived` |

use reqwest::StatusCode;

use super::wire::{CheckoutSession, CreateCheckoutSession, SearchResult};
use super::{check_sent, e164, lookup_failed, read, refused, WaveConnector};
use crate::domain::{FailureCode, Transaction};
use crate::operator::{BadAnswer, OperatorAnswer, OperatorError, OperatorRequest};

pub(super) const SESSIONS: &str = "/v1/checkout/sessions";

/// What one session says about a collection of `sent` francs.
pub fn answer_of(session: &CheckoutSession, sent: i64) -> Result<OperatorAnswer, OperatorError> {
    let what = format!("checkout session {}", session.id);
    check_sent(&what, &session.amount, &session.currency, sent)?;
    match (session.checkout_status.as_str(), session.payment_status.as_str()) {
        ("open", "processing") => Ok(match &session.wave_launch_url {
            Some(launch_url) => OperatorAnswer::AwaitingPayer {
                launch_url: launch_url.clone(),
            },
            None => OperatorAnswer::Pending,
        }),
        ("complete", "succeeded") => Ok(OperatorAnswer::Succeeded),
        ("expired", "cancelled") => Ok(OperatorAnswer::Failed {
            code: FailureCode::Expired,
            reason: match &session.last_payment_error {
                Some(e) => format!(
                    "the checkout session expired unpaid; last attempt: {}",
                    e.code.as_deref().or(e.message.as_deref()).unwrap_or("no reason given")
                ),
                None => "the checkout session expired unpaid".to_owned(),
            },
        }),
        (checkout, payment) => Err(OperatorError::bad_answer(
            BadAnswer::UnknownStatus,
            format!("{what} has an unknown state: checkout_status {checkout:?}, payment_status {payment:?}"),
        )),
    }
}

/// What the sessions carrying our `ref` say together. There should be one (the idempotency key
/// sees to it); if there are more, a paid one wins, since a collection is paid at most once,
/// and two paid ones need a person.
pub fn answer_of_all(sessions: &[CheckoutSession], sent: i64) -> Result<OperatorAnswer, OperatorError> {
    let answers = sessions
        .iter()
        .map(|s| answer_of(s, sent))
        .collect::<Result<Vec<_>, _>>()?;
    let paid = answers.iter().filter(|a| **a == OperatorAnswer::Succeeded).count();
    if paid > 1 {
        return Err(OperatorError::Ambiguous(format!(
            "{paid} paid checkout sessions carry one reference: the payer paid more than once"
        )));
    }
    if paid == 1 {
        return Ok(OperatorAnswer::Succeeded);
    }
    // Still open: the payer's page, where there is one.
    if let Some(open) = answers
        .iter()
        .find(|a| matches!(a, OperatorAnswer::AwaitingPayer { .. }))
        .or_else(|| answers.iter().find(|a| **a == OperatorAnswer::Pending))
    {
        return Ok(open.clone());
    }
    Ok(answers.into_iter().next().unwrap_or(OperatorAnswer::NotReceived))
}

/// A session id as Wave makes them (`cos-…`), safe in a URL path.
pub(super) fn path_safe(id: &str) -> bool {
    !id.is_empty() && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

impl WaveConnector {
    /// `POST /v1/checkout/sessions`. `success_url` and `error_url` are the transaction's when
    /// it has them; [`OperatorRequest`] does not carry them yet, so the fallbacks serve.
    pub(super) async fn create_session(
        &self,
        r: &OperatorRequest<'_>,
        success_url: Option<&str>,
        error_url: Option<&str>,
    ) -> Result<OperatorAnswer, OperatorError> {
        let body = CreateCheckoutSession {
            amount: r.amount.to_string(),
            currency: "XOF",
            client_reference: r.reference,
            restrict_payer_mobile: e164(r.phone),
            success_url: success_url.unwrap_or(&self.settings.success_url_fallback),
            error_url: error_url.unwrap_or(&self.settings.error_url_fallback),
        };
        let answer = self
            .send(
                self.http
                    .post(self.url(SESSIONS))
                    .header("idempotency-key", r.operator_reference)
                    .json(&body),
            )
            .await?;
        if answer.status != StatusCode::OK {
            return Err(refused("creating the checkout session", &answer));
        }
        let session: CheckoutSession = read("creating the checkout session", &answer)?;
        // A resend with the same key answers the first session as it is now: maybe paid.
        answer_of(&session, r.amount.francs())
    }

    /// The sessions whose `client_reference` is our `ref` (the search may match more loosely).
    pub(super) async fn sessions(&self, reference: &str) -> Result<Vec<CheckoutSession>, OperatorError> {
        let what = "searching checkout sessions";
        let answer = self
            .send(
                self.http
                    .get(self.url(&format!("{SESSIONS}/search")))
                    .query(&[("client_reference", reference)]),
            )
            .await?;
        if answer.status != StatusCode::OK {
            return Err(lookup_failed(what, &answer));
        }
        let found: SearchResult<CheckoutSession> = read(what, &answer)?;
        Ok(found
            .result
            .into_iter()
            .filter(|s| s.client_reference.as_deref() == Some(reference))
            .collect())
    }

    pub(super) async fn session_status(&self, t: &Transaction) -> Result<OperatorAnswer, OperatorError> {
        let sessions = self.sessions(&t.reference).await?;
        answer_of_all(&sessions, t.amounts.amount.get())
    }

    /// Expires every open session of the collection, after making sure none is paid.
    pub(super) async fn expire_sessions(&self, t: &Transaction) -> Result<(), OperatorError> {
        let sessions = self.sessions(&t.reference).await?;
        // Also refuses to go on when a session says something we cannot read.
        if answer_of_all(&sessions, t.amounts.amount.get())? == OperatorAnswer::Succeeded {
            return Err(OperatorError::Ambiguous(
                "the payer paid before the checkout session could be expired: ask for the status".into(),
            ));
        }
        for session in sessions.iter().filter(|s| s.checkout_status == "open") {
            self.expire(&session.id).await?;
        }
        Ok(())
    }

    /// `POST /v1/checkout/sessions/{id}/expire`: 200 also when already expired; 409 when paid.
    async fn expire(&self, id: &str) -> Result<(), OperatorError> {
        if !path_safe(id) {
            return Err(OperatorError::Ambiguous(format!(
                "Wave gave a session id we will not put in a URL: {id:?}"
            )));
        }
        let what = format!("expiring checkout session {id}");
        let answer = self
            .send(self.http.post(self.url(&format!("{SESSIONS}/{id}/expire"))))
            .await?;
        match answer.status {
            StatusCode::OK => Ok(()),
            // Paid between our search and the expiry: the status lookup now says `Succeeded`.
            StatusCode::CONFLICT => Err(OperatorError::Ambiguous(format!(
                "{what}: the payer paid before it could be expired: ask for the status"
            ))),
            _ => Err(lookup_failed(&what, &answer)),
        }
    }
}
