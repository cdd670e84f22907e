-- Due status checks in one index range, whatever the backlog: every pending transaction has
-- its next check time (set at creation to its first check), and a claim reads the pending rows
-- whose `next_check_at` has passed, in that order, instead of filtering every pending row.

UPDATE transactions SET next_check_at = created_at WHERE status = 'PENDING' AND next_check_at IS NULL;
CREATE INDEX transactions_due ON transactions (next_check_at) WHERE status = 'PENDING';
