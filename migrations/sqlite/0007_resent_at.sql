-- When the gateway sent a payment again because its operator never received it (a crash before
-- or during the first call): once per payment, so a conditional update settles the race.

ALTER TABLE transactions ADD COLUMN resent_at BIGINT;
