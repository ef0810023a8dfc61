//! Where a Studio keeps its records: this machine's SQLite file (the default), or a PostgreSQL
//! server a team shares (`DATABASE_URL`, or the `database` setting). The rule is written here
//! once; the CLI, the app and the MCP server all open a [`crate::Studio`] and get it.
//!
//! What moves to the server: checkpoints, the thread registry, sessions with everything they
//! produced, conversations, schedules, the search and page caches, and the library's index
//! (each machine's folders kept apart: a folder is a path on its machine, and its files are
//! read there). What stays on the machine: keys (the OS keychain), models, settings, and the
//! library's files themselves.

use std::path::Path;
use std::sync::Arc;

use research_graph::Checkpointer;
use research_library::{LibraryIndex, SqliteIndex};
use research_store::{
    SessionStore, SqliteCheckpointer, SqliteSessions, SqliteThreads, ThreadStore,
};

use crate::{ApiError, ErrorCode, Fix, Settings};

/// The environment variable that points every process at a shared server (it wins over the
/// setting, so one shell can try a server without changing the app's settings).
pub const DATABASE_ENV: &str = "DATABASE_URL";

/// The stores a Studio works on.
pub(crate) struct Stores {
    pub checkpointer: Arc<dyn Checkpointer>,
    pub threads: Arc<dyn ThreadStore>,
    pub sessions: Arc<dyn SessionStore>,
    /// This machine's library index.
    pub library: Arc<dyn LibraryIndex>,
    /// Where they are, as a person is told.
    pub shown: String,
    /// The copy a damaged file is read through (an earlier schema, another's log), kept while
    /// the stores are open.
    pub copy: Option<Arc<tempfile::TempDir>>,
}

/// The shared server's address, when one is chosen: `DATABASE_URL`, else the `database`
/// setting of the settings file beside `db`.
pub(crate) fn shared_address(db: &Path) -> Result<Option<String>, ApiError> {
    if let Ok(url) = std::env::var(DATABASE_ENV) {
        // `local` keeps this shell on this machine's file whatever the setting says.
        if url.trim().eq_ignore_ascii_case("local") {
            return Ok(None);
        }
        if !url.trim().is_empty() {
            return Ok(Some(url));
        }
    }
    let settings = Settings::load(&Settings::path_for(db))?;
    Ok(settings.database.filter(|d| !d.trim().is_empty()))
}

/// Opens the stores: on the shared server when one is chosen (connecting now, so a wrong
/// address or a server that is down is said at once), else in the SQLite file at `db`.
pub(crate) fn open(db: &Path) -> Result<Stores, ApiError> {
    let Some(url) = shared_address(db)? else {
        return open_local(db);
    };
    let address = research_postgres::check_address(&url).map_err(|e| not_a_server(&e))?;
    let refused = |e: &dyn std::fmt::Display| {
        ApiError::new(
            ErrorCode::Storage,
            format!(
                "the shared database ({}) could not be opened: {e}",
                address.shown
            ),
        )
        .fix(Fix::SharedDatabase)
    };
    let sessions =
        research_postgres::PgSessions::connect_lazy(&url).map_err(|e| not_a_server(&e))?;
    sessions.ready().map_err(|e| refused(&e))?;
    let checkpointer =
        research_postgres::PgCheckpointer::connect_lazy(&url).map_err(|e| not_a_server(&e))?;
    Ok(Stores {
        checkpointer: Arc::new(checkpointer),
        threads: Arc::new(sessions.threads()),
        library: Arc::new(sessions.library(&crate::research::this_machine())),
        sessions: Arc::new(sessions),
        shown: format!("PostgreSQL, {}", address.shown),
        copy: None,
    })
}

/// The stores in this machine's SQLite file at `db`, whatever is chosen.
pub(crate) fn open_local(db: &Path) -> Result<Stores, ApiError> {
    Ok(Stores {
        checkpointer: Arc::new(SqliteCheckpointer::open(db)?),
        threads: Arc::new(SqliteThreads::open(db)?),
        sessions: Arc::new(SqliteSessions::open(db)?),
        library: Arc::new(SqliteIndex::open(db)?),
        shown: format!("SQLite, {}", db.display()),
        copy: None,
    })
}

/// This machine's file opened to read what can still be read (a damaged one's sessions):
/// read-only stores, an empty library, nothing written to it. A file an earlier build wrote
/// is read through a copy brought up to today's schema (its tables lack columns today's
/// queries name), as is one with another database's log beside it (left out of the copy);
/// when the copy cannot be made, the file is read as it is.
pub(crate) fn open_read_only(db: &Path) -> Result<Stores, ApiError> {
    // Another database's log would be read as this file's: the copy leaves it out.
    let foreign_log = research_store::safety::foreign_log(db).is_some();
    let earlier =
        research_store::version_of(db).is_some_and(|v| v < research_store::schema_version());
    let copy = (earlier || foreign_log)
        .then(|| {
            let folder = tempfile::tempdir().ok()?;
            match research_store::upgraded_copy(db, folder.path()) {
                Ok(path) => Some((path, Arc::new(folder))),
                Err(e) => {
                    tracing::warn!(error = %e, "the damaged file is read as it is");
                    None
                }
            }
        })
        .flatten();
    let (read, shown) = match &copy {
        Some((path, _)) => (
            path.clone(),
            format!("SQLite, {} (read only, through a copy of it)", db.display()),
        ),
        None => (
            db.to_path_buf(),
            format!("SQLite, {} (read only)", db.display()),
        ),
    };
    Ok(Stores {
        checkpointer: Arc::new(SqliteCheckpointer::read_only(&read)?),
        threads: Arc::new(SqliteThreads::read_only(&read)?),
        sessions: Arc::new(SqliteSessions::read_only(&read)?),
        // The library is not part of what is saved; an index of nothing stands in.
        library: Arc::new(SqliteIndex::open(Path::new(":memory:"))?),
        shown,
        copy: copy.map(|(_, folder)| folder),
    })
}

fn not_a_server(e: &research_postgres::PgError) -> ApiError {
    ApiError::new(
        ErrorCode::InvalidInput,
        format!("{e} (from {DATABASE_ENV} or the `database` setting)"),
    )
    .fix(Fix::SharedDatabase)
}

/// Checks a `database` setting: a PostgreSQL address without a password in it (passwords go
/// in `PGPASSWORD`, never in the settings file), or empty for this machine's file.
pub(crate) fn check_setting(value: &str) -> Result<Option<String>, ApiError> {
    let value = value.trim();
    if value.is_empty() || value.eq_ignore_ascii_case("local") {
        return Ok(None);
    }
    let address = research_postgres::check_address(value)
        // The value is not repeated: it may hold a password.
        .map_err(|e| ApiError::new(ErrorCode::InvalidInput, e.to_string()))?;
    if address.has_password {
        return Err(ApiError::new(
            ErrorCode::InvalidInput,
            "the address holds a password, and settings are a plain file: leave it out and set \
             PGPASSWORD in the environment (or put the whole address in DATABASE_URL)",
        ));
    }
    Ok(Some(value.to_string()))
}
