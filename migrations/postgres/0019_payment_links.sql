-- Payment links (docs/payment-links.md): a merchant's page where a payer pays a collection.
--
-- `held` counts the link's payments that are not FAILED (pending or successful), and is what
-- `max_payments` limits: a payment from the link raises it with one conditional update in the
-- payment's own database transaction, which finds no row when the link is deactivated, expired
-- or full, so twenty payers of a single-payment link at once record one payment. A payment
-- that fails lowers it again; one that succeeds counts in `paid` and `collected`.
-- A fixed link has `amount`; an open one `min_amount` and `max_amount`. `operators` is the
-- comma-separated list of the operators it accepts.

CREATE TABLE payment_links (
    id             TEXT PRIMARY KEY,
    merchant_id    TEXT NOT NULL,
    environment    TEXT NOT NULL,
    amount         BIGINT,
    min_amount     BIGINT,
    max_amount     BIGINT,
    description    TEXT NOT NULL,
    max_payments   BIGINT CHECK (max_payments IS NULL OR max_payments >= 1),
    expires_at     BIGINT,
    operators      TEXT NOT NULL,
    success_url    TEXT,
    error_url      TEXT,
    deactivated_at BIGINT,
    created_at     BIGINT NOT NULL,
    held           BIGINT NOT NULL DEFAULT 0 CHECK (held >= 0),
    paid           BIGINT NOT NULL DEFAULT 0,
    collected      BIGINT NOT NULL DEFAULT 0,
    CHECK (max_payments IS NULL OR held <= max_payments),
    FOREIGN KEY (merchant_id, environment) REFERENCES merchant_environments (merchant_id, environment)
);

CREATE INDEX payment_links_by_tenant ON payment_links (merchant_id, environment, created_at);

-- The link a collection was paid through; NULL for every other payment.
ALTER TABLE transactions ADD COLUMN link_id TEXT REFERENCES payment_links (id);

CREATE INDEX transactions_by_link ON transactions (link_id, created_at) WHERE link_id IS NOT NULL;
