//! What each kind of payment stores and does beyond the row every transaction has, one file a
//! kind: the columns only it fills (written at its creation, read back into its
//! [`Purpose`]), what its creation holds (a refund its collection's amount, a link's payment a
//! place on the link, a payout batch's transfer its batch's counts) and what its settlement
//! moves there. The writers, the transaction row and its reads call them through the lists
//! `every_kind!` makes, so a new kind of payment is a file here and a line in that list.

mod collection;
mod refund;
mod transfer;

use std::future::Future;
use std::sync::LazyLock;

use sqlx::{Row, Transaction};

use super::row_values::{ColumnType, Columns, RowValues};
use super::SqlDb;
use crate::domain::{Kind, Purpose, Transaction as Payment};
use crate::store::{Settlement, StoreError};

/// A kind of payment's own columns and steps.
trait KindSteps {
    /// The name its rows are stored under (`transactions.kind`).
    const STORED: &'static str;

    /// The columns only this kind fills at its creation, in [`KindSteps::insert_row`] order.
    const INSERTED: &'static Columns;

    /// The columns only this kind fills, its creation's and any it fills later, as a read of a
    /// transaction selects them (`t.` the transaction).
    const SELECTED: &'static str;

    /// `t`'s values of [`KindSteps::INSERTED`]: its own, or none when `t` is of another kind.
    fn insert_row(values: &mut RowValues, t: &Payment);

    /// The purpose of a row of this kind.
    fn purpose<R: Row<Database: SqlDb>>(row: &R) -> Result<Purpose, StoreError>;

    /// What creating `created` (a batch's creations, of every kind) holds for this kind's, or
    /// the error that fails the set (the caller rolls back).
    fn hold<DB: SqlDb>(
        tx: &mut Transaction<'_, DB>,
        created: &[&Payment],
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// What settling `done` (a batch's settlements that moved their payment, of every kind)
    /// moves for this kind's.
    fn settle<DB: SqlDb>(
        tx: &mut Transaction<'_, DB>,
        done: &[&Settlement],
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
}

/// Every kind, by its variant of [`Kind`]: a kind left out of the list is a compile error of
/// the matches below.
macro_rules! every_kind {
    ($($variant:ident => $kind:ty),+ $(,)?) => {
        /// The name `kind` is stored under.
        pub(in crate::store) fn stored_name(kind: Kind) -> &'static str {
            match kind {
                $(Kind::$variant => <$kind>::STORED,)+
            }
        }

        /// The kind stored as `stored`.
        pub(in crate::store) fn parse_stored(stored: &str) -> Result<Kind, StoreError> {
            $(if stored == <$kind>::STORED {
                return Ok(Kind::$variant);
            })+
            Err(StoreError::Corrupt(format!("unknown kind {stored:?}")))
        }

        /// Every kind's own columns after `common`, as a creation inserts them.
        pub(super) fn inserted_columns(common: &Columns) -> Vec<(&'static str, ColumnType)> {
            let mut columns = common.to_vec();
            $(columns.extend_from_slice(<$kind>::INSERTED);)+
            columns
        }

        /// Every kind's own columns, as a read selects them.
        pub(in crate::store) static SELECTED: LazyLock<String> =
            LazyLock::new(|| [$(<$kind>::SELECTED),+].join(", "));

        /// `t`'s values of every kind's own columns, in [`inserted_columns`] order.
        pub(super) fn insert_row(values: &mut RowValues, t: &Payment) {
            $(<$kind>::insert_row(values, t);)+
        }

        /// The purpose of a row of kind `kind`.
        pub(in crate::store) fn purpose<R: Row<Database: SqlDb>>(row: &R, kind: Kind) -> Result<Purpose, StoreError> {
            match kind {
                $(Kind::$variant => <$kind>::purpose(row),)+
            }
        }

        /// What creating `created` holds, kind by kind in this order (the row locks of two
        /// batches are taken in one order).
        pub(super) async fn hold<DB: SqlDb>(tx: &mut Transaction<'_, DB>, created: &[&Payment]) -> Result<(), StoreError> {
            $(<$kind>::hold(tx, created).await?;)+
            Ok(())
        }

        /// What settling `done` moves, kind by kind in the same order.
        pub(super) async fn settle<DB: SqlDb>(tx: &mut Transaction<'_, DB>, done: &[&Settlement]) -> Result<(), StoreError> {
            $(<$kind>::settle(tx, done).await?;)+
            Ok(())
        }
    };
}

every_kind!(
    Refund => refund::Refund,
    Collection => collection::Collection,
    Transfer => transfer::Transfer,
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_round_trips_through_its_stored_name() {
        for kind in Kind::ALL {
            assert_eq!(parse_stored(stored_name(kind)).unwrap(), kind);
        }
        assert!(parse_stored("transfert").is_err(), "a wire name is not a stored name");
    }
}
