//! One module per command family; `main.rs` only parses and dispatches to them.

pub mod ask;
pub mod backups;
pub mod check;
pub mod export;
pub mod fetch;
pub mod graph;
pub mod keys;
pub mod library;
pub mod models;
pub mod research;
pub mod search;
pub mod sessions;
pub mod settings;
pub mod watch;

use std::path::PathBuf;

use anyhow::Context;
use research_api::{ApiError, CancellationToken, ErrorCode, Studio, ThreadId};

/// `--db`, shared by every command that opens the database.
#[derive(clap::Args, Clone)]
pub struct DbArg {
    /// The database file (default: the app's data folder)
    #[arg(long, value_name = "PATH", global = true)]
    pub db: Option<PathBuf>,
}

impl DbArg {
    /// Opens the database named by `--db`, or the app's.
    pub fn open(&self) -> Result<Studio, ApiError> {
        Studio::open(self.db.as_deref())
    }

    /// The database file named by `--db`, or the app's, without opening it.
    pub fn path(&self) -> Result<PathBuf, ApiError> {
        match &self.db {
            Some(db) => Ok(db.clone()),
            None => research_api::default_db_path(),
        }
    }

    /// The settings file beside the database, without opening it.
    pub fn settings_path(&self) -> Result<PathBuf, ApiError> {
        Ok(research_api::Settings::path_for(&self.path()?))
    }
}

/// A token cancelled by Ctrl-C.
pub fn cancel_on_ctrl_c() -> CancellationToken {
    let cancel = CancellationToken::new();
    let token = cancel.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            token.cancel();
        }
    });
    cancel
}

/// A failed run is saved: say how to continue it.
pub fn resumable(e: ApiError, thread: &ThreadId) -> ApiError {
    if e.code == ErrorCode::RunFailed {
        ApiError {
            message: format!(
                "{} (the run is saved; continue it with: research resume {thread})",
                e.message
            ),
            ..e
        }
    } else {
        e
    }
}

/// `text`, or all of standard input when it is `-`; `what` names it in the error.
pub fn arg_or_stdin(text: String, what: &str) -> anyhow::Result<String> {
    if text == "-" {
        read_stdin(what)
    } else {
        Ok(text)
    }
}

/// All of standard input; `what` names it in the error.
pub fn read_stdin(what: &str) -> anyhow::Result<String> {
    let mut text = String::new();
    std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
        .with_context(|| format!("could not read {what} from standard input"))?;
    Ok(text)
}
