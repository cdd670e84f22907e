-- Which reconciler pass claimed a pending transaction's status check: claims are leased
-- (`next_check_at` moves to the lease's end), so several processes never ask about the same
-- payment at once.

ALTER TABLE transactions ADD COLUMN check_token TEXT;
CREATE INDEX transactions_check_token ON transactions (check_token) WHERE check_token IS NOT NULL;
