-- A refund is a transaction of its own kind: `kind` accepts 'refund'.
ALTER TABLE transactions DROP CONSTRAINT transactions_kind_check;
ALTER TABLE transactions ADD CONSTRAINT transactions_kind_check CHECK (kind IN ('collecte', 'transfer', 'refund'));
