-- Merchants, their environments and credentials, customers, and server settings.
-- Times are Unix epoch milliseconds (BIGINT) in both schemas; money is BIGINT francs.

CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE merchants (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE TABLE merchant_environments (
    merchant_id         TEXT NOT NULL REFERENCES merchants (id),
    environment         TEXT NOT NULL CHECK (environment IN ('Production', 'Sandbox')),
    webhook_url         TEXT,
    webhook_secret      TEXT NOT NULL,
    webhook_disabled_at BIGINT,
    PRIMARY KEY (merchant_id, environment)
);

CREATE TABLE credentials (
    id          TEXT PRIMARY KEY,
    merchant_id TEXT NOT NULL,
    environment TEXT NOT NULL,
    api_key     TEXT NOT NULL UNIQUE,
    secret_hash TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    revoked_at  BIGINT,
    FOREIGN KEY (merchant_id, environment) REFERENCES merchant_environments (merchant_id, environment)
);

-- At most one active credential per merchant environment: rotation revokes, then inserts.
CREATE UNIQUE INDEX credentials_one_active ON credentials (merchant_id, environment) WHERE revoked_at IS NULL;

CREATE TABLE customers (
    id             TEXT PRIMARY KEY,
    merchant_id    TEXT NOT NULL,
    environment    TEXT NOT NULL,
    first_name     TEXT NOT NULL,
    last_name      TEXT NOT NULL,
    email          TEXT,
    phone          TEXT NOT NULL,
    country_code   TEXT NOT NULL,
    city           TEXT,
    street_address TEXT,
    -- Set on the one record that payments embedding this phone number find and update.
    payer_phone    TEXT,
    created_at     BIGINT NOT NULL,
    FOREIGN KEY (merchant_id, environment) REFERENCES merchant_environments (merchant_id, environment)
);

CREATE INDEX customers_newest_first ON customers (merchant_id, environment, created_at DESC, id DESC);
CREATE UNIQUE INDEX customers_one_per_payer_phone ON customers (merchant_id, environment, payer_phone);
