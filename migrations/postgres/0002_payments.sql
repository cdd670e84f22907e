-- Transactions with their transitions, the double-entry ledger with its balance projection,
-- the webhook outbox, and the audit of manual resolutions.

CREATE TABLE transactions (
    id               TEXT PRIMARY KEY,
    ref              TEXT NOT NULL UNIQUE,
    merchant_id      TEXT NOT NULL,
    environment      TEXT NOT NULL,
    transaction_id   TEXT NOT NULL,
    kind             TEXT NOT NULL CHECK (kind IN ('collecte', 'transfer')),
    operator         TEXT NOT NULL CHECK (operator IN ('ALPHA', 'BETA', 'GAMMA', 'DELTA')),
    phone            TEXT NOT NULL,
    phone_as_sent    TEXT NOT NULL,
    amount           BIGINT NOT NULL CHECK (amount > 0),
    fees             BIGINT NOT NULL CHECK (fees >= 0),
    amount_receive   BIGINT NOT NULL,
    amount_total     BIGINT NOT NULL,
    status           TEXT NOT NULL CHECK (status IN ('PENDING', 'SUCCESSFUL', 'FAILED')),
    customer_id      TEXT NOT NULL REFERENCES customers (id),
    name             TEXT NOT NULL,
    email            TEXT,
    failure_code     TEXT,
    failure_reason   TEXT,
    success_url      TEXT,
    error_url        TEXT,
    created_at       BIGINT NOT NULL,
    updated_at       BIGINT,
    -- The merchant's identifier is unique per merchant and environment, across kinds and
    -- generations: this constraint, not application code, settles concurrent duplicates.
    UNIQUE (merchant_id, environment, transaction_id),
    FOREIGN KEY (merchant_id, environment) REFERENCES merchant_environments (merchant_id, environment)
);

CREATE INDEX transactions_newest_first ON transactions (merchant_id, environment, created_at DESC, id DESC);
CREATE INDEX transactions_pending ON transactions (created_at, id) WHERE status = 'PENDING';

CREATE TABLE transaction_transitions (
    id             TEXT PRIMARY KEY,
    transaction_id TEXT NOT NULL REFERENCES transactions (id),
    from_status    TEXT,
    to_status      TEXT NOT NULL,
    cause          TEXT NOT NULL,
    detail         TEXT,
    at             BIGINT NOT NULL
);

CREATE INDEX transaction_transitions_by_transaction ON transaction_transitions (transaction_id, at);

CREATE TABLE ledger_postings (
    id             TEXT PRIMARY KEY,
    entry_id       TEXT NOT NULL,
    merchant_id    TEXT NOT NULL,
    environment    TEXT NOT NULL,
    transaction_id TEXT REFERENCES transactions (id),
    account        TEXT NOT NULL CHECK (account IN ('available', 'reserved', 'operator_clearing', 'fee_revenue')),
    amount         BIGINT NOT NULL,
    created_at     BIGINT NOT NULL
);

CREATE INDEX ledger_postings_by_tenant ON ledger_postings (merchant_id, environment, account);

-- The running balance, kept in step with the postings in the same database transactions.
-- The CHECKs make an overdraft impossible whatever the application does.
CREATE TABLE balances (
    merchant_id TEXT NOT NULL,
    environment TEXT NOT NULL,
    available   BIGINT NOT NULL CHECK (available >= 0),
    reserved    BIGINT NOT NULL CHECK (reserved >= 0),
    PRIMARY KEY (merchant_id, environment),
    FOREIGN KEY (merchant_id, environment) REFERENCES merchant_environments (merchant_id, environment)
);

CREATE TABLE outbox_events (
    id              TEXT PRIMARY KEY,
    merchant_id     TEXT NOT NULL,
    environment     TEXT NOT NULL,
    transaction_id  TEXT NOT NULL REFERENCES transactions (id),
    to_status       TEXT NOT NULL,
    payload         TEXT NOT NULL,
    state           TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
    attempts        BIGINT NOT NULL DEFAULT 0,
    next_attempt_at BIGINT NOT NULL,
    lease_until     BIGINT,
    last_error      TEXT,
    created_at      BIGINT NOT NULL,
    delivered_at    BIGINT,
    -- One event per transition: a transaction reaches a final state once.
    UNIQUE (transaction_id, to_status)
);

CREATE INDEX outbox_events_due ON outbox_events (next_attempt_at) WHERE state = 'pending';

CREATE TABLE admin_audit (
    id             TEXT PRIMARY KEY,
    action         TEXT NOT NULL,
    transaction_id TEXT REFERENCES transactions (id),
    detail         TEXT NOT NULL,
    at             BIGINT NOT NULL
);
