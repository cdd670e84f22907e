//! The domain: pure types and rules, with no knowledge of HTTP, SQL or JSON.
//!
//! Every value here is built by parsing, so an invalid phone number, name or environment
//! cannot exist past the edge of the program.

pub mod amount;
pub mod customer;
pub mod dashboard;
pub mod environment;
pub mod event;
pub mod fees;
pub mod idempotency;
pub mod ids;
pub mod ledger;
pub mod link;
pub mod merchant;
pub mod money;
pub mod msisdn;
pub mod operator;
pub mod operator_aliases;
pub mod page;
pub mod payout_batch;
pub mod purpose;
pub mod recipient;
pub mod record;
pub mod refund;
pub mod settlement;
pub mod statement;
pub mod text;
pub mod time;
pub mod transaction;

pub use amount::Amount;
pub use customer::{Address, Customer, Email, NewCustomer, PersonName};
pub use dashboard::{Activity, DashboardSession, NewDashboardSession, RecentAttempt, Transition, WebhookEndpoint};
pub use environment::{Environment, Tenant};
pub use event::{Attempt, EventFilter, EventState, EventSummary, FailedEvents};
pub use fees::{Amounts, FeeSchedule};
pub use idempotency::{IdempotencyKey, KeptAnswer, KeyHolder};
pub use ids::{CredentialId, CustomerId, EventId, Reference, TextId, TransactionId, TransactionKey, TransactionRef};
pub use ledger::Balance;
pub use link::{LinkAmount, LinkClosed, LinkId, LinkProblem, LinkTerms, PaymentLink};
pub use merchant::{Credential, MerchantId, MerchantSummary};
pub use money::Francs;
pub use msisdn::Msisdn;
pub use operator::OperatorCode;
pub use operator_aliases::{NamedOperator, OperatorAliases};
pub use page::{Cursor, PageRequest, Paged};
pub use payout_batch::{BatchId, BatchStatus, PayoutBatch, Tally};
pub use purpose::{Kind, Purpose, ReturnUrls};
pub use recipient::{LookupOutcome, RecipientLookup};
pub use record::{TransactionFilter, TransactionRecord};
pub use refund::{RefundLink, RefundReason};
pub use settlement::{Day, ReportScope, SettlementReport, SettlementRow, SettlementTotals};
pub use statement::{LedgerPosting, Position, PostingPage, StatementFilter, StatementLine};
pub use time::Timestamp;
pub use transaction::{Carrier, Cause, FailureCode, Outcome, Status, Transaction};
