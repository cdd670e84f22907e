-- Batches whose request never sealed them (the process died, or the request was cut short,
-- while it recorded the items one by one): the sweep in `reconcile::abandoned_batches` finds
-- them by age and seals them, so they complete once their recorded transfers are final.
CREATE INDEX payout_batches_unsealed ON payout_batches (created_at) WHERE sealed_at IS NULL;
