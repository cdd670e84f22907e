//! v2 as a [`Generation`]: what the handlers of the resources the gateway invented (links,
//! payouts, refunds, recipients) need of it. Their wire types are written as v2 spells them.

use axum::http::StatusCode;
use axum::response::Response;
use serde::Serialize;

use super::payments::{self, TransferV2};
use super::transactions::TransactionV2;
use super::{envelope, Error};
use crate::api::cased::Cased;
use crate::api::dialect::Generation;
use crate::api::error::{ApiError, Dialect};
use crate::domain::{OperatorCode, PaymentLink, Timestamp, TransactionRecord};
use crate::service::{PaymentError, Payments};

/// The v2 generation, for handlers generic over it (`links::create::<V2>`).
pub struct V2;

/// The end of a v2 link: its payments counted in flat fields, its creation as `date`.
#[derive(Serialize)]
struct LinkTail {
    payments_successful: u64,
    payments_pending: u64,
    collected: String,
    date: String,
}

impl Generation for V2 {
    const DIALECT: Dialect = Dialect::V2;
    const MAX_TRANSACTION_ID: usize = payments::MAX_TRANSACTION_ID;
    type Error = Error;
    type Transaction<'a> = TransactionV2<'a>;
    type Transfer = TransferV2;

    fn success(status: StatusCode, message: &'static str, data: impl Serialize) -> Response {
        envelope::success(status, message, data)
    }

    fn payment_answer(
        payments: &Payments,
        result: Result<TransactionRecord, PaymentError>,
    ) -> Result<Response, ApiError> {
        payments::answer(payments, result).map_err(|Error(e)| e)
    }

    fn field(snake: &'static str) -> &'static str {
        snake
    }

    fn date(at: Timestamp) -> String {
        at.v2_date()
    }

    fn operator(code: OperatorCode) -> &'static str {
        code.v2_code()
    }

    fn cased<T>(value: T) -> impl Serialize
    where
        T: Cased + Serialize,
        T::Camel: Serialize,
    {
        value
    }

    fn link_tail(link: &PaymentLink) -> impl Serialize {
        LinkTail {
            payments_successful: link.paid,
            payments_pending: link.pending(),
            collected: link.collected.to_string(),
            date: link.created_at.v2_date(),
        }
    }
}
