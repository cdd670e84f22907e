//! The rows of a multi-row statement, given the way each database takes many rows best.
//!
//! SQLite takes them as `VALUES (?, …), (?, …)`, one parameter a value. PostgreSQL takes the
//! rows of an `INSERT` as `SELECT * FROM UNNEST($1::text[], $2::bigint[], …)`, one array a
//! column: the statement's text is then the same whatever the number of rows, so each
//! connection parses it once and soon keeps one plan of it. With `VALUES`, every batch size
//! was a statement of its own, and the few hundred texts of the batch writers did not fit
//! sqlx's cache of prepared statements (100 a connection): PostgreSQL parsed and planned them
//! again and again (docs/performance.md, Where the time goes).
//!
//! Rows that a statement joins to a table (`UPDATE … FROM (rows)`) stay `VALUES` on both
//! ([`RowValues::joined`]): a plan of `UNNEST` does not know how many rows come, and with a
//! guess of 10 PostgreSQL chose to read every `PENDING` transaction through a partial index
//! and hash-join the batch's rows against them, instead of looking each row up by key. Their
//! rows are padded with rows of `NULL`s to the next power of two, which no key equals: eight
//! texts for batches of 1 to 128, where the plan still knows the number of rows within a
//! factor of two.
//!
//! A statement names its columns with their types in one list ([`Columns`]), builds its rows
//! value by value in that order (`text`, `int`), and takes its text from
//! [`RowValues::insert_into`] or [`RowValues::as_v`]; no other part of the statement may take a
//! parameter.

use sqlx::query::Query;
use sqlx::Database;

use super::SqlDb;
use crate::store::StoreError;

/// The type of a column's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ColumnType {
    Text,
    Int,
}

/// A statement's columns: each one's name and type, in the order a row gives its values.
pub(super) type Columns = [(&'static str, ColumnType)];

/// The names of `columns` as an SQL list: `a, b, c`.
pub(super) fn column_names(columns: &Columns) -> String {
    let names: Vec<&str> = columns.iter().map(|(name, _)| *name).collect();
    names.join(", ")
}

/// One column's values.
pub(in crate::store) enum ColumnValues {
    Text(Vec<Option<String>>),
    Int(Vec<Option<i64>>),
}

impl ColumnValues {
    fn len(&self) -> usize {
        match self {
            ColumnValues::Text(values) => values.len(),
            ColumnValues::Int(values) => values.len(),
        }
    }

    /// Rows of `NULL` up to `rows` rows.
    fn pad(&mut self, rows: usize) {
        match self {
            ColumnValues::Text(values) => values.resize(rows, None),
            ColumnValues::Int(values) => values.resize(rows, None),
        }
    }
}

/// What a statement does with its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Use {
    /// Inserts them: arrays on PostgreSQL.
    Insert,
    /// Joins them to a table by key: padded `VALUES` on both.
    Join,
}

/// Rows of values, kept column by column.
pub(super) struct RowValues {
    names: &'static Columns,
    columns: Vec<ColumnValues>,
    /// The column the next value goes to.
    next: usize,
    /// A value was given to a column of the other type (or to no column): a mistake in the
    /// statement's code, refused when the rows are bound rather than written to the wrong column.
    mismatched: bool,
    used: Use,
}

impl RowValues {
    /// Room for `rows` rows of `columns`, for an `INSERT`.
    pub fn new(columns: &'static Columns, rows: usize) -> RowValues {
        RowValues::with_use(columns, rows, Use::Insert)
    }

    /// Room for `rows` rows of `columns`, which the statement joins to a table by a key
    /// column: `VALUES`, whose number of rows the database's plan knows, padded with rows of
    /// `NULL`s (see the module's documentation).
    pub fn joined(columns: &'static Columns, rows: usize) -> RowValues {
        RowValues::with_use(columns, rows, Use::Join)
    }

    fn with_use(names: &'static Columns, rows: usize, used: Use) -> RowValues {
        RowValues {
            names,
            columns: names
                .iter()
                .map(|(_, t)| match t {
                    ColumnType::Text => ColumnValues::Text(Vec::with_capacity(rows)),
                    ColumnType::Int => ColumnValues::Int(Vec::with_capacity(rows)),
                })
                .collect(),
            next: 0,
            mismatched: false,
            used,
        }
    }

    /// The next value, of a text column.
    pub fn text<'v>(&mut self, value: impl Into<Option<&'v str>>) -> &mut RowValues {
        self.push_text(value.into().map(str::to_owned))
    }

    /// The next value, of a text column, already owned.
    pub fn string(&mut self, value: String) -> &mut RowValues {
        self.push_text(Some(value))
    }

    fn push_text(&mut self, value: Option<String>) -> &mut RowValues {
        match self.columns.get_mut(self.next) {
            Some(ColumnValues::Text(values)) => values.push(value),
            Some(ColumnValues::Int(values)) => {
                values.push(None);
                self.mismatched = true;
            }
            None => self.mismatched = true,
        }
        self.advance()
    }

    /// The next value, of an integer column.
    pub fn int(&mut self, value: impl Into<Option<i64>>) -> &mut RowValues {
        match self.columns.get_mut(self.next) {
            Some(ColumnValues::Int(values)) => values.push(value.into()),
            Some(ColumnValues::Text(values)) => {
                values.push(None);
                self.mismatched = true;
            }
            None => self.mismatched = true,
        }
        self.advance()
    }

    fn advance(&mut self) -> &mut RowValues {
        self.next = (self.next + 1) % self.columns.len().max(1);
        self
    }

    /// `INSERT INTO {table} (columns) {rows} {rest}`: the statement inserting the rows, with
    /// `rest` (an `ON CONFLICT`, a `RETURNING`; no parameter) after them.
    pub fn insert_into<DB: SqlDb>(&self, table: &str, rest: &str) -> String {
        format!("INSERT INTO {table} ({}) {} {rest}", self.names(), self.source::<DB>())
    }

    /// `WITH v(columns) AS ({rows})`: the rows as the table `v`, for a statement to join.
    pub fn as_v<DB: SqlDb>(&self) -> String {
        format!("WITH v({}) AS ({})", self.names(), self.source::<DB>())
    }

    fn names(&self) -> String {
        column_names(self.names)
    }

    /// How many whole rows were given.
    pub fn len(&self) -> usize {
        self.columns.last().map_or(0, ColumnValues::len)
    }

    /// How many rows the statement gets: the joined rows' padding included.
    fn rows(&self) -> usize {
        match self.used {
            Use::Insert => self.len(),
            Use::Join => self.len().next_power_of_two(),
        }
    }

    /// The rows as a statement's source of rows, in `DB`'s form.
    fn source<DB: SqlDb>(&self) -> String {
        if self.as_arrays::<DB>() {
            let arrays: Vec<String> = self
                .columns
                .iter()
                .enumerate()
                .map(|(i, values)| match values {
                    ColumnValues::Text(_) => format!("${}::text[]", i + 1),
                    ColumnValues::Int(_) => format!("${}::bigint[]", i + 1),
                })
                .collect();
            format!("SELECT * FROM UNNEST({})", arrays.join(", "))
        } else {
            format!("VALUES {}", super::placeholders::<DB>(self.rows(), self.columns.len()))
        }
    }

    /// Binds the rows to `query`, whose text came from `insert_into` or `as_v`: the rows are its
    /// only parameters.
    pub fn bind<'q, DB: SqlDb>(
        mut self,
        query: Query<'q, DB, <DB as Database>::Arguments<'q>>,
    ) -> Result<Query<'q, DB, <DB as Database>::Arguments<'q>>, StoreError> {
        if self.mismatched || self.next != 0 {
            return Err(StoreError::Corrupt(
                "a multi-row statement was given values that do not fit its columns".into(),
            ));
        }
        let (rows, arrays) = (self.rows(), self.as_arrays::<DB>());
        for column in &mut self.columns {
            column.pad(rows);
        }
        Ok(DB::bind_rows(query, self.columns, arrays))
    }

    fn as_arrays<DB: SqlDb>(&self) -> bool {
        self.used == Use::Insert && DB::ARRAYS
    }
}

/// `VALUES`: each value its own parameter, row after row.
pub(super) fn bind_row_major<'q, DB: SqlDb>(
    mut query: Query<'q, DB, <DB as Database>::Arguments<'q>>,
    columns: Vec<ColumnValues>,
) -> Query<'q, DB, <DB as Database>::Arguments<'q>> {
    let rows = columns.first().map_or(0, ColumnValues::len);
    let mut columns: Vec<ColumnIter> = columns
        .into_iter()
        .map(|c| match c {
            ColumnValues::Text(v) => ColumnIter::Text(v.into_iter()),
            ColumnValues::Int(v) => ColumnIter::Int(v.into_iter()),
        })
        .collect();
    for _ in 0..rows {
        for column in &mut columns {
            query = match column {
                ColumnIter::Text(values) => DB::bind_string(query, values.next().flatten()),
                ColumnIter::Int(values) => DB::bind_int(query, values.next().flatten()),
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
    columns: Vec<ColumnValues>,
) -> Query<'q, sqlx::Postgres, <sqlx::Postgres as Database>::Arguments<'q>> {
    for column in columns {
        query = match column {
            ColumnValues::Text(values) => query.bind(values),
            ColumnValues::Int(values) => query.bind(values),
        };
    }
    query
}

#[cfg(test)]
mod tests {
    use super::{ColumnType, Columns, RowValues};

    const THREE: &Columns = &[("a", ColumnType::Text), ("b", ColumnType::Int), ("c", ColumnType::Text)];
    const TWO: &Columns = &[("a", ColumnType::Text), ("b", ColumnType::Int)];

    fn two_rows() -> RowValues {
        let mut rows = RowValues::new(THREE, 2);
        rows.text("a").int(1).text(None);
        rows.text("b").int(None).text("c");
        rows
    }

    #[test]
    fn postgres_takes_one_array_a_column_whatever_the_rows() {
        let rows = two_rows();
        assert_eq!(rows.len(), 2);
        assert_eq!(
            rows.insert_into::<sqlx::Sqlite>("t", "RETURNING a"),
            "INSERT INTO t (a, b, c) VALUES (?, ?, ?), (?, ?, ?) RETURNING a"
        );
        let source = "SELECT * FROM UNNEST($1::text[], $2::bigint[], $3::text[])";
        assert_eq!(rows.source::<sqlx::Postgres>(), source);
        let mut one = RowValues::new(THREE, 1);
        one.text("a").int(1).text("b");
        assert_eq!(one.source::<sqlx::Postgres>(), source);
    }

    #[test]
    fn sqlite_takes_one_parameter_a_value() {
        assert_eq!(two_rows().source::<sqlx::Sqlite>(), "VALUES (?, ?, ?), (?, ?, ?)");
    }

    #[test]
    fn joined_rows_are_values_on_both_padded_to_a_power_of_two() {
        let mut rows = RowValues::joined(TWO, 2);
        rows.text("a").int(1).text("b").int(2);
        assert_eq!(
            rows.as_v::<sqlx::Postgres>(),
            "WITH v(a, b) AS (VALUES ($1, $2), ($3, $4))"
        );
        assert_eq!(rows.source::<sqlx::Sqlite>(), "VALUES (?, ?), (?, ?)");
        rows.text("c").int(3);
        assert_eq!(rows.len(), 3);
        assert_eq!(rows.source::<sqlx::Sqlite>(), "VALUES (?, ?), (?, ?), (?, ?), (?, ?)");
        let mut five = RowValues::joined(&[("a", ColumnType::Text)], 5);
        for id in ["a", "b", "c", "d", "e"] {
            five.text(id);
        }
        assert_eq!(five.source::<sqlx::Postgres>().matches('$').count(), 8);
    }

    #[test]
    fn values_that_do_not_fit_their_columns_are_refused() {
        let mut wrong_type = RowValues::new(TWO, 1);
        wrong_type.text("a").text("b");
        assert!(wrong_type.bind(sqlx::query::<sqlx::Postgres>("")).is_err());
        let mut half_a_row = RowValues::new(TWO, 1);
        half_a_row.text("a");
        assert!(half_a_row.bind(sqlx::query::<sqlx::Sqlite>("")).is_err());
        let mut no_columns = RowValues::new(&[], 1);
        no_columns.text("a").int(1);
        assert!(no_columns.bind(sqlx::query::<sqlx::Postgres>("")).is_err());
        assert!(two_rows().bind(sqlx::query::<sqlx::Sqlite>("")).is_ok());
    }
}
