//! Recording a batch: each item checked, then the whole batch in one database transaction, or
//! item by item when that is refused (see the module's documentation).

use futures_util::stream::{self, StreamExt};

use super::outcome::{BatchRequest, ItemOutcome, Refusal, RefusalCode};
use super::{BatchCreated, BatchError, BatchProblem, Payouts};
use crate::domain::payout_batch::{MAX_BATCH_ITEMS, MAX_LABEL_CHARS};
use crate::domain::text::TextProblem;
use crate::domain::{BatchId, Francs, Tenant, Timestamp, TransactionRecord, TransactionRef};
use crate::service::payments::{PaymentError, PaymentRequest};
use crate::service::ServiceError;
use crate::store::{queued_check, BatchItem, BatchLimits, NewBatch, Seal, StoreError};

/// Items recorded at once when they go one by one: one, so that they take the balance in the
/// request's order. With several in flight, PostgreSQL's several writers reach the balance row
/// in any order, and a later, larger item could take what the earlier ones needed.
const CONCURRENT_RECORDS: usize = 1;

/// An item as a preview shows it.
#[derive(Debug)]
pub enum Previewed {
    /// It would be recorded and sent: the transfer, and what it takes from the balance.
    Sent {
        request: Box<PaymentRequest>,
        total: Francs,
    },
    /// It would not: refused, or a duplicate of an earlier transaction.
    Not(ItemOutcome),
}

/// An item on its way: checked and ready to record, or settled already.
pub(super) enum Step {
    Ready(Box<PaymentRequest>),
    Done(ItemOutcome),
}

/// Why the database refused a batch in one transaction.
enum WholeRefused {
    /// A transaction id was taken meanwhile.
    IdTaken,
    /// The items together would overdraw the balance.
    BalanceShort,
}

/// The refusal of a payment that could not be recorded.
pub(super) fn refusal(e: PaymentError) -> Result<ItemOutcome, ServiceError> {
    let (code, reason) = match &e {
        PaymentError::Duplicate(existing) => return Ok(ItemOutcome::Duplicate(existing.clone())),
        PaymentError::InsufficientFunds => (
            RefusalCode::InsufficientFunds,
            "its total exceeds what remains of the available balance".to_owned(),
        ),
        PaymentError::RecipientInactive(_) => (RefusalCode::RecipientInactive, e.to_string()),
        PaymentError::RecipientUnchecked(_) => (RefusalCode::RecipientUnchecked, e.to_string()),
        PaymentError::Unrouted(..) | PaymentError::OperatorDisabled(_) => {
            (RefusalCode::OperatorUnavailable, e.to_string())
        }
        PaymentError::Service(ServiceError::Unavailable(why)) => (
            RefusalCode::Unavailable,
            format!("the database did not record it, and nothing was reserved: send it again ({why})"),
        ),
        PaymentError::Service(_)
        | PaymentError::NotRefundable(_)
        | PaymentError::LinkClosed(_)
        | PaymentError::Refused(_)
        | PaymentError::OperatorUnavailable(_) => return Err(ServiceError::Internal(format!("a batch item: {e}"))),
    };
    Ok(ItemOutcome::Refused(Refusal::new(code, reason)))
}

fn refused(outcome: &ItemOutcome) -> bool {
    matches!(outcome, ItemOutcome::Refused(_))
}

impl Payouts {
    /// Records a batch of transfers for `tenant`, each item's outcome in the request's order.
    pub async fn create_batch(
        &self,
        tenant: &Tenant,
        request: BatchRequest,
        now: Timestamp,
    ) -> Result<BatchCreated, BatchError> {
        let submitted = request.items.len();
        if submitted == 0 || submitted > MAX_BATCH_ITEMS {
            return Err(BatchError::Invalid(BatchProblem::Size { submitted }));
        }
        // Checked items are checked at the operators' pace: a batch must be answered well
        // within a request's time.
        let checked = request
            .items
            .iter()
            .filter(|i| i.as_ref().is_ok_and(|r| r.purpose.checks_recipient()))
            .count();
        let config = self.payments().config();
        let most_checked = (u64::from(config.payouts.rate_per_s) * config.http.request_timeout.as_secs() / 2).max(1);
        if checked as u64 > most_checked {
            return Err(BatchError::Invalid(BatchProblem::TooManyChecks {
                most: most_checked,
                asked: checked,
            }));
        }
        if let Some(label) = &request.label {
            // A control character (NUL, ESC) would corrupt logs and exports, and PostgreSQL
            // refuses a NUL in text outright.
            let problem = if label.chars().count() > MAX_LABEL_CHARS {
                Some(TextProblem::TooLong { max: MAX_LABEL_CHARS })
            } else if label.chars().any(char::is_control) {
                Some(TextProblem::ControlCharacter)
            } else {
                None
            };
            if let Some(problem) = problem {
                return Err(BatchError::Invalid(BatchProblem::Label(problem)));
            }
        }
        let batch = NewBatch {
            id: BatchId::new(),
            tenant: tenant.clone(),
            label: request.label.clone(),
            all_or_nothing: request.all_or_nothing,
            submitted: submitted as i64,
            created_at: now,
            limits: BatchLimits {
                queued_max: i64::from(self.payments().config().payouts.queued_max),
                at_once: i64::from(self.payments().config().payouts.batches_at_once),
            },
        };
        let steps = self.check_items(tenant, &batch.id, request.items).await?;
        let steps = self.find_duplicates(tenant, steps).await?;
        // All or nothing: an item not accepted (refused, or a duplicate) refuses the batch,
        // unless it is this very batch sent again.
        if request.all_or_nothing && steps.iter().any(|s| matches!(s, Step::Done(_))) {
            if let Some(recorded) = self.recorded_before(tenant, &steps).await? {
                return Ok(recorded);
            }
            return Err(not_attempted(steps));
        }
        // Fitted to the balance as read, in the request's order, so that a batch over it is not
        // first tried whole in vain; the database checks the balance again as it records.
        let steps = if request.all_or_nothing {
            steps
        } else {
            self.fit_balance(tenant, steps, now).await?
        };
        let steps = match self.record_whole(&batch, &steps, now).await? {
            Ok(created) => return Ok(created),
            Err(_) if request.all_or_nothing => return Err(self.refuse_whole(tenant, steps).await?),
            // The balance moved since it was read: fitted again, in one transaction again.
            Err(WholeRefused::BalanceShort) => {
                let fitted = self.fit_balance(tenant, steps, now).await?;
                match self.record_whole(&batch, &fitted, now).await? {
                    Ok(created) => return Ok(created),
                    Err(_) => fitted,
                }
            }
            Err(WholeRefused::IdTaken) => steps,
        };
        self.record_each(batch, steps, now).await
    }

    /// What recording `items` would do, written nowhere: each item that would be sent, with
    /// its total (amount and fees), or its outcome when it would not be. Whether each fits the
    /// balance is said only by the recording, which reserves them in order; the dashboard's
    /// preview shows the batch's total beside the available balance.
    pub async fn preview(
        &self,
        tenant: &Tenant,
        items: Vec<Result<PaymentRequest, Refusal>>,
        now: Timestamp,
    ) -> Result<Vec<Previewed>, ServiceError> {
        let batch = BatchId::new();
        let steps = self.check_items(tenant, &batch, items).await?;
        let steps = self.find_duplicates(tenant, steps).await?;
        let payments = self.payments();
        Ok(steps
            .into_iter()
            .map(|step| match step {
                Step::Ready(request) => {
                    let total = payments.prepare(tenant, &request, now).1.amounts.amount_total;
                    Previewed::Sent { request, total }
                }
                Step::Done(outcome) => Previewed::Not(outcome),
            })
            .collect())
    }

    /// The batch in one database transaction, or why the database refused it, having written
    /// nothing.
    async fn record_whole(
        &self,
        batch: &NewBatch,
        steps: &[Step],
        now: Timestamp,
    ) -> Result<Result<BatchCreated, WholeRefused>, BatchError> {
        let payments = self.payments();
        let prepared: Vec<BatchItem> = steps
            .iter()
            .filter_map(|s| match s {
                Step::Ready(request) => Some(request),
                Step::Done(_) => None,
            })
            .map(|request| {
                let (payer, transaction, entry) = payments.prepare(&batch.tenant, request, now);
                BatchItem {
                    payer,
                    transaction,
                    entry,
                }
            })
            .collect();
        let duplicates = steps
            .iter()
            .filter(|s| matches!(s, Step::Done(ItemOutcome::Duplicate(_))))
            .count() as i64;
        let refused = (steps.len() - prepared.len()) as i64 - duplicates;
        let customers = match self
            .0
            .store
            .insert_batch_whole(batch, &prepared, seal(refused, duplicates, now))
            .await
        {
            Ok(customers) => customers,
            Err(StoreError::Conflict { .. }) => return Ok(Err(WholeRefused::IdTaken)),
            Err(StoreError::InsufficientFunds) => return Ok(Err(WholeRefused::BalanceShort)),
            Err(e) => return Err(e.into()),
        };
        let mut accepted = prepared.into_iter().zip(customers).map(|(item, customer)| {
            let mut transaction = item.transaction;
            transaction.customer_id = customer.id.clone();
            let record = TransactionRecord { transaction, customer };
            payments.recorded(&record);
            ItemOutcome::Accepted(Box::new(record))
        });
        let items = steps
            .iter()
            .map(|s| match s {
                Step::Ready(_) => accepted
                    .next()
                    .ok_or_else(|| ServiceError::Internal("a batch item went missing".into())),
                Step::Done(ItemOutcome::Refused(r)) => Ok(ItemOutcome::Refused(r.clone())),
                Step::Done(ItemOutcome::Accepted(r)) => Ok(ItemOutcome::Accepted(r.clone())),
                Step::Done(ItemOutcome::Duplicate(r)) => Ok(ItemOutcome::Duplicate(r.clone())),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let recorded = self.batch(&batch.tenant, &batch.id).await?;
        let batch = recorded.ok_or_else(|| ServiceError::Internal("a recorded batch is gone".into()))?;
        tracing::info!(batch = %batch.id, accepted = batch.accepted.count, refused = batch.refused, "payout batch recorded");
        Ok(Ok(BatchCreated { batch, items }))
    }

    /// Why an all-or-nothing batch the database refused was refused: the items whose ids were
    /// used before, else the balance, which does not cover the batch.
    async fn refuse_whole(&self, tenant: &Tenant, steps: Vec<Step>) -> Result<BatchError, ServiceError> {
        let payments = self.payments();
        let mut items = Vec::with_capacity(steps.len());
        let mut duplicates = 0;
        for step in steps {
            items.push(match step {
                Step::Ready(request) => {
                    match payments
                        .transaction(tenant, &TransactionRef::from(request.transaction_id.as_str()))
                        .await
                    {
                        Ok(existing) if existing.transaction.transaction_id == request.transaction_id => {
                            duplicates += 1;
                            ItemOutcome::Duplicate(Box::new(existing))
                        }
                        Ok(_) | Err(ServiceError::NotFound(_)) => ItemOutcome::Refused(Refusal::new(
                            RefusalCode::InsufficientFunds,
                            "the batch's total exceeds the available balance",
                        )),
                        Err(e) => return Err(e),
                    }
                }
                Step::Done(outcome) => outcome,
            });
        }
        if duplicates > 0 {
            for item in &mut items {
                if let ItemOutcome::Refused(r) = item {
                    if r.code == RefusalCode::InsufficientFunds {
                        *r = Refusal::new(RefusalCode::NotAttempted, "another item of the batch was refused");
                    }
                }
            }
        }
        let refused = items.iter().filter(|i| !matches!(i, ItemOutcome::Accepted(_))).count();
        Ok(BatchError::Refused { refused, items })
    }

    /// The batch item by item, each in the write batches like a single transfer, then sealed.
    async fn record_each(&self, batch: NewBatch, steps: Vec<Step>, now: Timestamp) -> Result<BatchCreated, BatchError> {
        self.0.store.insert_batch(&batch).await?;
        let payments = self.payments();
        let tenant = &batch.tenant;
        let items: Vec<ItemOutcome> = stream::iter(steps)
            .map(|step| async move {
                match step {
                    Step::Done(outcome) => Ok(outcome),
                    Step::Ready(request) => match payments.record(tenant, None, &request, now, queued_check()).await {
                        Ok(record) => Ok(ItemOutcome::Accepted(Box::new(record))),
                        Err(e) => refusal(e),
                    },
                }
            })
            .buffered(CONCURRENT_RECORDS)
            .collect::<Vec<_>>()
            .await
            .into_iter()
            .collect::<Result<_, ServiceError>>()?;
        let refused = items.iter().filter(|i| refused(i)).count() as i64;
        let duplicates = items.iter().filter(|i| matches!(i, ItemOutcome::Duplicate(_))).count() as i64;
        let batch = self
            .0
            .store
            .seal_batch(&batch.id, seal(refused, duplicates, now))
            .await
            .map_err(ServiceError::from)?;
        tracing::info!(batch = %batch.id, accepted = batch.accepted.count, refused, duplicates, "payout batch recorded item by item");
        Ok(BatchCreated { batch, items })
    }
}

fn seal(refused: i64, duplicates: i64, at: Timestamp) -> Seal {
    Seal {
        refused,
        duplicates,
        at,
        event_body: crate::webhook::payload::batch_body,
    }
}

/// An all-or-nothing batch with items it cannot accept: those, and the rest not attempted.
fn not_attempted(steps: Vec<Step>) -> BatchError {
    let items: Vec<ItemOutcome> = steps
        .into_iter()
        .map(|s| match s {
            Step::Done(outcome) => outcome,
            Step::Ready(_) => ItemOutcome::Refused(Refusal::new(
                RefusalCode::NotAttempted,
                "another item of the batch was refused",
            )),
        })
        .collect();
    let refused = items
        .iter()
        .filter(|i| !matches!(i, ItemOutcome::Refused(r) if r.code == RefusalCode::NotAttempted))
        .count();
    BatchError::Refused { refused, items }
}
