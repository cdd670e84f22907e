-- Fewer index entries per payment (docs/performance.md, "What a payment costs PostgreSQL").
-- Every index a row has is one more entry to write, and WAL to log, for each row version.
--
-- A posting is found by its tenant and time (statements) and never by its id alone: the
-- primary key becomes that order, and the tenant-and-account index goes (the ledger check,
-- which sums whole accounts, reads the tenant's postings through the primary key).
ALTER TABLE ledger_postings DROP CONSTRAINT ledger_postings_pkey;
ALTER TABLE ledger_postings ADD PRIMARY KEY (merchant_id, environment, created_at, id);
DROP INDEX ledger_postings_by_tenant_time;
DROP INDEX ledger_postings_by_tenant;

-- A transition is found by its transaction (its history) or by its time (the day's settlement
-- report), never by its id alone: the primary key leads with the transaction.
ALTER TABLE transaction_transitions DROP CONSTRAINT transaction_transitions_pkey;
ALTER TABLE transaction_transitions ADD PRIMARY KEY (transaction_id, id);
DROP INDEX transaction_transitions_by_transaction;

-- A delivery attempt is found by its event, never by its id alone.
ALTER TABLE webhook_attempts DROP CONSTRAINT webhook_attempts_pkey;
ALTER TABLE webhook_attempts ADD PRIMARY KEY (event_id, id);
DROP INDEX webhook_attempts_by_event;
