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

/// A stored record's id as text, wrapped so that one kind of id is never passed where another
/// is expected. Made by the gateway ([`new_record_id`], [`new_transaction_id`], a reference),
/// read back from storage, or parsed at the edge (a merchant's transaction id).
pub trait TextId: Sized {
    /// Wraps text known to be such an id: made by us, stored by us, or already parsed.
    fn from_text(text: String) -> Self;
    fn as_str(&self) -> &str;
}

macro_rules! text_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(String);

        impl TextId for $name {
            fn from_text(text: String) -> Self {
                $name(text)
            }
            fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl $name {
            pub fn as_str(&self) -> &str {
                &self.0
            }
            pub fn into_string(self) -> String {
                self.0
            }
        }

        impl std::ops::Deref for $name {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }

        impl PartialEq<String> for $name {
            fn eq(&self, other: &String) -> bool {
                &self.0 == other
            }
        }

        /// For ids the gateway made or stored, and for tests; a merchant's text is parsed at
        /// the edge (`api::fields`), never converted.
        impl From<&str> for $name {
            fn from(text: &str) -> Self {
                $name(text.to_owned())
            }
        }

        impl From<String> for $name {
            fn from(text: String) -> Self {
                $name(text)
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> String {
                id.0
            }
        }
    };
}

text_id!(
    /// The gateway's own id of a transaction ([`new_transaction_id`]): its key in storage, and
    /// the idempotency key the operators see.
    TransactionKey
);
text_id!(
    /// The merchant's own id of a transaction, unique per merchant and environment (v1
    /// `transactionId`, v2 `transaction_id`); parsed at the edge (`api::fields`).
    TransactionId
);
text_id!(
    /// The service reference of a transaction: 10 characters `A-Z0-9`, unique over the whole
    /// service, given to the operator.
    Reference
);
text_id!(
    /// A customer's id.
    CustomerId
);
text_id!(
    /// A merchant's identifier (a UUID, as text).
    MerchantId
);
text_id!(
    /// An API credential's id: the one a token was issued for, and a dashboard session's.
    CredentialId
);
text_id!(
    /// A webhook event's id (`msg_…`, the Standard Webhooks `webhook-id`).
    EventId
);
text_id!(
    /// A transaction as a lookup names it (a path, a search box): the merchant's transaction id
    /// or the service reference, whichever matches. Never made by the gateway, only read.
    TransactionRef
);

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
