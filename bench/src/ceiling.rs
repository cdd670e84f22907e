//! The database's single-row durable commit ceiling: one-row INSERT transactions into the
//! gateway's own database, with the gateway's durability settings and pool size, from here.

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::PgPoolOptions;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};

use crate::load::{Load, Outcome};
use crate::Db;

pub async fn commit_ceiling(database_url: &str, db: Db, load: &Load) -> anyhow::Result<Outcome> {
    let create = "CREATE TABLE IF NOT EXISTS bench_commits (id TEXT PRIMARY KEY, at BIGINT NOT NULL)";
    let insert = "INSERT INTO bench_commits (id, at) VALUES ($1, $2)";
    match db {
        Db::Sqlite => {
            // As the gateway's writer: WAL, synchronous FULL, one connection.
            let options = SqliteConnectOptions::from_str(database_url)?
                .journal_mode(SqliteJournalMode::Wal)
                .synchronous(SqliteSynchronous::Full)
                .busy_timeout(Duration::from_secs(10));
            let pool = Arc::new(
                SqlitePoolOptions::new()
                    .max_connections(1)
                    .connect_with(options)
                    .await?,
            );
            sqlx::query(create).execute(&*pool).await?;
            Ok(load
                .run_with(move |task, i| {
                    let pool = pool.clone();
                    async move {
                        let mut tx = pool.begin().await.map_err(|e| e.to_string())?;
                        sqlx::query(insert)
                            .bind(format!("{task}-{i}"))
                            .bind(i as i64)
                            .execute(&mut *tx)
                            .await
                            .map_err(|e| e.to_string())?;
                        tx.commit().await.map_err(|e| e.to_string())?;
                        Ok(None)
                    }
                })
                .await)
        }
        Db::Postgres => {
            // As the gateway: default (durable) commits, a pool of 16.
            let pool = Arc::new(PgPoolOptions::new().max_connections(16).connect(database_url).await?);
            sqlx::query(create).execute(&*pool).await?;
            Ok(load
                .run_with(move |task, i| {
                    let pool = pool.clone();
                    async move {
                        let mut tx = pool.begin().await.map_err(|e| e.to_string())?;
                        sqlx::query(insert)
                            .bind(format!("{task}-{i}"))
                            .bind(i as i64)
                            .execute(&mut *tx)
                            .await
                            .map_err(|e| e.to_string())?;
                        tx.commit().await.map_err(|e| e.to_string())?;
                        Ok(None)
                    }
                })
                .await)
        }
    }
}
