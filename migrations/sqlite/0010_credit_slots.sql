-- Credits that have not been folded into their balance row yet, one row per writer slot.
--
-- A collection's credit cannot overdraw, so it need not queue on the merchant's balance row:
-- each batch writer adds its credits to its own slot row, and the writers of one merchant no
-- longer wait on each other. The available balance is the balance row plus its slots. A batch
-- that can take money out (a transfer's reservation, its settlement) locks the balance row and
-- folds the slots into it first, so a debit is checked against every committed credit and the
-- balance row alone never goes below zero. SQLite's one writer credits the balance row directly
-- and leaves this table empty.
CREATE TABLE balance_credits (
    merchant_id TEXT NOT NULL,
    environment TEXT NOT NULL,
    slot        BIGINT NOT NULL,
    amount      BIGINT NOT NULL CHECK (amount >= 0),
    PRIMARY KEY (merchant_id, environment, slot),
    FOREIGN KEY (merchant_id, environment) REFERENCES balances (merchant_id, environment)
);
