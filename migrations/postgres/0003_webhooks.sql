-- Webhook delivery: a lease token on each outbox event, so only the dispatcher holding the
-- current lease can record an attempt's result, and the log of every attempt.

ALTER TABLE outbox_events ADD COLUMN lease_token TEXT;

CREATE INDEX outbox_events_by_tenant ON outbox_events (merchant_id, environment, created_at DESC, id DESC);

CREATE TABLE webhook_attempts (
    id          TEXT PRIMARY KEY,
    event_id    TEXT NOT NULL REFERENCES outbox_events (id),
    attempt     BIGINT NOT NULL,
    at          BIGINT NOT NULL,
    url         TEXT NOT NULL,
    status_code BIGINT,
    latency_ms  BIGINT NOT NULL,
    error       TEXT,
    response    TEXT
);

CREATE INDEX webhook_attempts_by_event ON webhook_attempts (event_id, at);
