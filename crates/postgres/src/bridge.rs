//! How a synchronous store waits on the async driver.
//!
//! The stores' seams are synchronous (the API calls them between awaits, the library indexes on
//! a blocking thread); the driver is async. Each store owns a small runtime of its own that
//! drives its connections, and a call waits for its statement there — on a scoped thread when
//! the caller is itself on a runtime, which may not block on another. A call therefore never
//! depends on the caller's runtime being alive or having a free worker.

use std::future::Future;

use research_store::StoreError;

use crate::db::{Db, Failure};
use crate::PgError;

/// What the sessions and thread stores of one database share: the pool and the runtime that
/// drives it.
pub(crate) struct Bridge {
    db: Db,
    runtime: Option<tokio::runtime::Runtime>,
}

impl Bridge {
    pub(crate) fn lazy(url: &str) -> Result<Self, PgError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("research-postgres")
            .enable_all()
            .build()
            .map_err(|e| PgError::Runtime(e.to_string()))?;
        Ok(Self {
            db: Db::lazy(url, 4)?,
            runtime: Some(runtime),
        })
    }

    /// Runs `work` with a connection to completion on this store's runtime.
    pub(crate) fn run<T, F, Fut>(&self, work: F) -> Result<T, StoreError>
    where
        T: Send,
        F: FnOnce(deadpool_postgres::Object) -> Fut + Send,
        Fut: Future<Output = Result<T, Failure>> + Send,
    {
        let runtime = self
            .runtime
            .as_ref()
            .expect("the runtime lives as long as the store");
        let call = async {
            let client = self.db.client().await?;
            work(client).await
        };
        let done = if tokio::runtime::Handle::try_current().is_ok() {
            std::thread::scope(|scope| {
                scope
                    .spawn(|| runtime.block_on(call))
                    .join()
                    .unwrap_or_else(|_| {
                        Err(Failure::Unreachable("a database call panicked".into()))
                    })
            })
        } else {
            runtime.block_on(call)
        };
        done.map_err(|f| StoreError::Server(f.message()))
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        // Dropped on a runtime's thread, a runtime may not wait for its own to stop.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}
