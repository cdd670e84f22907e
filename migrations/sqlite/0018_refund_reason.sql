-- Why a refund was made, in the merchant's words (at most 255 characters, no control
-- characters: checked where it is parsed). Null for every other kind, and for a refund made
-- without one.
ALTER TABLE transactions ADD COLUMN refund_reason TEXT;
