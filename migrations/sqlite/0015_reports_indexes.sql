-- Indexes for the reports (docs/reports.md). A statement page reads one tenant's postings in
-- time order from a position: with (merchant_id, environment, created_at, id) it starts there
-- and stops after its page, instead of reading and sorting the tenant's whole history. The
-- settlement report of a day starts from the transitions of that day, found by their time.

CREATE INDEX ledger_postings_by_tenant_time ON ledger_postings (merchant_id, environment, created_at, id);

CREATE INDEX transaction_transitions_by_time ON transaction_transitions (at);
