//! What the shared SQL needs of a sqlx driver, said once: [`SqlDb`].
//!
//! Rust does not carry a trait's `where` clauses over to its users, so bounds such as "a
//! connection of this driver executes queries" or "`&str` binds as text" would have to be
//! repeated by every generic function that runs a statement. Instead the driver's own impl,
//! concrete where those bounds are known, does the executing ([`SqlDb::on`], [`SqlDb::pool`]),
//! the binding ([`Args::arg`], through [`Arg`]) and the reading ([`Get::col`], through [`Col`]),
//! and generic code names `DB: SqlDb` and nothing else. The trait is sealed: one impl per
//! driver, SQLite and PostgreSQL.

use sqlx::query::Query;
use sqlx::{Database, Executor, IntoArguments, Pool, Row};

use super::row_values::{self, ColumnValues};
use crate::domain::TextId;

/// A statement of driver `DB` with its arguments so far.
pub(in crate::store) type Statement<'q, DB> = Query<'q, DB, <DB as Database>::Arguments<'q>>;

mod sealed {
    pub trait Sealed {}
    impl Sealed for sqlx::Sqlite {}
    impl Sealed for sqlx::Postgres {}
}

/// A sqlx driver as the shared SQL uses it: SQLite or PostgreSQL.
pub(in crate::store) trait SqlDb:
    Database<QueryResult: RowsAffected> + for<'q> Database<Arguments<'q>: IntoArguments<'q, Self>> + sealed::Sealed
{
    /// Whether the driver takes an `INSERT`'s rows as one array a column (`row_values`).
    const ARRAYS: bool;

    /// A connection (or a transaction, `&mut **tx`) to run statements on.
    fn on(conn: &mut Self::Connection) -> impl Executor<'_, Database = Self>;

    /// A pool to run statements on, each on a connection it lends for the statement.
    fn pool(pool: &Pool<Self>) -> impl Executor<'_, Database = Self>;

    /// Binds text, `NULL` for `None`.
    fn bind_text<'q>(query: Statement<'q, Self>, value: Option<&'q str>) -> Statement<'q, Self>;

    /// Binds owned text, `NULL` for `None`.
    fn bind_string<'q>(query: Statement<'q, Self>, value: Option<String>) -> Statement<'q, Self>;

    /// Binds a 64-bit integer, `NULL` for `None`.
    fn bind_int<'q>(query: Statement<'q, Self>, value: Option<i64>) -> Statement<'q, Self>;

    /// Binds the rows of a multi-row statement (`row_values`): as one array a column when
    /// `arrays` (only ever with `ARRAYS`), else as one parameter a value.
    fn bind_rows<'q>(query: Statement<'q, Self>, columns: Vec<ColumnValues>, arrays: bool) -> Statement<'q, Self>;

    /// Reads a text column (`NULL` as `None`).
    fn text(row: &Self::Row, column: &str) -> Result<Option<String>, sqlx::Error>;

    /// Reads an integer column (`NULL` as `None`).
    fn int(row: &Self::Row, column: &str) -> Result<Option<i64>, sqlx::Error>;

    /// Reads a boolean column (`NULL` as `None`).
    fn flag(row: &Self::Row, column: &str) -> Result<Option<bool>, sqlx::Error>;
}

/// The two drivers' impls are the same text with the driver's types: a macro writes both,
/// as the bounds they rely on hold for each concrete driver.
macro_rules! sql_db {
    ($db:ty, arrays: $arrays:expr, bind_rows: $bind_rows:expr) => {
        impl SqlDb for $db {
            const ARRAYS: bool = $arrays;

            fn on(conn: &mut Self::Connection) -> impl Executor<'_, Database = Self> {
                conn
            }

            fn pool(pool: &Pool<Self>) -> impl Executor<'_, Database = Self> {
                pool
            }

            fn bind_text<'q>(query: Statement<'q, Self>, value: Option<&'q str>) -> Statement<'q, Self> {
                query.bind(value)
            }

            fn bind_string<'q>(query: Statement<'q, Self>, value: Option<String>) -> Statement<'q, Self> {
                query.bind(value)
            }

            fn bind_int<'q>(query: Statement<'q, Self>, value: Option<i64>) -> Statement<'q, Self> {
                query.bind(value)
            }

            fn bind_rows<'q>(
                query: Statement<'q, Self>,
                columns: Vec<ColumnValues>,
                arrays: bool,
            ) -> Statement<'q, Self> {
                let bind: fn(Statement<'q, Self>, Vec<ColumnValues>, bool) -> Statement<'q, Self> = $bind_rows;
                bind(query, columns, arrays)
            }

            fn text(row: &Self::Row, column: &str) -> Result<Option<String>, sqlx::Error> {
                row.try_get(column)
            }

            fn int(row: &Self::Row, column: &str) -> Result<Option<i64>, sqlx::Error> {
                row.try_get(column)
            }

            fn flag(row: &Self::Row, column: &str) -> Result<Option<bool>, sqlx::Error> {
                row.try_get(column)
            }
        }
    };
}

// SQLite has no arrays: always one parameter a value.
sql_db!(sqlx::Sqlite, arrays: false, bind_rows: |query, columns, _arrays| row_values::bind_row_major(query, columns));
sql_db!(sqlx::Postgres, arrays: true, bind_rows: |query, columns, arrays| {
    if arrays {
        row_values::bind_columns(query, columns)
    } else {
        row_values::bind_row_major(query, columns)
    }
});

/// How many rows a statement changed: each driver has its own result type.
pub(in crate::store) trait RowsAffected {
    fn rows_affected(&self) -> u64;

    /// An update of one record by its key that changed no row found no such record.
    fn found(&self) -> Result<(), crate::store::StoreError> {
        if self.rows_affected() == 0 {
            return Err(crate::store::StoreError::NotFound);
        }
        Ok(())
    }
}

impl RowsAffected for sqlx::sqlite::SqliteQueryResult {
    fn rows_affected(&self) -> u64 {
        sqlx::sqlite::SqliteQueryResult::rows_affected(self)
    }
}

impl RowsAffected for sqlx::postgres::PgQueryResult {
    fn rows_affected(&self) -> u64 {
        sqlx::postgres::PgQueryResult::rows_affected(self)
    }
}

/// A value a statement binds: text, a 64-bit integer (francs among them), or their `NULL`s.
pub(in crate::store) trait Arg<'q> {
    fn bind_to<DB: SqlDb>(self, query: Statement<'q, DB>) -> Statement<'q, DB>;
}

impl<'q> Arg<'q> for &'q str {
    fn bind_to<DB: SqlDb>(self, query: Statement<'q, DB>) -> Statement<'q, DB> {
        DB::bind_text(query, Some(self))
    }
}

impl<'q> Arg<'q> for &'q String {
    fn bind_to<DB: SqlDb>(self, query: Statement<'q, DB>) -> Statement<'q, DB> {
        DB::bind_text(query, Some(self.as_str()))
    }
}

impl<'q> Arg<'q> for Option<&'q str> {
    fn bind_to<DB: SqlDb>(self, query: Statement<'q, DB>) -> Statement<'q, DB> {
        DB::bind_text(query, self)
    }
}

impl<'q> Arg<'q> for String {
    fn bind_to<DB: SqlDb>(self, query: Statement<'q, DB>) -> Statement<'q, DB> {
        DB::bind_string(query, Some(self))
    }
}

impl<'q> Arg<'q> for Option<String> {
    fn bind_to<DB: SqlDb>(self, query: Statement<'q, DB>) -> Statement<'q, DB> {
        DB::bind_string(query, self)
    }
}

impl<'q> Arg<'q> for i64 {
    fn bind_to<DB: SqlDb>(self, query: Statement<'q, DB>) -> Statement<'q, DB> {
        DB::bind_int(query, Some(self))
    }
}

impl<'q> Arg<'q> for Option<i64> {
    fn bind_to<DB: SqlDb>(self, query: Statement<'q, DB>) -> Statement<'q, DB> {
        DB::bind_int(query, self)
    }
}

impl<'q> Arg<'q> for crate::domain::Francs {
    fn bind_to<DB: SqlDb>(self, query: Statement<'q, DB>) -> Statement<'q, DB> {
        DB::bind_int(query, Some(self.get()))
    }
}

/// A record's id binds as its text.
impl<'q, T: TextId> Arg<'q> for &'q T {
    fn bind_to<DB: SqlDb>(self, query: Statement<'q, DB>) -> Statement<'q, DB> {
        DB::bind_text(query, Some(self.as_str()))
    }
}

/// Binding as a method of the statement: `sqlx::query(sql).arg(a).arg(b)`.
pub(in crate::store) trait Args<'q> {
    fn arg(self, value: impl Arg<'q>) -> Self;
}

impl<'q, DB: SqlDb> Args<'q> for Statement<'q, DB> {
    fn arg(self, value: impl Arg<'q>) -> Self {
        value.bind_to(self)
    }
}

/// A value a column is read as.
pub(in crate::store) trait Col: Sized {
    fn read<DB: SqlDb>(row: &DB::Row, column: &str) -> Result<Self, sqlx::Error>;
}

/// `NULL` where the column's type forbids it: sqlx's own error for it.
fn not_null<T>(value: Option<T>, column: &str) -> Result<T, sqlx::Error> {
    value.ok_or_else(|| sqlx::Error::ColumnDecode {
        index: format!("{column:?}"),
        source: "unexpected null; try decoding as an `Option`".into(),
    })
}

impl Col for String {
    fn read<DB: SqlDb>(row: &DB::Row, column: &str) -> Result<Self, sqlx::Error> {
        not_null(DB::text(row, column)?, column)
    }
}

impl Col for Option<String> {
    fn read<DB: SqlDb>(row: &DB::Row, column: &str) -> Result<Self, sqlx::Error> {
        DB::text(row, column)
    }
}

impl Col for i64 {
    fn read<DB: SqlDb>(row: &DB::Row, column: &str) -> Result<Self, sqlx::Error> {
        not_null(DB::int(row, column)?, column)
    }
}

impl Col for Option<i64> {
    fn read<DB: SqlDb>(row: &DB::Row, column: &str) -> Result<Self, sqlx::Error> {
        DB::int(row, column)
    }
}

/// A sum of money reads from its `BIGINT` column.
impl Col for crate::domain::Francs {
    fn read<DB: SqlDb>(row: &DB::Row, column: &str) -> Result<Self, sqlx::Error> {
        i64::read::<DB>(row, column).map(crate::domain::Francs)
    }
}

/// A count reads from its `BIGINT` column; a negative one is a corrupt row.
impl Col for u64 {
    fn read<DB: SqlDb>(row: &DB::Row, column: &str) -> Result<Self, sqlx::Error> {
        let value = i64::read::<DB>(row, column)?;
        u64::try_from(value).map_err(|_| sqlx::Error::ColumnDecode {
            index: format!("{column:?}"),
            source: format!("a count of {value}").into(),
        })
    }
}

impl Col for bool {
    fn read<DB: SqlDb>(row: &DB::Row, column: &str) -> Result<Self, sqlx::Error> {
        not_null(DB::flag(row, column)?, column)
    }
}

impl Col for Option<bool> {
    fn read<DB: SqlDb>(row: &DB::Row, column: &str) -> Result<Self, sqlx::Error> {
        DB::flag(row, column)
    }
}

/// A record's id reads from its text column.
impl<T: TextId> Col for T {
    fn read<DB: SqlDb>(row: &DB::Row, column: &str) -> Result<Self, sqlx::Error> {
        String::read::<DB>(row, column).map(T::from_text)
    }
}

/// Reading as a method of the row: `row.col::<String>("name")`.
pub(in crate::store) trait Get {
    fn col<T: Col>(&self, column: &str) -> Result<T, sqlx::Error>;
}

impl<R: Row<Database: SqlDb>> Get for R {
    fn col<T: Col>(&self, column: &str) -> Result<T, sqlx::Error> {
        T::read::<R::Database>(self, column)
    }
}
