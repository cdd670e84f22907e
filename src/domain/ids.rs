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

#[cfg(test)]
mod tests {
    #[test]
    fn ids_made_one_after_another_sort_in_that_order_as_text() {
        let ids: Vec<String> = (0..1000).map(|_| super::new_record_id().to_string()).collect();
        let mut sorted = ids.clone();
        sorted.sort();
        assert_eq!(ids, sorted);
    }
}
