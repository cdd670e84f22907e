-- The recipient check as the sensitive call it is (docs/payouts.md, "The recipient check").
--
-- Whether a merchant environment may ask it: NULL is the environment's default (on in
-- Sandbox, off in Production), 1 or 0 what an administrator or the merchant set.
ALTER TABLE merchant_environments ADD COLUMN recipient_check BIGINT;

-- Each lookup asked of an operator, for the merchant to list: the number only as its keyed
-- hash, what the operator said, and whether a name given to confirm matched.
CREATE TABLE recipient_lookups (
    id           TEXT PRIMARY KEY,
    merchant_id  TEXT NOT NULL,
    environment  TEXT NOT NULL,
    operator     TEXT NOT NULL,
    phone_hash   TEXT NOT NULL,
    outcome      TEXT NOT NULL,
    name_matched BIGINT,
    asked_at     BIGINT NOT NULL,
    FOREIGN KEY (merchant_id, environment) REFERENCES merchant_environments (merchant_id, environment)
);
CREATE INDEX recipient_lookups_by_tenant ON recipient_lookups (merchant_id, environment, asked_at);

-- Each merchant environment's lookups of a UTC day, counted by a conditional upsert that never
-- passes the daily quota, whichever process asks.
CREATE TABLE recipient_check_days (
    merchant_id TEXT NOT NULL,
    environment TEXT NOT NULL,
    day         BIGINT NOT NULL,
    used        BIGINT NOT NULL,
    PRIMARY KEY (merchant_id, environment, day)
);
