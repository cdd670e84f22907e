//! `transactions refund`: gives back part or all of a merchant's `SUCCESSFUL` collection, for
//! the operator's staff (a payer who called support, a merchant without a developer). It goes
//! through the refunds' use case (`Payments::refund`: the checks and the creation of the API's
//! `refund_as`, with no merchant credential to check), so it is refused, reserved, sent and
//! settled exactly as a refund made through the API, webhook included.

use clap::Args;
use serde_json::json;

use super::merchant::Target;
use crate::domain::refund::new_refund_id;
use crate::domain::text::checked_text;
use crate::domain::{Amount, RefundReason, TextId, Timestamp, TransactionId, TransactionRecord, TransactionRef};
use crate::i18n::{refusals, Lang};
use crate::service::payments::refunds::RefundError;
use crate::service::payments::refunds::RefundRequest;
use crate::service::{Payments, ServiceError};

/// The longest transaction id, as the v1 API takes them.
const MAX_TRANSACTION_ID: usize = 64;

#[derive(Debug, Args)]
pub struct RefundArgs {
    #[command(flatten)]
    pub target: Target,
    /// The collection: its service reference (`ref`, 10 characters) or the merchant's
    /// transaction id.
    #[arg(long, value_name = "REF")]
    pub id: String,
    /// Whole francs to give back; all that remains of the collection when absent.
    #[arg(long, value_name = "N", value_parser = parse_amount)]
    pub amount: Option<Amount>,
    /// Why: kept with the refund and shown to the merchant (at most 255 characters).
    #[arg(long, value_name = "TEXT", value_parser = parse_reason)]
    pub reason: RefundReason,
    /// The refund's own transaction id, unique per merchant and environment; a new one when
    /// absent. A second run with the same id refunds nothing and names the first refund.
    #[arg(long, value_name = "ID", value_parser = parse_transaction_id)]
    pub transaction_id: Option<TransactionId>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

fn parse_amount(raw: &str) -> Result<Amount, String> {
    Amount::parse_text(raw).map_err(|e| e.to_string())
}

fn parse_reason(raw: &str) -> Result<RefundReason, String> {
    RefundReason::parse(raw).map_err(|e| e.to_string())
}

fn parse_transaction_id(raw: &str) -> Result<TransactionId, String> {
    checked_text(raw, MAX_TRANSACTION_ID)
        .map(TransactionId::from_text)
        .map_err(|e| e.to_string())
}

/// Makes the refund; a refusal, or a refund the operator failed at once, is an error that
/// says what happened and what was recorded.
pub(super) async fn execute(
    args: RefundArgs,
    payments: &Payments,
    now: Timestamp,
) -> anyhow::Result<TransactionRecord> {
    let tenant = args.target.tenant();
    let request = RefundRequest {
        transaction_id: args.transaction_id.unwrap_or_else(new_refund_id),
        collection: TransactionRef::from(args.id.as_str()),
        amount: args.amount,
        reason: Some(args.reason),
    };
    payments
        .refund(&tenant, request, now)
        .await
        .map_err(|e| match Lang::from_env() {
            Lang::En => anyhow::anyhow!("refund refused: {}", refusal(&e, &args.id, &args.target)),
            Lang::Fr => anyhow::anyhow!("remboursement refusé : {}", refusal_fr(&e, &args.id, &args.target)),
        })
}

/// What a refusal prints: the cause, and that nothing was given back.
fn refusal(e: &RefundError, collection: &str, target: &Target) -> String {
    match e {
        RefundError::Service(ServiceError::NotFound(_)) => format!(
            "no collection {collection} for merchant {} ({}); nothing was recorded",
            target.merchant,
            target.env.as_str()
        ),
        RefundError::NotRefundable(why) => format!("{why}; nothing was recorded"),
        RefundError::InsufficientFunds => {
            "the available balance does not cover the refund and its fee; nothing was recorded".to_owned()
        }
        RefundError::Duplicate(existing) => format!(
            "transaction id {} is already {}; nothing more was recorded",
            existing.transaction.transaction_id,
            recorded(existing)
        ),
        RefundError::Refused(failed) | RefundError::OperatorUnavailable(failed) => {
            let t = &failed.transaction;
            let why = t.failure_reason.clone().unwrap_or_else(|| e.to_string());
            format!(
                "refund {} ({}) is FAILED: {why}; its reservation is released",
                t.reference, t.transaction_id
            )
        }
        RefundError::Unrouted(..) | RefundError::OperatorDisabled(_) | RefundError::Service(_) => {
            format!("{e}; nothing was recorded")
        }
    }
}

/// A transaction already recorded, as a refusal names it: `REF (kind STATUS)`.
fn recorded(existing: &TransactionRecord) -> String {
    let t = &existing.transaction;
    format!("{} ({} {})", t.reference, t.kind().as_str(), t.status.as_str())
}

/// [`refusal`] in French.
fn refusal_fr(e: &RefundError, collection: &str, target: &Target) -> String {
    let nothing = "rien n’a été enregistré";
    match e {
        RefundError::Service(ServiceError::NotFound(_)) => format!(
            "aucune collecte {collection} pour le marchand {} ({}) ; {nothing}",
            target.merchant,
            target.env.as_str()
        ),
        RefundError::NotRefundable(_) => {
            format!("seule une collecte réussie peut être remboursée, et pour au plus ce qu’il en reste ; {nothing}")
        }
        RefundError::InsufficientFunds => {
            format!("le solde disponible ne couvre pas le remboursement et ses frais ; {nothing}")
        }
        RefundError::Duplicate(existing) => format!(
            "l’identifiant de transaction {} est déjà {} ; rien de plus n’a été enregistré",
            existing.transaction.transaction_id,
            recorded(existing)
        ),
        RefundError::Refused(failed) | RefundError::OperatorUnavailable(failed) => {
            let t = &failed.transaction;
            format!(
                "le remboursement {} ({}) a échoué : {} ; sa réservation est libérée",
                t.reference,
                t.transaction_id,
                refusals::failure(Lang::Fr, t.failure_code, t.failure_reason.as_deref())
            )
        }
        RefundError::Unrouted(..) | RefundError::OperatorDisabled(_) => {
            format!("l’opérateur de cette collecte ne rembourse pas ici ; {nothing}")
        }
        RefundError::Service(e) => format!("{} ; {nothing}", refusals::service(Lang::Fr, e)),
    }
}

/// The refund as JSON: keys sorted (serde_json without `preserve_order`).
pub(super) fn refund_json(r: &TransactionRecord) -> serde_json::Value {
    let t = &r.transaction;
    let link = t.purpose.refund_of();
    json!({
        "ref": t.reference.as_str(),
        "transactionId": t.transaction_id.as_str(),
        "refundOf": link.map(|l| l.collection.as_str()),
        "status": t.status.as_str(),
        "amount": t.amounts.amount.to_string(),
        "fees": t.amounts.fees.to_string(),
        "reason": link.and_then(|l| l.reason.as_ref()).map(|r| r.as_str()),
        "createdAt": t.created_at.iso8601_millis(),
    })
}

/// The refund as one line of text.
pub(super) fn refund_text(r: &TransactionRecord) -> String {
    let t = &r.transaction;
    let collection = t.purpose.refund_of().map_or("?", |l| l.collection.as_str());
    format!(
        "refund {} (transaction id {}) of collection {collection}: {} XOF, {}",
        t.reference,
        t.transaction_id,
        t.amounts.amount,
        t.status.as_str()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Purpose;
    use crate::domain::{
        Address, Amounts, Customer, Environment, MerchantId, Msisdn, OperatorCode, RefundLink, Status, Tenant,
        Transaction,
    };

    fn refund(status: Status) -> TransactionRecord {
        let tenant = Tenant {
            merchant_id: MerchantId::from("m-1"),
            environment: Environment::Sandbox,
        };
        let phone = Msisdn::parse("0701020301").unwrap();
        TransactionRecord {
            transaction: Transaction {
                id: "t-1".into(),
                reference: "KLMNOPQRST".into(),
                tenant: tenant.clone(),
                transaction_id: "refund-1".into(),
                purpose: Purpose::Refund(RefundLink {
                    collection: "ABCDEFGHIJ".into(),
                    reason: Some(RefundReason::parse("Colis abîmé").unwrap()),
                }),
                operator: OperatorCode::Alpha,
                operator_alias: None,
                phone: phone.clone(),
                phone_as_sent: "0701020301".into(),
                amounts: Amounts {
                    amount: crate::domain::Francs(4000),
                    fees: crate::domain::Francs(0),
                    amount_receive: crate::domain::Francs(4000),
                    amount_total: crate::domain::Francs(4000),
                },
                status,
                customer_id: "c-1".into(),
                name: "Awa Koné".into(),
                email: None,
                failure_code: None,
                failure_reason: None,
                created_at: Timestamp(1_700_000_001_000),
                updated_at: None,
                carrier: Default::default(),
            },
            customer: Customer {
                id: "c-1".into(),
                tenant,
                first_name: "Awa".into(),
                last_name: "Koné".into(),
                email: None,
                phone,
                address: Address::parse("CI", None, None).unwrap(),
                created_at: Timestamp(1_700_000_000_000),
            },
        }
    }

    #[test]
    fn a_refund_prints_its_ref_id_collection_amount_and_status() {
        assert_eq!(
            refund_text(&refund(Status::Successful)),
            "refund KLMNOPQRST (transaction id refund-1) of collection ABCDEFGHIJ: 4000 XOF, SUCCESSFUL"
        );
        assert_eq!(
            serde_json::to_string(&refund_json(&refund(Status::Pending))).unwrap(),
            r#"{"amount":"4000","createdAt":"2023-11-14T22:13:21.000Z","fees":"0","reason":"Colis abîmé","ref":"KLMNOPQRST","refundOf":"ABCDEFGHIJ","status":"PENDING","transactionId":"refund-1"}"#
        );
    }

    #[test]
    fn the_refusals_say_why_and_what_was_recorded() {
        let target = Target {
            merchant: "m-1".into(),
            env: Environment::Sandbox,
        };
        let said = |e: RefundError| refusal(&e, "order-1", &target);
        assert_eq!(
            said(RefundError::Service(ServiceError::NotFound("collection"))),
            "no collection order-1 for merchant m-1 (Sandbox); nothing was recorded"
        );
        assert_eq!(
            said(RefundError::NotRefundable("6000 francs remain".into())),
            "6000 francs remain; nothing was recorded"
        );
        let mut failed = refund(Status::Failed);
        failed.transaction.failure_reason = Some("the operator refused the refund".into());
        assert_eq!(
            said(RefundError::Refused(Box::new(failed))),
            "refund KLMNOPQRST (refund-1) is FAILED: the operator refused the refund; its reservation is released"
        );
    }
}
