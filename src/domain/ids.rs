//! Ids of stored records (transactions, customers, transitions, ledger entries and postings,
//! webhook events and attempts).

/// A new record id: a UUID of version 7, whose first 48 bits are the time in milliseconds, so
/// that ids made together sort together, as text too. Each insert then lands at the right
/// edge of its table's id index rather than on a random page of it: a batch of payments
/// dirties a few pages instead of one per row (fewer WAL pages on SQLite's one writer, less
/// B-tree work on PostgreSQL). Its 74 random bits keep an id unguessable. Secrets, tokens and
/// claims stay version 4: nothing there is indexed by time, and nothing of them should say when.
pub fn new_record_id() -> uuid::Uuid {
    uuid::Uuid::now_v7()
}

/// A new transaction id: time-ordered like [`new_record_id`], for the same reason (the
/// transactions table and the tables keyed by its id are the hottest the gateway writes), but
/// written in the form of a UUID of version 4. The MoMo connector sends the id as the
/// `X-Reference-Id`, which MTN checks is a UUID v4, and Wave's connector as its idempotency
/// key: one id serves as our key and as the operator's, so a resend after a crash is the same
/// payment. Its bits are those of a v7 (48 bits of milliseconds, then 74 random bits) with the
/// version nibble set to 4; an operator reads nothing from an id's bits but its form, and the
/// 74 random bits keep it unique and unguessable.
pub fn new_transaction_id() -> uuid::Uuid {
    uuid::Builder::from_bytes(*uuid::Uuid::now_v7().as_bytes())
        .with_version(uuid::Version::Random)
        .into_uuid()
}

#[cfg(test)]
mod tests {
    #[test]
    fn transaction_ids_are_version_4_in_form_and_sort_in_the_order_they_were_made() {
        let ids: Vec<uuid::Uuid> = (0..1000).map(|_| super::new_transaction_id()).collect();
        for id in &ids {
            assert_eq!(id.get_version(), Some(uuid::Version::Random), "{id}");
            assert_eq!(id.get_variant(), uuid::Variant::RFC4122, "{id}");
        }
        let text: Vec<String> = ids.iter().map(ToString::to_string).collect();
        let mut sorted = text.clone();
        sorted.sort();
        assert_eq!(text, sorted);
        sorted.dedup();
        assert_eq!(sorted.len(), ids.len());
    }

    #[test]
    fn ids_made_one_after_another_sort_in_that_order_as_text() {
        let ids: Vec<String> = (0..1000).map(|_| super::new_record_id().to_string()).collect();
        let mut sorted = ids.clone();
        sorted.sort();
        assert_eq!(ids, sorted);
    }
}
