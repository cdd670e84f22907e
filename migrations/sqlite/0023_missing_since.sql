-- When the gateway first found a pending payment missing at its operator (a status lookup that
-- knew nothing of it), or sent it again for that reason. Set once, by a conditional update: it
-- allows one resend, and "not received" becomes final only once no send of ours begun before
-- it can still reach the operator (docs/operators.md).

ALTER TABLE transactions RENAME COLUMN resent_at TO missing_since;
