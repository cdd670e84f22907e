//! The rows of a multi-row statement, given the way each database takes many rows best.
//!
//! SQLite takes them as `VALUES (?, …), (?, …)`, one parameter a value. PostgreSQL takes the
//! rows of an `INSERT` as `SELECT * FROM UNNEST($1::text[], $2::bigint[], …)`, one array a
//! column: the statement's text is then the same whatever the number of rows, so each
//! connection parses it once and soon keeps one plan of it. With `VALUES`, every batch size
//! was a statement of its own, and the few hundred texts of the batch writers did not fit
//! sqlx's cache of prepared statements (100 a connection): PostgreSQL parsed and planned them
//! again and again, a tenth of its CPU during scenario c (docs/performance.md, ninth session).
//!
//! Rows that a statement joins to a table (`UPDATE … FROM (rows)`) stay `VALUES` on both
//! ([`RowValues::joined`]): a plan of `UNNEST` does not know how many rows come, and with a
//! guess of 10 PostgreSQL chose to read every `PENDING` transaction through a partial index
//! and hash-join the batch's rows against them, instead of looking each row up by its key.
//!
//! A statement builds its rows column by column in one order (`text`, `int`), and
//! [`RowValues::source`] gives the `VALUES` or `SELECT` to put after `INSERT INTO t (…)` or in
//! `WITH v(…) AS (…)`; no other part of the statement may take a parameter.

use sqlx::query::Query;
use sqlx::{Database, Encode, Type};

use super::SqlDb;
use crate::store::StoreError;

/// The type of a column's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Text,
    Int,
}

/// One column's values.
pub(in crate::store) enum Column {
    Text(Vec<Option<String>>),
    Int(Vec<Option<i64>>),
}

/// Rows of values, kept column by column.
pub(super) struct RowValues {
    columns: Vec<Column>,
    /// The column the next value goes to.
    next: usize,
    /// A value was given to a column of the other type: a mistake in the statement's code,
    /// refused when the rows are bound rather than written to the wrong column.
    mismatched: bool,
    /// Whether PostgreSQL takes them as arrays (`UNNEST`) rather than `VALUES`.
    arrays: bool,
}

impl RowValues {
    /// Room for `rows` rows of columns of `kinds`, for an `INSERT`.
    pub fn new(kinds: &[Kind], rows: usize) -> RowValues {
        RowValues {
            arrays: true,
            ..RowValues::joined(kinds, rows)
        }
    }

    /// Room for `rows` rows of columns of `kinds`, which the statement joins to a table: always
    /// `VALUES`, whose number of rows the database's plan knows.
    pub fn joined(kinds: &[Kind], rows: usize) -> RowValues {
        RowValues {
            columns: kinds
                .iter()
                .map(|kind| match kind {
                    Kind::Text => Column::Text(Vec::with_capacity(rows)),
                    Kind::Int => Column::Int(Vec::with_capacity(rows)),
                })
                .collect(),
            next: 0,
            mismatched: false,
            arrays: false,
        }
    }

    /// The next value, of a text column.
    pub fn text<'v>(&mut self, value: impl Into<Option<&'v str>>) -> &mut RowValues {
        let value = value.into().map(str::to_owned);
        match &mut self.columns[self.next] {
            Column::Text(values) => values.push(value),
            Column::Int(values) => {
                values.push(None);
                self.mismatched = true;
            }
        }
        self.advance()
    }

    /// The next value, of a text column, already owned.
    pub fn string(&mut self, value: String) -> &mut RowValues {
        match &mut self.columns[self.next] {
            Column::Text(values) => values.push(Some(value)),
            Column::Int(values) => {
                values.push(None);
                self.mismatched = true;
            }
        }
        self.advance()
    }

    /// The next value, of an integer column.
    pub fn int(&mut self, value: impl Into<Option<i64>>) -> &mut RowValues {
        let value = value.into();
        match &mut self.columns[self.next] {
            Column::Int(values) => values.push(value),
            Column::Text(values) => {
                values.push(None);
                self.mismatched = true;
            }
        }
        self.advance()
    }

    fn advance(&mut self) -> &mut RowValues {
        self.next = (self.next + 1) % self.columns.len();
        self
    }

    /// How many whole rows were given.
    pub fn len(&self) -> usize {
        match self.columns.last() {
            Some(Column::Text(values)) => values.len(),
            Some(Column::Int(values)) => values.len(),
            None => 0,
        }
    }

    /// The rows as a statement's source of rows, in `DB`'s form.
    pub fn source<DB: SqlDb>(&self) -> String {
        if self.as_arrays::<DB>() {
            let arrays: Vec<String> = self
                .columns
                .iter()
                .enumerate()
                .map(|(i, values)| match values {
                    Column::Text(_) => format!("${}::text[]", i + 1),
                    Column::Int(_) => format!("${}::bigint[]", i + 1),
                })
                .collect();
            format!("SELECT * FROM UNNEST({})", arrays.join(", "))
        } else {
            format!("VALUES {}", super::placeholders::<DB>(self.len(), self.columns.len()))
        }
    }

    /// Binds the rows to `query`, whose text has [`RowValues::source`] as its only parameters.
    pub fn bind<'q, DB: SqlDb>(
        self,
        query: Query<'q, DB, <DB as Database>::Arguments<'q>>,
    ) -> Result<Query<'q, DB, <DB as Database>::Arguments<'q>>, StoreError> {
        if self.mismatched || self.next != 0 {
            return Err(StoreError::Corrupt(
                "a multi-row statement was given values that do not fit its columns".into(),
            ));
        }
        let arrays = self.as_arrays::<DB>();
        Ok(DB::bind_rows(query, self.columns, arrays))
    }

    fn as_arrays<DB: SqlDb>(&self) -> bool {
        self.arrays && DB::NAME == <sqlx::Postgres as Database>::NAME
    }
}

/// `VALUES`: each value its own parameter, row after row.
pub(super) fn bind_row_major<'q, DB>(
    mut query: Query<'q, DB, <DB as Database>::Arguments<'q>>,
    columns: Vec<Column>,
) -> Query<'q, DB, <DB as Database>::Arguments<'q>>
where
    DB: Database,
    Option<String>: Encode<'q, DB> + Type<DB>,
    Option<i64>: Encode<'q, DB> + Type<DB>,
{
    let rows = columns.first().map_or(0, |c| match c {
        Column::Text(v) => v.len(),
        Column::Int(v) => v.len(),
    });
    let mut columns: Vec<ColumnIter> = columns
        .into_iter()
        .map(|c| match c {
            Column::Text(v) => ColumnIter::Text(v.into_iter()),
            Column::Int(v) => ColumnIter::Int(v.into_iter()),
        })
        .collect();
    for _ in 0..rows {
        for column in &mut columns {
            query = match column {
                ColumnIter::Text(values) => query.bind(values.next().flatten()),
                ColumnIter::Int(values) => query.bind(values.next().flatten()),
            };
        }
    }
    query
}

enum ColumnIter {
    Text(std::vec::IntoIter<Option<String>>),
    Int(std::vec::IntoIter<Option<i64>>),
}

/// PostgreSQL's `UNNEST`: each column one array parameter.
pub(super) fn bind_columns<'q>(
    mut query: Query<'q, sqlx::Postgres, <sqlx::Postgres as Database>::Arguments<'q>>,
    columns: Vec<Column>,
) -> Query<'q, sqlx::Postgres, <sqlx::Postgres as Database>::Arguments<'q>> {
    for column in columns {
        query = match column {
            Column::Text(values) => query.bind(values),
            Column::Int(values) => query.bind(values),
        };
    }
    query
}

#[cfg(test)]
mod tests {
    use super::{Kind, RowValues};

    fn two_rows() -> RowValues {
        let mut rows = RowValues::new(&[Kind::Text, Kind::Int, Kind::Text], 2);
        rows.text("a").int(1).text(None);
        rows.text("b").int(None).text("c");
        rows
    }

    #[test]
    fn postgres_takes_one_array_a_column_whatever_the_rows() {
        let rows = two_rows();
        assert_eq!(rows.len(), 2);
        let source = "SELECT * FROM UNNEST($1::text[], $2::bigint[], $3::text[])";
        assert_eq!(rows.source::<sqlx::Postgres>(), source);
        let mut one = RowValues::new(&[Kind::Text, Kind::Int, Kind::Text], 1);
        one.text("a").int(1).text("b");
        assert_eq!(one.source::<sqlx::Postgres>(), source);
    }

    #[test]
    fn sqlite_takes_one_parameter_a_value() {
        assert_eq!(two_rows().source::<sqlx::Sqlite>(), "VALUES (?, ?, ?), (?, ?, ?)");
    }

    #[test]
    fn joined_rows_are_values_on_both() {
        let mut rows = RowValues::joined(&[Kind::Text, Kind::Int], 2);
        rows.text("a").int(1).text("b").int(2);
        assert_eq!(rows.source::<sqlx::Postgres>(), "VALUES ($1, $2), ($3, $4)");
        assert_eq!(rows.source::<sqlx::Sqlite>(), "VALUES (?, ?), (?, ?)");
    }

    #[test]
    fn values_that_do_not_fit_their_columns_are_refused() {
        let mut wrong_type = RowValues::new(&[Kind::Text, Kind::Int], 1);
        wrong_type.text("a").text("b");
        assert!(wrong_type.bind(sqlx::query::<sqlx::Postgres>("")).is_err());
        let mut half_a_row = RowValues::new(&[Kind::Text, Kind::Int], 1);
        half_a_row.text("a");
        assert!(half_a_row.bind(sqlx::query::<sqlx::Sqlite>("")).is_err());
        assert!(two_rows().bind(sqlx::query::<sqlx::Sqlite>("")).is_ok());
    }
}
