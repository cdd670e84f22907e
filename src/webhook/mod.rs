//! Webhook delivery to merchants: transactional outbox, Standard Webhooks signatures, retries.
//! Filled in by the webhook work (issue 4); nothing here is used yet.
