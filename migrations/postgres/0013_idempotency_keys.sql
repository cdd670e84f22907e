-- Idempotency keys: the `Idempotency-Key` of a merchant's POST, scoped to its merchant and
-- environment. A request claims its key by inserting the row (the primary key settles
-- concurrent claims); `claim_token` proves the claim, so only its holder records the answer or
-- lets the key go; until `locked_until` the key is in flight, after it (a crashed process) a
-- retry may take it over. `fingerprint` is a SHA-256 of the method, path and body; the answer
-- (`response_status`, `response_body`) is NULL while in flight. Rows are purged once
-- `expires_at` (MOMO_IDEMPOTENCY_KEY_TTL_S after the claim) has passed. No foreign key: the
-- rows are short-lived and a check on every claim buys nothing. Times are epoch ms.

CREATE TABLE idempotency_keys (
    merchant_id     TEXT NOT NULL,
    environment     TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    fingerprint     TEXT NOT NULL,
    claim_token     TEXT NOT NULL,
    locked_until    BIGINT NOT NULL,
    response_status BIGINT,
    response_body   TEXT,
    created_at      BIGINT NOT NULL,
    expires_at      BIGINT NOT NULL,
    PRIMARY KEY (merchant_id, environment, idempotency_key)
);

CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
