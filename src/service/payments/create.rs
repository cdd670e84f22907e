//! Collections and transfers created: recorded, sent, and their answer settled through `balances`.
//!
//! Creation records the transaction `PENDING` (reserving a transfer's total) in one database
//! transaction, then calls the operator, then records the answer with its ledger entry and
//! webhook event in another. A crash in between leaves a `PENDING` transaction for the
//! reconciler, never a payment we do not know about.

use rand::Rng;

use super::send::{RefundTarget, Sent};
use super::{PaymentError, PaymentRequest, Payments};
use crate::domain::ledger;
use crate::domain::ledger::Posting;
use crate::domain::transaction::{CHECKOUT_TOKEN_LEN, REFERENCE_ALPHABET, REFERENCE_LEN};
use crate::domain::{Carrier, Customer, Kind, OperatorCode, Status, Tenant, Timestamp, Transaction, TransactionRef};
use crate::domain::{CustomerId, LinkClosed, Reference, TextId, TransactionKey, TransactionRecord};
use crate::service::{Principal, ServiceError};
use crate::store::StoreError;

/// An unguessable token for the payer's page.
fn new_checkout_token() -> String {
    let mut rng = rand::thread_rng();
    (0..CHECKOUT_TOKEN_LEN)
        .map(|_| REFERENCE_ALPHABET[rng.gen_range(0..REFERENCE_ALPHABET.len())] as char)
        .collect()
}

fn new_reference() -> Reference {
    let mut rng = rand::thread_rng();
    let text = (0..REFERENCE_LEN)
        .map(|_| REFERENCE_ALPHABET[rng.gen_range(0..REFERENCE_ALPHABET.len())] as char)
        .collect();
    Reference::from_text(text)
}

impl Payments {
    /// The token of the payer's approve/decline page: only for a BETA collection whose
    /// connector has the gateway host that page (the simulator, in the Sandbox or where
    /// Production is routed to it). A real operator's payer approves with the operator.
    fn checkout_token(&self, tenant: &Tenant, request: &PaymentRequest) -> Option<String> {
        let hosted = request.kind() == Kind::Collection
            && request.operator == OperatorCode::Beta
            && self
                .operators
                .connector(request.operator, tenant.environment)
                .hosts_payer_page();
        hosted.then(new_checkout_token)
    }

    /// Creates a collection or a transfer for `caller` and asks the operator for it. The caller's
    /// credential is checked by the `PENDING` insert's own transaction, so the caller may come
    /// from [`authenticate_rechecked`](Self::authenticate_rechecked).
    pub async fn create_payment_as(
        &self,
        caller: &Principal,
        request: PaymentRequest,
        now: Timestamp,
    ) -> Result<TransactionRecord, PaymentError> {
        let created = self
            .create(&caller.tenant, Some(&caller.credential_id), request, now)
            .await;
        if let Err(PaymentError::Service(ServiceError::Unauthorized(_))) = &created {
            self.active_credentials.forget(&caller.credential_id);
        }
        created
    }

    /// Creates a collection or a transfer for `tenant` on the word of an in-process caller,
    /// with no credential to check.
    pub async fn create_payment(
        &self,
        tenant: &Tenant,
        request: PaymentRequest,
        now: Timestamp,
    ) -> Result<TransactionRecord, PaymentError> {
        self.create(tenant, None, request, now).await
    }

    /// Creates a collection or a transfer and asks the operator for it; `credential_id`, when
    /// given, is checked with the `PENDING` insert.
    async fn create(
        &self,
        tenant: &Tenant,
        credential_id: Option<&str>,
        request: PaymentRequest,
        now: Timestamp,
    ) -> Result<TransactionRecord, PaymentError> {
        self.creatable(tenant, &request).await?;
        let first_check = now.plus(self.config.reconcile.after);
        let record = self.record(tenant, credential_id, &request, now, first_check).await?;
        let refund = request.purpose.refund_of().map(|r| RefundTarget {
            reference: &r.link.collection,
            key: &r.key,
            connector: r.connector.as_deref(),
        });
        self.send(record, request.purpose.otp_code(), refund, now, Sent::AtCreation)
            .await
    }

    /// Refuses, before anything is written, a payment this gateway cannot make: its operator
    /// disabled or unrouted here, or (when asked) its recipient's account inactive.
    pub(crate) async fn creatable(&self, tenant: &Tenant, request: &PaymentRequest) -> Result<(), PaymentError> {
        if self.config.operator_disabled(request.operator, request.kind()) {
            return Err(PaymentError::OperatorDisabled(request.operator));
        }
        if !self.operators.is_routed(request.operator, tenant.environment) {
            return Err(PaymentError::Unrouted(request.operator, tenant.environment));
        }
        let needs_code = |operator| {
            self.operators
                .chain(operator, tenant.environment)
                .iter()
                .any(|c| c.operator.needs_code(operator))
        };
        if request.kind() == Kind::Collection && request.purpose.otp_code().is_none() && needs_code(request.operator) {
            return Err(ServiceError::Invalid(format!(
                "{} collects here only with the payer's one-time code: send otpCode (v1) or code_otp (v2)",
                request.operator
            ))
            .into());
        }
        if request.purpose.checks_recipient() {
            self.check_recipient(tenant, request).await?;
        }
        Ok(())
    }

    /// Records `request` as a `PENDING` transaction, reserving a transfer's total, with its
    /// first status check at `first_check`; `credential_id`, when given, is checked with it.
    pub(crate) async fn record(
        &self,
        tenant: &Tenant,
        credential_id: Option<&str>,
        request: &PaymentRequest,
        now: Timestamp,
        first_check: Timestamp,
    ) -> Result<TransactionRecord, PaymentError> {
        let (payer, mut transaction, entry) = self.prepare(tenant, request, now);
        // A reference collision (1 in 36^10) is retried; a merchant id collision is a duplicate.
        let mut attempts = 0;
        let customer = loop {
            match self
                .store
                .insert_pending(&payer, &transaction, &entry, first_check, credential_id)
                .await
            {
                Ok(customer) => break customer,
                Err(StoreError::Conflict { .. }) => {
                    if let Some(existing) = self
                        .store
                        .transaction(tenant, &TransactionRef::from(request.transaction_id.as_str()))
                        .await?
                    {
                        if existing.transaction.transaction_id == request.transaction_id {
                            return Err(PaymentError::Duplicate(Box::new(existing)));
                        }
                    }
                    attempts += 1;
                    if attempts >= 3 {
                        return Err(StoreError::Conflict {
                            constraint: "transactions.ref".into(),
                        }
                        .into());
                    }
                    transaction.reference = new_reference();
                }
                Err(StoreError::InsufficientFunds) => return Err(PaymentError::InsufficientFunds),
                // Checked on the link as read first; this is the database settling a race.
                Err(StoreError::LinkClosed) => return Err(PaymentError::LinkClosed(LinkClosed::Exhausted)),
                // Checked by the refund's own request first; this is the database settling a race.
                Err(StoreError::NotRefundable) => {
                    return Err(PaymentError::NotRefundable(
                        "less of the collection remains to refund than this refund asks".into(),
                    ))
                }
                Err(e) => return Err(e.into()),
            }
        };
        transaction.customer_id = customer.id.clone();
        let record = TransactionRecord { transaction, customer };
        self.recorded(&record);
        Ok(record)
    }

    /// Counts and logs a payment just recorded `PENDING`.
    pub(crate) fn recorded(&self, record: &TransactionRecord) {
        self.metrics.transaction(
            record.transaction.operator.name(),
            record.transaction.kind().as_str(),
            Status::Pending.as_str(),
        );
        tracing::info!(reference = %record.transaction.reference, kind = record.transaction.kind().as_str(),
            operator = %record.transaction.operator, phone = %record.transaction.phone, "payment recorded as PENDING");
    }

    /// The connector a new payment is recorded with: its collection's for a refund, else its
    /// route's first.
    fn first_connector(&self, tenant: &Tenant, request: &PaymentRequest) -> String {
        match request.purpose.refund_of().and_then(|r| r.connector.clone()) {
            Some(collections) => collections,
            None => self
                .operators
                .first(request.operator, tenant.environment)
                .name
                .to_owned(),
        }
    }

    /// What recording `request` writes: its payer, its `PENDING` transaction, and a transfer's
    /// reservation.
    pub(crate) fn prepare(
        &self,
        tenant: &Tenant,
        request: &PaymentRequest,
        now: Timestamp,
    ) -> (Customer, Transaction, Vec<Posting>) {
        let amounts = self.fees.amounts(request.operator, request.kind(), request.amount);
        let payer = Customer {
            id: CustomerId::from_text(crate::domain::ids::new_record_id().to_string()),
            tenant: tenant.clone(),
            first_name: request.party.first_name.clone(),
            last_name: request.party.last_name.clone(),
            email: request.party.email.clone(),
            phone: request.party.phone.clone(),
            address: request.party.address.clone(),
            created_at: now,
        };
        let name = format!("{} {}", request.party.first_name, request.party.last_name)
            .trim()
            .to_owned();
        let transaction = Transaction {
            id: TransactionKey::from_text(crate::domain::ids::new_transaction_id().to_string()),
            reference: new_reference(),
            tenant: tenant.clone(),
            transaction_id: request.transaction_id.clone(),
            purpose: request.purpose.stored(self.checkout_token(tenant, request)),
            operator: request.operator,
            operator_alias: request.operator_alias.clone(),
            phone: request.phone.clone(),
            phone_as_sent: request.phone_as_sent.clone(),
            amounts,
            status: Status::Pending,
            // The stored customer's id once `insert_pending` has found or created it.
            customer_id: payer.id.clone(),
            name,
            email: request.party.email.clone(),
            failure_code: None,
            failure_reason: None,
            created_at: now,
            updated_at: None,
            carrier: Carrier {
                connector: Some(self.first_connector(tenant, request)),
                token: None,
            },
        };
        let entry = if request.kind().pays_out() {
            ledger::reserve(&amounts)
        } else {
            Vec::new()
        };
        (payer, transaction, entry)
    }

    /// `settled`, or, when someone settled `record` in between (a callback, the payer), what is
    /// stored now.
    pub(super) async fn settled_or_stored(
        &self,
        record: TransactionRecord,
        settled: Option<TransactionRecord>,
    ) -> Result<TransactionRecord, StoreError> {
        match settled {
            Some(settled) => Ok(settled),
            None => Ok(self
                .store
                .transaction_by_ref(&record.transaction.reference)
                .await?
                .unwrap_or(record)),
        }
    }
}
