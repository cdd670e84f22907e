-- The deployment's alias of the operator a merchant sent (MOMO_OPERATOR_ALIASES, say
-- `ORANGE_MONEY_CI` for ALPHA), given back as the transaction's operator code in answers,
-- lookups, lists and webhooks. NULL when a reference code was sent: each generation then shows
-- its own code.

ALTER TABLE transactions ADD COLUMN operator_alias TEXT;
