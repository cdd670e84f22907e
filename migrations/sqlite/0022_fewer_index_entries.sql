-- Fewer index entries per payment (docs/performance.md, "What a payment costs PostgreSQL").
-- The tenant-and-account index of postings serves no query the time-ordered one does not: the
-- ledger check, which sums whole accounts, reads a tenant's postings through
-- ledger_postings_by_tenant_time. (PostgreSQL also makes the postings' and transitions'
-- primary keys lead with how they are found; SQLite would have to copy both tables to change a
-- primary key, for a database whose writer is not bound by its indexes.)
DROP INDEX ledger_postings_by_tenant;
