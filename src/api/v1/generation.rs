//! v1 as a [`Generation`]: what the handlers of the resources the gateway invented (links,
//! payouts, refunds, recipients) need of it. Their fields are the camelCase twins `cased!`
//! emits; the few names that are not are listed in [`V1::field`].

use axum::http::StatusCode;
use axum::response::Response;
use serde::Serialize;

use super::payments::{self, TransferV1};
use super::transactions::TransactionOut;
use super::{envelope, Error};
use crate::api::cased::Cased;
use crate::api::dialect::Generation;
use crate::api::error::{ApiError, Dialect};
use crate::domain::{OperatorCode, PaymentLink, Timestamp, TransactionRecord};
use crate::service::{PaymentError, Payments};

/// The v1 generation, for handlers generic over it (`links::create::<V1>`).
pub struct V1;

/// A link's payments as v1 counts them: in an object of their own.
#[derive(Serialize)]
struct PaymentCounts {
    successful: u64,
    pending: u64,
}

/// The end of a v1 link.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LinkTail {
    payments: PaymentCounts,
    collected: String,
    created_at: String,
}

impl Generation for V1 {
    const DIALECT: Dialect = Dialect::V1;
    const MAX_TRANSACTION_ID: usize = payments::MAX_TRANSACTION_ID;
    type Error = Error;
    type Transaction<'a> = TransactionOut<'a>;
    type Transfer = TransferV1;

    fn success(status: StatusCode, _message: &'static str, data: impl Serialize) -> Response {
        envelope::success(status, data)
    }

    fn payment_answer(
        payments: &Payments,
        result: Result<TransactionRecord, PaymentError>,
    ) -> Result<Response, ApiError> {
        payments::answer(payments, result).map_err(|Error(e)| e)
    }

    fn field(snake: &'static str) -> &'static str {
        match snake {
            "min_amount" => "minAmount",
            "max_amount" => "maxAmount",
            "max_payments" => "maxPayments",
            "expires_at" => "expiresAt",
            "success_url" => "successUrl",
            "error_url" => "errorUrl",
            "transaction_id" => "transactionId",
            // The reference named these apart, not by casing (the `=>` names of `cased!`).
            "collection_id" => "collection",
            "number_user" => "phone",
            "name_user" => "name",
            // A one-word name is spelled alike; the unit test below holds every multi-word name
            // the handlers use to a v1 spelling of its own.
            one_word => one_word,
        }
    }

    fn date(at: Timestamp) -> String {
        at.iso8601_millis()
    }

    fn operator(code: OperatorCode) -> &'static str {
        code.v1_code()
    }

    fn cased<T>(value: T) -> impl Serialize
    where
        T: Cased + Serialize,
        T::Camel: Serialize,
    {
        value.to_camel()
    }

    fn link_tail(link: &PaymentLink) -> impl Serialize {
        LinkTail {
            payments: PaymentCounts {
                successful: link.paid,
                pending: link.pending(),
            },
            collected: link.collected.to_string(),
            created_at: link.created_at.iso8601_millis(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::V1;
    use crate::api::dialect::Generation;

    /// Every field name the handlers of links, payouts, refunds and recipients give an error
    /// (`D::field`), as v2 spells it.
    const NAMED_IN_ERRORS: &[&str] = &[
        "min_amount",
        "max_amount",
        "max_payments",
        "expires_at",
        "success_url",
        "error_url",
        "transaction_id",
        "collection_id",
        "number_user",
        "name_user",
        "items",
    ];

    #[test]
    fn every_field_an_error_names_has_a_v1_spelling() {
        for snake in NAMED_IN_ERRORS {
            let v1 = V1::field(snake);
            assert!(!v1.contains('_'), "v1 has no name for {snake}: {v1}");
        }
        assert_eq!(V1::field("min_amount"), "minAmount");
        assert_eq!(V1::field("number_user"), "phone");
    }
}
