//! What a batch writer is given (`Write`), what it gives back (`Written`), and how a write
//! orders itself in its batch and locks its tenant's balance (`batch`).

use crate::domain::ledger::{self, Posting};
use crate::domain::{Customer, IdempotencyKey, KeptAnswer, Tenant, Timestamp, Transaction as Payment};
use crate::store::idempotency::{ClaimOutcome, KeyClaim};
use crate::store::Settlement;

use super::balance_locks::BalanceUse;

/// A write the batch writer runs.
#[derive(Debug)]
pub(in crate::store) enum Write {
    InsertPending {
        payer: Box<Customer>,
        transaction: Box<Payment>,
        entry: Vec<Posting>,
        first_check: Timestamp,
        /// The caller's credential, checked in the batch's transaction (`caller_check`); none
        /// for an in-process caller.
        credential_id: Option<String>,
    },
    Settle(Box<Settlement>),
    /// Keeps a key's answer, or lets the key go.
    Key(Box<KeyWrite>),
    /// Claims a key.
    Claim(Box<KeyClaim>),
}

/// An idempotency key's write: its answer kept (`answer`) or the key let go (`None`), provided
/// the claim `token` still holds it and no answer is kept.
#[derive(Debug)]
pub(in crate::store) struct KeyWrite {
    pub tenant: Tenant,
    pub key: IdempotencyKey,
    pub token: String,
    pub answer: Option<KeptAnswer>,
}

impl Write {
    pub(super) fn tenant(&self) -> &Tenant {
        match self {
            Write::InsertPending { transaction, .. } => &transaction.tenant,
            Write::Settle(s) => &s.transaction.tenant,
            Write::Key(k) => &k.tenant,
            Write::Claim(c) => &c.tenant,
        }
    }

    /// The tenant's key: a batch locks the balance rows of its tenants in this order.
    pub(super) fn tenant_key(&self) -> (&str, &str) {
        let t = self.tenant();
        (t.merchant_id.0.as_str(), t.environment.as_str())
    }

    /// The order of the items in a batch: by tenant, then payer, so that two batches lock
    /// payers' rows in one order too (a key's write, which locks only its key's row, by key).
    pub(super) fn order_key(&self) -> (&str, &str, &str, &str) {
        let (merchant, environment) = self.tenant_key();
        match self {
            Write::InsertPending { transaction: t, .. } => (merchant, environment, t.phone.as_str(), t.id.as_str()),
            Write::Settle(s) => (
                merchant,
                environment,
                s.transaction.phone.as_str(),
                s.transaction.id.as_str(),
            ),
            Write::Key(k) => (merchant, environment, "", k.key.as_str()),
            Write::Claim(c) => (merchant, environment, "", c.key.as_str()),
        }
    }

    /// What it does to the tenant's balance: nothing, or a credit, or a possible debit.
    pub(super) fn balance_use(&self) -> Option<BalanceUse> {
        let entry = match self {
            Write::InsertPending { entry, .. } => entry,
            Write::Settle(s) => &s.entry,
            Write::Key(_) | Write::Claim(_) => return None,
        };
        if ledger::may_debit(entry) {
            Some(BalanceUse::Debits)
        } else if ledger::only_credits(entry) {
            Some(BalanceUse::Credits)
        } else {
            None
        }
    }
}

/// What a write gave back.
#[derive(Debug)]
pub(in crate::store) enum Written {
    Inserted(Box<Customer>),
    Settled(bool),
    /// A key's write: `false` when the token no longer held the key, and nothing was written.
    Key(bool),
    /// A claim's outcome.
    Claim(ClaimOutcome),
}
