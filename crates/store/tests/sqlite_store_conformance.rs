//! The sessions and threads stores' conformance suite against SQLite, each check in a fresh file
//! that every store of the check opens again (as two processes would).
use std::path::PathBuf;
use std::sync::Arc;

use research_store::conformance::Database;
use research_store::{SessionStore, SqliteSessions, SqliteThreads, ThreadStore};

struct Sqlite {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

impl Database for Sqlite {
    fn sessions(&self) -> Arc<dyn SessionStore> {
        Arc::new(SqliteSessions::open(&self.path).unwrap())
    }
    fn threads(&self) -> Arc<dyn ThreadStore> {
        Arc::new(SqliteThreads::open(&self.path).unwrap())
    }
}

fn fresh() -> Sqlite {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db.sqlite");
    Sqlite { _dir: dir, path }
}

research_store::store_conformance!(fresh());
