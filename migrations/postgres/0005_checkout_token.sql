-- The payer's approve/decline page of a Sandbox BETA collection is found by an unguessable
-- token, never by the reference that merchants, webhook receivers and logs all see.

ALTER TABLE transactions ADD COLUMN checkout_token TEXT;
CREATE UNIQUE INDEX transactions_checkout_token ON transactions (checkout_token) WHERE checkout_token IS NOT NULL;
