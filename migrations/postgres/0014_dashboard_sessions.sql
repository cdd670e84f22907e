-- The merchant dashboard (docs/dashboard.md): its sign-in sessions and the test deliveries
-- of its webhooks page.
--
-- A session stores the SHA-256 of its cookie's token, never the token. It names the credential
-- it was opened with: a session whose credential is revoked (a rotation) is refused at once.
-- `last_seen_at` moves on each use (the idle limit); `expires_at` is the absolute end.

CREATE TABLE dashboard_sessions (
    token_hash    TEXT PRIMARY KEY,
    merchant_id   TEXT NOT NULL,
    environment   TEXT NOT NULL,
    credential_id TEXT NOT NULL REFERENCES credentials (id),
    created_at    BIGINT NOT NULL,
    last_seen_at  BIGINT NOT NULL,
    expires_at    BIGINT NOT NULL,
    FOREIGN KEY (merchant_id, environment) REFERENCES merchant_environments (merchant_id, environment)
);

CREATE INDEX dashboard_sessions_by_credential ON dashboard_sessions (credential_id);

-- "Send a test event": a signed `test` delivery made at once, outside the outbox (it belongs
-- to no transaction), logged like an attempt so the webhooks page lists it.
CREATE TABLE webhook_test_deliveries (
    id          TEXT PRIMARY KEY,
    merchant_id TEXT NOT NULL,
    environment TEXT NOT NULL,
    at          BIGINT NOT NULL,
    url         TEXT NOT NULL,
    status_code BIGINT,
    latency_ms  BIGINT NOT NULL,
    error       TEXT,
    response    TEXT,
    FOREIGN KEY (merchant_id, environment) REFERENCES merchant_environments (merchant_id, environment)
);

CREATE INDEX webhook_test_deliveries_by_tenant ON webhook_test_deliveries (merchant_id, environment, at);
