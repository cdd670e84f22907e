-- Which connector carries a payment, and the id that connector's protocol handed out for it.
--
-- `connector` is written before a payment is sent through a route that names more than one
-- connector (a fallback), or with `operator_token`; NULL means the route's only connector.
-- `operator_token` is the payment's id at a protocol that hands one out before any money moves
-- (PayDunya's invoice and disbursement tokens): written before the call that moves money, so a
-- payment without one was never sent there.
ALTER TABLE transactions ADD COLUMN connector TEXT;
ALTER TABLE transactions ADD COLUMN operator_token TEXT;
