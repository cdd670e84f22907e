-- Payout batches (docs/payouts.md): many transfers asked for in one request.
--
-- Each accepted item is an ordinary transfer (`transactions.batch_id`), recorded PENDING with
-- its reservation like any other, but queued (`queued_at`) rather than sent at once: the payout
-- sender claims the queued items of each operator at that operator's pace, clearing `queued_at`
-- and setting the first status check in the same statement, then asks the operator. A queued
-- item's first check is far in the future, so the reconciler leaves it alone until it is sent.
--
-- The batch's counts move with its items in their own database transactions: recording an item
-- raises `accepted`, `open` and `accepted_amount`; settling one lowers `open` and counts it in
-- `successful` or `failed`. `sealed_at` is set once the request has recorded every item; the
-- write that finds the batch sealed with nothing open completes it (`completed_at`) and writes
-- the batch's webhook event, so concurrent settlements complete a batch exactly once (each
-- update waits for the previous one's row lock).

CREATE TABLE payout_batches (
    id                TEXT PRIMARY KEY,
    merchant_id       TEXT NOT NULL,
    environment       TEXT NOT NULL,
    label             TEXT,
    all_or_nothing    BIGINT NOT NULL DEFAULT 0,
    submitted         BIGINT NOT NULL,
    refused           BIGINT NOT NULL DEFAULT 0,
    duplicates        BIGINT NOT NULL DEFAULT 0,
    accepted          BIGINT NOT NULL DEFAULT 0,
    accepted_amount   BIGINT NOT NULL DEFAULT 0,
    open              BIGINT NOT NULL DEFAULT 0 CHECK (open >= 0),
    successful        BIGINT NOT NULL DEFAULT 0,
    successful_amount BIGINT NOT NULL DEFAULT 0,
    failed            BIGINT NOT NULL DEFAULT 0,
    failed_amount     BIGINT NOT NULL DEFAULT 0,
    created_at        BIGINT NOT NULL,
    sealed_at         BIGINT,
    completed_at      BIGINT,
    FOREIGN KEY (merchant_id, environment) REFERENCES merchant_environments (merchant_id, environment)
);

CREATE INDEX payout_batches_by_tenant ON payout_batches (merchant_id, environment, created_at);

-- The batch a transfer belongs to; NULL for every other payment.
ALTER TABLE transactions ADD COLUMN batch_id TEXT REFERENCES payout_batches (id);
-- When a batch's transfer was queued; NULL once the sender has claimed it (or for any other payment).
ALTER TABLE transactions ADD COLUMN queued_at BIGINT;

CREATE INDEX transactions_by_batch ON transactions (batch_id, created_at) WHERE batch_id IS NOT NULL;
CREATE INDEX transactions_queued ON transactions (operator, queued_at) WHERE queued_at IS NOT NULL;
