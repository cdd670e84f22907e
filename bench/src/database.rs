//! The PostgreSQL database a bench run creates for one gateway, dropped with it whichever way
//! the run ends: a run that stops on an error would otherwise leave it behind, and with it the
//! connections of whatever still points at it.

use sqlx::Connection;

pub struct BenchDatabase {
    /// The server's URL for administration (`--postgres-url`).
    admin: String,
    pub name: String,
    /// Set once dropped, so `Drop` does nothing more.
    dropped: bool,
}

impl BenchDatabase {
    /// Creates `momo_bench_<uuid>` on the server at `admin`.
    pub async fn create(admin: &str) -> anyhow::Result<BenchDatabase> {
        let name = format!("momo_bench_{}", uuid::Uuid::new_v4().simple());
        let mut conn = sqlx::PgConnection::connect(admin).await?;
        sqlx::query(&format!("CREATE DATABASE {name}"))
            .execute(&mut conn)
            .await?;
        let _ = conn.close().await;
        Ok(BenchDatabase {
            admin: admin.to_owned(),
            name,
            dropped: false,
        })
    }

    /// Drops it now, ending the sessions still on it.
    pub async fn drop_now(mut self) {
        drop_database(&self.admin, &self.name).await;
        self.dropped = true;
    }
}

async fn drop_database(admin: &str, name: &str) {
    if let Ok(mut conn) = sqlx::PgConnection::connect(admin).await {
        let _ = sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
            .execute(&mut conn)
            .await;
        let _ = conn.close().await;
    }
}

/// On an error path: `Drop` cannot await, and the bench's runtime cannot block on a future
/// from inside itself, so a thread of its own drops the database on a runtime of its own.
impl Drop for BenchDatabase {
    fn drop(&mut self) {
        if self.dropped {
            return;
        }
        let (admin, name) = (self.admin.clone(), self.name.clone());
        let _ = std::thread::spawn(move || {
            if let Ok(runtime) = tokio::runtime::Builder::new_current_thread().enable_all().build() {
                runtime.block_on(drop_database(&admin, &name));
            }
        })
        .join();
    }
}
