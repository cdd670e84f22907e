//! The webhook body: a wire type of its own, rendered from the domain. It has the shape of a v1
//! transaction with its customer (what merchants' receivers already parse), but it does not
//! borrow the API's types, so the API can change without changing what receivers get.

use serde::Serialize;

use crate::domain::{Customer, OperatorCode, PayoutBatch, Tally, TransactionRecord};

/// A transaction as the webhook body shows it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct WebhookTransaction<'a> {
    #[serde(rename = "ref")]
    reference: &'a str,
    transaction_id: &'a str,
    currency: &'static str,
    amount: String,
    fees: String,
    amount_receive: String,
    amount_total: String,
    phone: &'a str,
    status: &'static str,
    type_transaction: &'static str,
    operator: &'a str,
    created_at: String,
    customer: WebhookCustomer<'a>,
    /// A refund's collection, by its `ref`: a merchant tells a refund from a payment, and
    /// which payment it gives back, without a second call.
    #[serde(skip_serializing_if = "Option::is_none")]
    refund_of: Option<&'a str>,
    /// A refund's reason, when one was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
    /// The payment link a collection was paid through.
    #[serde(skip_serializing_if = "Option::is_none")]
    link_payment_id: Option<&'a str>,
    /// The payout batch a transfer was asked for in.
    #[serde(skip_serializing_if = "Option::is_none")]
    payout_batch_id: Option<&'a str>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct WebhookCustomer<'a> {
    id: &'a str,
    last_name: &'a str,
    first_name: &'a str,
    email: Option<&'a str>,
    phone_number: &'a str,
    address: WebhookAddress<'a>,
    created_at: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct WebhookAddress<'a> {
    country_code: &'a str,
    city: Option<&'a str>,
    street_address: Option<&'a str>,
}

impl<'a> From<&'a Customer> for WebhookCustomer<'a> {
    fn from(c: &'a Customer) -> Self {
        WebhookCustomer {
            id: &c.id,
            last_name: &c.last_name,
            first_name: &c.first_name,
            email: c.email.as_deref(),
            phone_number: c.phone.as_str(),
            address: WebhookAddress {
                country_code: &c.address.country_code,
                city: c.address.city.as_deref(),
                street_address: c.address.street_address.as_deref(),
            },
            created_at: c.created_at.iso8601_millis(),
        }
    }
}

impl<'a> From<&'a TransactionRecord> for WebhookTransaction<'a> {
    fn from(r: &'a TransactionRecord) -> Self {
        let t = &r.transaction;
        WebhookTransaction {
            reference: &t.reference,
            transaction_id: &t.transaction_id,
            currency: "XOF",
            amount: t.amounts.amount.to_string(),
            fees: t.amounts.fees.to_string(),
            amount_receive: t.amounts.amount_receive.to_string(),
            amount_total: t.amounts.amount_total.to_string(),
            phone: t.phone.as_str(),
            status: t.status.as_str(),
            type_transaction: t.kind().as_str(),
            operator: t.operator_code(OperatorCode::v1_code),
            created_at: t.created_at.iso8601_millis(),
            customer: WebhookCustomer::from(&r.customer),
            refund_of: t.purpose.refund_of().map(|r| r.collection.as_str()),
            reason: t.purpose.refund_reason(),
            link_payment_id: t.purpose.link().map(|l| l.as_str()),
            payout_batch_id: t.purpose.batch().map(|b| b.as_str()),
        }
    }
}

/// The JSON body delivered for a transaction, frozen when its event is written so every
/// attempt sends the same bytes.
pub fn body(record: &TransactionRecord) -> String {
    serde_json::to_string(&WebhookTransaction::from(record)).unwrap_or_else(|_| "{}".to_owned())
}

/// The JSON body delivered when a payout batch completes: the batch as `GET
/// /v1/payout-batches/{id}` shows it, marked with `"object": "payout_batch"` so a receiver tells
/// it from a transaction's.
pub fn batch_body(batch: &PayoutBatch) -> String {
    serde_json::to_string(&WebhookBatch::from(batch)).unwrap_or_else(|_| "{}".to_owned())
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct WebhookBatch<'a> {
    object: &'static str,
    payout_batch_id: &'a str,
    status: &'static str,
    label: Option<&'a str>,
    submitted: u64,
    refused: u64,
    duplicates: u64,
    accepted: WebhookTally,
    successful: WebhookTally,
    failed: WebhookTally,
    created_at: String,
    completed_at: Option<String>,
}

#[derive(Debug, Serialize)]
struct WebhookTally {
    count: u64,
    amount: String,
}

impl From<Tally> for WebhookTally {
    fn from(t: Tally) -> Self {
        WebhookTally {
            count: t.count,
            amount: t.amount.to_string(),
        }
    }
}

impl<'a> From<&'a PayoutBatch> for WebhookBatch<'a> {
    fn from(b: &'a PayoutBatch) -> Self {
        WebhookBatch {
            object: "payout_batch",
            payout_batch_id: b.id.as_str(),
            status: b.status().as_str(),
            label: b.label.as_deref(),
            submitted: b.submitted,
            refused: b.refused,
            duplicates: b.duplicates,
            accepted: b.accepted.into(),
            successful: b.successful.into(),
            failed: b.failed.into(),
            created_at: b.created_at.iso8601_millis(),
            completed_at: b.completed_at.map(|t| t.iso8601_millis()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Purpose;
    use crate::domain::{
        Address, Amounts, Environment, MerchantId, Msisdn, OperatorCode, RefundLink, RefundReason, Status, Tenant,
        Timestamp, Transaction,
    };

    /// Receivers parse these bytes: any change to them is a breaking change for merchants.
    #[test]
    fn the_body_is_pinned_byte_for_byte() {
        assert_eq!(
            body(&collection()),
            r#"{"ref":"ABCDEFGHIJ","transactionId":"order-1001","currency":"XOF","amount":"1500","fees":"30","amountReceive":"1470","amountTotal":"1500","phone":"0701020302","status":"SUCCESSFUL","typeTransaction":"collecte","operator":"ALPHA_MONEY_CI","createdAt":"2023-11-14T22:13:21.000Z","customer":{"id":"c-1","lastName":"Koné","firstName":"Awa","email":"awa@example.ci","phoneNumber":"0701020302","address":{"countryCode":"CI","city":"Abidjan","streetAddress":null},"createdAt":"2023-11-14T22:13:20.000Z"}}"#
        );
    }

    /// A refund's body adds its collection and its reason, at the end.
    #[test]
    fn a_refunds_body_names_its_collection_and_its_reason() {
        let mut record = collection();
        let t = &mut record.transaction;
        t.reference = "KLMNOPQRST".into();
        t.transaction_id = "refund-1".into();
        t.amounts = Amounts {
            amount: crate::domain::Francs(500),
            fees: crate::domain::Francs(0),
            amount_receive: crate::domain::Francs(500),
            amount_total: crate::domain::Francs(500),
        };
        t.purpose = Purpose::Refund(RefundLink {
            collection: "ABCDEFGHIJ".into(),
            reason: Some(RefundReason::parse("Colis abîmé").unwrap()),
        });
        assert_eq!(
            body(&record),
            r#"{"ref":"KLMNOPQRST","transactionId":"refund-1","currency":"XOF","amount":"500","fees":"0","amountReceive":"500","amountTotal":"500","phone":"0701020302","status":"SUCCESSFUL","typeTransaction":"refund","operator":"ALPHA_MONEY_CI","createdAt":"2023-11-14T22:13:21.000Z","customer":{"id":"c-1","lastName":"Koné","firstName":"Awa","email":"awa@example.ci","phoneNumber":"0701020302","address":{"countryCode":"CI","city":"Abidjan","streetAddress":null},"createdAt":"2023-11-14T22:13:20.000Z"},"refundOf":"ABCDEFGHIJ","reason":"Colis abîmé"}"#
        );
    }

    fn collection() -> TransactionRecord {
        let tenant = Tenant {
            merchant_id: MerchantId::from("m-1"),
            environment: Environment::Sandbox,
        };
        let phone = Msisdn::parse("0701020302").unwrap();
        let customer = Customer {
            id: "c-1".into(),
            tenant: tenant.clone(),
            first_name: "Awa".into(),
            last_name: "Koné".into(),
            email: Some("awa@example.ci".into()),
            phone: phone.clone(),
            address: Address::parse("CI", Some("Abidjan"), None).unwrap(),
            created_at: Timestamp(1_700_000_000_000),
        };
        TransactionRecord {
            transaction: Transaction {
                id: "t-1".into(),
                reference: "ABCDEFGHIJ".into(),
                tenant,
                transaction_id: "order-1001".into(),
                purpose: Purpose::Collection(Default::default()),
                operator: OperatorCode::Alpha,
                operator_alias: None,
                phone,
                phone_as_sent: "0701020302".into(),
                amounts: Amounts {
                    amount: crate::domain::Francs(1500),
                    fees: crate::domain::Francs(30),
                    amount_receive: crate::domain::Francs(1470),
                    amount_total: crate::domain::Francs(1500),
                },
                status: Status::Successful,
                customer_id: "c-1".into(),
                name: "Awa Koné".into(),
                email: Some("awa@example.ci".into()),
                failure_code: None,
                failure_reason: None,
                created_at: Timestamp(1_700_000_001_000),
                updated_at: Some(Timestamp(1_700_000_003_000)),
                carrier: Default::default(),
            },
            customer,
        }
    }
}
