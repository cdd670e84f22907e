-- A refund names the collection it gives back by its `ref` (`refund_of`), the id a merchant
-- sees; a collection keeps the sum of its
-- refunds that are not FAILED (`refunded`). Creating a refund raises that sum with a conditional
-- update in the refund's own transaction, so the database, not application code, keeps it at
-- most the collection's amount whatever runs at once (the CHECK holds it there should any
-- write forget); a refund that fails lowers it again in the transaction that settles it.
ALTER TABLE transactions ADD COLUMN refund_of TEXT REFERENCES transactions (ref);
ALTER TABLE transactions ADD COLUMN refunded BIGINT NOT NULL DEFAULT 0 CHECK (refunded >= 0 AND refunded <= amount);
CREATE INDEX transactions_refunds ON transactions (refund_of) WHERE refund_of IS NOT NULL;
