-- When the reconciler may next ask the operator about a pending transaction: checks back off
-- as a payment ages, so a backlog of pending payments does not hammer an operator's status API.

ALTER TABLE transactions ADD COLUMN next_check_at BIGINT;
