-- Webhook signing secret rotation: the secret replaced by the last rotation keeps signing
-- deliveries, beside the new one, until `previous_webhook_secret_until` (epoch ms; the overlap
-- is MOMO_WEBHOOK_SECRET_OVERLAP_S). NULL for both when the secret was never rotated.

ALTER TABLE merchant_environments ADD COLUMN previous_webhook_secret TEXT;
ALTER TABLE merchant_environments ADD COLUMN previous_webhook_secret_until BIGINT;
