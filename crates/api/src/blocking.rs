//! Where SQLite calls run. A write can wait up to the store's busy timeout while another
//! process (the CLI beside the app) holds the database; that wait must hold neither the app's
//! UI thread nor a runtime worker that a run's other tasks need. Async api functions and the
//! app's commands hand their store work to [`Studio::blocking`]; sync callbacks inside a run
//! (its audit trail, source texts, caches, the model ledger) wrap theirs in [`in_place`].

use crate::{ApiError, Studio};

impl Studio {
    /// Runs `work` with this studio on the blocking thread pool and waits for it.
    pub async fn blocking<T, F>(&self, work: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&Studio) -> Result<T, ApiError> + Send + 'static,
    {
        let studio = self.clone();
        match tokio::task::spawn_blocking(move || work(&studio)).await {
            Ok(result) => result,
            // The same panic as had it run here.
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Err(e) => Err(ApiError::new(
                crate::ErrorCode::Storage,
                format!("the database call was stopped: {e}"),
            )),
        }
    }
}

/// Runs the blocking `work` from sync code inside a task: on a multi-threaded runtime the
/// worker hands its other tasks to the rest while it blocks; elsewhere it just runs.
pub(crate) fn in_place<T>(work: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current() {
        Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(work)
        }
        _ => work(),
    }
}
