-- The operator's own page where the payer approves a collection (Wave's `wave_launch_url`),
-- shown to the merchant as `betaLaunchUrl` / `redirectUrl` instead of a page of ours.

ALTER TABLE transactions ADD COLUMN launch_url TEXT;
