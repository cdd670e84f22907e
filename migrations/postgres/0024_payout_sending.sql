-- Sending a payout batch's transfers once, and fairly (docs/payouts.md).
--
-- `sent_at` is the mark a batch's transfer takes, with a conditional update, just before the
-- one call that first sends it to its operator: the payout sender and the reconciler both
-- take it, so only one of them ever makes that call, and neither once the transfer is final.
-- NULL for every other payment (they are sent by their own creation request).
ALTER TABLE transactions ADD COLUMN sent_at BIGINT;

-- The queue is read per tenant and operator (the sender goes round the merchants with queued
-- transfers, Production first), and a merchant's queued transfers are counted against its cap.
DROP INDEX transactions_queued;
CREATE INDEX transactions_queued ON transactions (merchant_id, environment, operator, queued_at)
    WHERE queued_at IS NOT NULL;

-- The tenants whose batches are not complete: the only ones that can have queued transfers.
CREATE INDEX payout_batches_open ON payout_batches (environment, merchant_id) WHERE completed_at IS NULL;
