//! Where the batch writers' tasks run.
//!
//! On PostgreSQL each writer task drives its connection's protocol itself: every statement of a
//! batch is a round trip whose answer wakes the task. On the runtime shared with the HTTP
//! workers that wake-up waited in the workers' queues behind requests, so a batch's transaction
//! stayed open, its backend idle in transaction, between statements. On a thread and runtime of their own they are woken at once
//! (the operating system shares the cores between that thread and the workers). Their
//! connections must be opened there too: a connection answers through the reactor of the
//! runtime that opened it. SQLite's writer connection is driven by sqlx's own thread, so its
//! task only hands statements over, and gains nothing from a thread of its own
//! (docs/performance.md, Where the time goes).

use std::future::Future;

use crate::store::StoreError;

/// Where a store's batch writers run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::store) enum WriterHome {
    /// On the runtime that starts them.
    Shared,
    /// On a thread of their own, named `momo-writers`, with a single-threaded runtime.
    OwnThread,
}

impl WriterHome {
    /// Starts `tasks` where they belong; each runs until it returns.
    pub fn run<F>(self, tasks: Vec<F>) -> Result<(), StoreError>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        match self {
            WriterHome::Shared => {
                for task in tasks {
                    tokio::spawn(task);
                }
                Ok(())
            }
            WriterHome::OwnThread => {
                let unavailable =
                    |e: std::io::Error| StoreError::Unavailable(format!("the batch writers cannot start: {e}"));
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(unavailable)?;
                std::thread::Builder::new()
                    .name("momo-writers".into())
                    .spawn(move || {
                        runtime.block_on(async move {
                            let mut running = tokio::task::JoinSet::new();
                            for task in tasks {
                                running.spawn(task);
                            }
                            while let Some(ended) = running.join_next().await {
                                if let Err(e) = ended {
                                    tracing::error!(cause = %e, "a batch writer stopped; the others go on");
                                }
                            }
                        })
                    })
                    .map_err(unavailable)?;
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn tasks_run_where_they_are_sent() {
        for home in [WriterHome::Shared, WriterHome::OwnThread] {
            let (done, ran) = tokio::sync::oneshot::channel();
            home.run(vec![async move {
                let thread = std::thread::current().name().map(str::to_owned);
                let _ = done.send(thread);
            }])
            .unwrap();
            let thread = ran.await.unwrap();
            assert_eq!(
                thread.as_deref() == Some("momo-writers"),
                home == WriterHome::OwnThread,
                "{home:?} ran on {thread:?}"
            );
        }
    }
}
