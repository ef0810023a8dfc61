//! SQLite storage for Research Studio.
//!
//! One database file holds everything the app keeps: graph checkpoints and task writes (through
//! [`SqliteCheckpointer`], the engine's `Checkpointer` seam) and the registry of threads that the
//! API layer lists. Later issues add sessions, sources and the library here, as migrations.
//!
//! The file runs in WAL mode with `synchronous=FULL`: a checkpoint or task write is on disk when
//! the call returns. All writes go through one writer thread that commits whatever has queued up
//! in a single transaction (group commit), so a fan-out whose tasks finish together pays for one
//! disk flush, not one per task.
#![deny(missing_docs)]

mod cache;
mod checkpointer;
pub mod conformance;
mod conversation;
mod models;
pub mod safety;
mod schedules;
mod schema;
mod seam;
mod sessions;
mod threads;

use std::path::{Path, PathBuf};

pub use checkpointer::SqliteCheckpointer;
pub use schedules::{next_after, Schedule};

pub use conversation::{ConversationSummary, TurnRow};
pub use models::{ModelCounts, ModelRunRow, ModelTotals};
pub use seam::{
    CacheStore, ConversationStore, ModelStore, ScheduleStore, SessionStore, ThreadStore,
};
pub use sessions::{
    document_sha256, ClaimRow, EvidenceRow, ReportRow, SessionRecord, SessionStatus, SourceRow,
    SqliteSessions,
};
pub use threads::{SqliteThreads, ThreadRecord};

/// Why the store failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The database file could not be opened or set up.
    #[error("could not open the database at {path}: {message}")]
    Open {
        /// The file.
        path: PathBuf,
        /// What SQLite said.
        message: String,
    },
    /// A query failed.
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The schema could not be brought up to date.
    #[error("could not update the database schema: {0}")]
    Migration(String),
    /// A store on a database server failed (what it said, with the server named).
    #[error("{0}")]
    Server(String),
    /// SQLite finds the file damaged: nothing was written to it.
    #[error("the database at {path} is damaged ({}); nothing was written to it", problems.join("; "))]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What SQLite's check found.
        problems: Vec<String>,
    },
    /// The file was written by a newer build: this one cannot read it and does not change it.
    #[error("the database at {path} was written by a newer Research Studio (schema {found}; this one knows up to {known}); it was not changed")]
    NewerSchema {
        /// The file.
        path: PathBuf,
        /// Its schema version.
        found: usize,
        /// The newest this build knows.
        known: usize,
    },
}

/// The schema version this build brings a database to (the number of its migrations, as
/// SQLite's `user_version` records them): read once from an empty database brought up to date.
pub fn schema_version() -> usize {
    static VERSION: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *VERSION.get_or_init(|| {
        let mut conn = rusqlite::Connection::open_in_memory().expect("an in-memory database");
        migrations()
            .to_latest(&mut conn)
            .expect("the migrations apply to an empty database");
        conn.pragma_query_value(None, "user_version", |r| r.get::<_, i64>(0))
            .map(|v| v.max(0) as usize)
            .unwrap_or(0)
    })
}

fn migrations() -> rusqlite_migration::Migrations<'static> {
    use rusqlite_migration::M;
    rusqlite_migration::Migrations::new(vec![
        M::up(
            "CREATE TABLE checkpoints (
             thread_id     TEXT    NOT NULL,
             seq           INTEGER NOT NULL,
             created_at_ms INTEGER NOT NULL,
             body          BLOB    NOT NULL,
             snapshot      BLOB,
             PRIMARY KEY (thread_id, seq)
         ) WITHOUT ROWID;
         CREATE TABLE writes (
             thread_id  TEXT    NOT NULL,
             checkpoint INTEGER NOT NULL,
             task       INTEGER NOT NULL,
             kind       INTEGER NOT NULL,
             idx        INTEGER NOT NULL,
             value      BLOB    NOT NULL,
             PRIMARY KEY (thread_id, checkpoint, task, kind, idx)
         ) WITHOUT ROWID;
         CREATE TABLE threads (
             thread_id     TEXT    PRIMARY KEY,
             graph         TEXT    NOT NULL,
             config        TEXT    NOT NULL,
             created_at_ms INTEGER NOT NULL
         );",
        ),
        // The user's library: folders, files (with what was read from them) and passages in FTS5.
        M::up(
            "CREATE TABLE library_roots (
                 path          TEXT    PRIMARY KEY,
                 added_at_ms   INTEGER NOT NULL
             );
             CREATE TABLE library_files (
                 id            INTEGER PRIMARY KEY,
                 root          TEXT    NOT NULL REFERENCES library_roots(path) ON DELETE CASCADE,
                 path          TEXT    NOT NULL UNIQUE,
                 mtime_ns      INTEGER NOT NULL,
                 size          INTEGER NOT NULL,
                 sha256        TEXT    NOT NULL,
                 kind          TEXT    NOT NULL,
                 title         TEXT,
                 error         TEXT,
                 indexed_at_ms INTEGER NOT NULL
             );
             CREATE INDEX library_files_root ON library_files(root);
             CREATE VIRTUAL TABLE library_passages USING fts5(
                 text, file_id UNINDEXED, ord UNINDEXED,
                 tokenize = 'unicode61 remove_diacritics 2'
             );",
        ),
        // Research sessions, source texts, caches.
        M::up(schema::MIGRATION),
        // Library passages are now indexed with CJK characters spaced apart: re-extract them all
        // at the next re-index (a cleared hash forces it).
        M::up(
            "DELETE FROM library_passages;
             UPDATE library_files SET sha256 = '', mtime_ns = -1 WHERE error IS NULL;",
        ),
        M::up(conversation::TURNS_MIGRATION),
        M::up(schema::CHECKED_MIGRATION),
        // Library passages are matched by their stems ("honeybees" finds "honeybee colony",
        // "communicate" finds "communication"): the passages move to a table with the Porter
        // stemmer in front of the same tokenizer, keeping their rowids (the vectors' keys).
        M::up(
            "CREATE VIRTUAL TABLE library_passages_stemmed USING fts5(
                 text, file_id UNINDEXED, ord UNINDEXED,
                 tokenize = 'porter unicode61 remove_diacritics 2'
             );
             INSERT INTO library_passages_stemmed (rowid, text, file_id, ord)
                 SELECT rowid, text, file_id, ord FROM library_passages;
             DROP TABLE library_passages;
             ALTER TABLE library_passages_stemmed RENAME TO library_passages;",
        ),
        M::up(schedules::SCHEDULES_MIGRATION),
        // Which process runs a thread now, so a run whose process died is told apart.
        M::up("ALTER TABLE runs ADD COLUMN runner TEXT;"),
        // What each model did in the person's runs (its measurements).
        M::up(models::MODEL_RUNS_MIGRATION),
        // Who wrote each source and where it appeared, as JSON (see `SourceRow::citation`).
        M::up("ALTER TABLE sources ADD COLUMN citation TEXT;"),
    ])
}

/// How hard a commit waits for the disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Durability {
    /// `synchronous=FULL`: a commit survives a power loss (the default).
    #[default]
    Full,
    /// `synchronous=NORMAL`: a commit survives a killed process but may be lost with the last
    /// moments before a power loss; commits cost no disk flush.
    Normal,
}

/// Opens the database at `path` to read what can still be read — a damaged file's sessions,
/// saved elsewhere before it is replaced: read-only, no check, no migration, nothing written.
pub fn open_read_only(path: &Path) -> Result<rusqlite::Connection, StoreError> {
    use rusqlite::OpenFlags;
    let fail = |message: String| StoreError::Open {
        path: path.to_path_buf(),
        message,
    };
    let conn = rusqlite::Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| fail(e.to_string()))?;
    conn.busy_timeout(std::time::Duration::from_secs(10))
        .map_err(|e| fail(e.to_string()))?;
    Ok(conn)
}

/// The schema version the file at `path` says it has (`PRAGMA user_version`), read without
/// writing; `None` when even that cannot be read.
pub fn version_of(path: &Path) -> Option<usize> {
    let conn = open_read_only(path).ok()?;
    let found: i64 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .ok()?;
    Some(found.max(0) as usize)
}

/// A copy of the database at `path` (with its `-wal`, unless that is another database's) made
/// in `folder` and brought up to today's schema there, without the soundness check: what a
/// damaged file is read through when it was written by an earlier build (its tables lack
/// columns today's queries name) or has another's log beside it. The file itself is never
/// written. The copy's path.
pub fn upgraded_copy(path: &Path, folder: &Path) -> Result<std::path::PathBuf, StoreError> {
    let fail = |message: String| StoreError::Open {
        path: path.to_path_buf(),
        message,
    };
    let copy = folder.join("salvage.sqlite");
    std::fs::copy(path, &copy).map_err(|e| fail(format!("cannot copy it: {e}")))?;
    let wal = std::path::PathBuf::from(format!("{}-wal", path.display()));
    if wal.is_file() && safety::foreign_log(path).is_none() {
        std::fs::copy(&wal, format!("{}-wal", copy.display()))
            .map_err(|e| fail(format!("cannot copy its -wal: {e}")))?;
    }
    let mut conn = rusqlite::Connection::open(&copy).map_err(|e| fail(e.to_string()))?;
    migrations().to_latest(&mut conn).map_err(|e| {
        fail(format!(
            "its copy could not be brought to today's schema: {e}"
        ))
    })?;
    Ok(copy)
}

/// Opens (creating it and its folder when missing) the database at `path` and brings its
/// schema up to date, with full durability.
pub fn open_connection(path: &Path) -> Result<rusqlite::Connection, StoreError> {
    open_connection_with(path, Durability::Full)
}

/// Like [`open_connection`], with the given durability.
pub fn open_connection_with(
    path: &Path,
    durability: Durability,
) -> Result<rusqlite::Connection, StoreError> {
    let fail = |message: String| StoreError::Open {
        path: path.to_path_buf(),
        message,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| fail(e.to_string()))?;
    }
    let mut conn = rusqlite::Connection::open(path).map_err(|e| fail(e.to_string()))?;
    conn.busy_timeout(std::time::Duration::from_secs(10))
        .map_err(|e| fail(e.to_string()))?;
    // Before anything writes to it (even the journal mode): a damaged file is refused, and one
    // a newer build wrote is left as it is.
    safety::sound_before_use(&conn, path)?;
    let found: i64 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .map_err(|e| fail(e.to_string()))?;
    if found.max(0) as usize > schema_version() {
        return Err(StoreError::NewerSchema {
            path: path.to_path_buf(),
            found: found as usize,
            known: schema_version(),
        });
    }
    // An upgrade of a file an earlier build wrote starts from a copy of it: a migration that
    // fails (or a person who wants the old build back) has the file as it was.
    if found > 0 && (found as usize) < schema_version() {
        safety::before_upgrade(path, found as usize)?;
    }
    conn.pragma_update(None, "journal_mode", "WAL")
        .map_err(|e| fail(e.to_string()))?;
    let synchronous = match durability {
        Durability::Full => "FULL",
        Durability::Normal => "NORMAL",
    };
    conn.pragma_update(None, "synchronous", synchronous)
        .map_err(|e| fail(e.to_string()))?;
    conn.pragma_update(None, "foreign_keys", "ON")
        .map_err(|e| fail(e.to_string()))?;
    migrations().to_latest(&mut conn).map_err(|e| match e {
        rusqlite_migration::Error::RusqliteError { err, .. } => fail(err.to_string()),
        other => StoreError::Migration(other.to_string()),
    })?;
    safety::mark_identity(&mut conn).map_err(|e| fail(e.to_string()))?;
    Ok(conn)
}

#[cfg(test)]
mod tests {
    #[test]
    fn migrations_are_valid() {
        super::migrations().validate().unwrap();
    }

    #[test]
    fn an_upgrade_starts_from_a_copy_of_the_file_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("old.sqlite3");
        {
            let mut conn = rusqlite::Connection::open(&db).unwrap();
            super::migrations().to_version(&mut conn, 6).unwrap();
        }
        super::open_connection(&db).unwrap();
        let copies: Vec<_> = std::fs::read_dir(dir.path().join("backups"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(copies.len(), 1, "{copies:?}");
        let name = copies[0].file_name().unwrap().to_string_lossy().to_string();
        assert!(
            name.starts_with("research-before-schema-") && name.contains("-from-6-"),
            "{name}"
        );
        let copy = rusqlite::Connection::open(&copies[0]).unwrap();
        let v: i64 = copy
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(v, 6, "the copy is the file as it was");
        // Up to date already: no copy the next time.
        drop(copy);
        super::open_connection(&db).unwrap();
        assert_eq!(
            std::fs::read_dir(dir.path().join("backups"))
                .unwrap()
                .count(),
            1
        );
    }

    /// An upgrade that fails part-way (from schema 6: the seventh migration, which moves the
    /// library's passages to the stemmed index, applies; the eighth fails over a file that
    /// already has a table of that name) leaves the file at the schema it had, every row as it
    /// was and the seventh undone too; the copy taken before it holds the file as it was.
    #[test]
    fn a_failed_upgrade_leaves_the_file_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("old.sqlite3");
        {
            let mut conn = rusqlite::Connection::open(&db).unwrap();
            super::migrations().to_version(&mut conn, 6).unwrap();
            fill_every_table(&conn);
            conn.execute_batch(
                "CREATE TABLE schedules (stray TEXT); INSERT INTO schedules VALUES ('kept');",
            )
            .unwrap();
        }
        let err = super::open_connection(&db).expect_err("the eighth migration cannot apply");
        assert!(err.to_string().contains("schedules"), "{err}");
        let conn = rusqlite::Connection::open(&db).unwrap();
        let version: i64 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(version, 6, "the file keeps its schema");
        let passages: String = conn
            .query_row(
                "SELECT sql FROM sqlite_master WHERE name = 'library_passages'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert!(
            !passages.contains("porter"),
            "the seventh migration is undone: {passages}"
        );
        let stray: String = conn
            .query_row("SELECT stray FROM schedules", [], |r| r.get(0))
            .unwrap();
        assert_eq!(stray, "kept");
        let runner: i64 = conn
            .query_row(
                "SELECT COUNT(*) FROM pragma_table_info('runs') WHERE name = 'runner'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(runner, 0, "no later migration half-applied");
        let sessions: i64 = conn
            .query_row("SELECT COUNT(*) FROM sessions", [], |r| r.get(0))
            .unwrap();
        assert_eq!(sessions, 1);
        let copies: Vec<_> = std::fs::read_dir(dir.path().join("backups"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(copies.len(), 1, "{copies:?}");
        let copy = rusqlite::Connection::open(&copies[0]).unwrap();
        let (version, stray): (i64, String) = copy
            .query_row(
                "SELECT (SELECT user_version FROM pragma_user_version), stray FROM schedules",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!((version, stray.as_str()), (6, "kept"), "the copy before it");
    }

    /// A database at every earlier schema, each of its tables holding a row, is brought up to
    /// date by opening it as the app does: nothing is lost (every row is still there), the copy
    /// before the upgrade is taken, and the sessions read. The rows are made from the tables
    /// themselves (text `x`, numbers 1: every reference finds its row), so a migration added
    /// later is held to the same test without a fixture written by hand.
    #[test]
    fn a_database_at_every_earlier_schema_upgrades_without_losing_a_row() {
        use crate::SessionStore;
        let latest = super::schema_version();
        for version in 1..latest {
            let dir = tempfile::tempdir().unwrap();
            let db = dir.path().join("old.sqlite3");
            let filled: Vec<String> = {
                let mut conn = rusqlite::Connection::open(&db).unwrap();
                super::migrations().to_version(&mut conn, version).unwrap();
                fill_every_table(&conn)
            };
            assert!(!filled.is_empty(), "schema {version} has tables");
            let conn = super::open_connection(&db)
                .unwrap_or_else(|e| panic!("schema {version} does not upgrade: {e}"));
            let now: i64 = conn
                .pragma_query_value(None, "user_version", |r| r.get(0))
                .unwrap();
            assert_eq!(now as usize, latest);
            for table in &filled {
                let exists: bool = conn
                    .query_row(
                        "SELECT COUNT(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = ?1",
                        [table],
                        |r| r.get(0),
                    )
                    .unwrap();
                if !exists {
                    continue;
                }
                let rows: i64 = conn
                    .query_row(&format!("SELECT COUNT(*) FROM \"{table}\""), [], |r| {
                        r.get(0)
                    })
                    .unwrap();
                assert_eq!(rows, 1, "schema {version}: {table} lost its row");
            }
            drop(conn);
            assert_eq!(
                std::fs::read_dir(dir.path().join("backups"))
                    .unwrap()
                    .count(),
                1,
                "schema {version}: the copy before the upgrade"
            );
            if filled.iter().any(|t| t == "sessions") {
                let sessions = crate::SqliteSessions::open(&db).unwrap();
                let listed = sessions.list(None).unwrap();
                assert_eq!(listed.len(), 1, "schema {version}");
                assert_eq!(sessions.runs("x").unwrap().len(), 1, "schema {version}");
            }
        }
    }

    /// Puts one row in every ordinary table of `conn` (text `x`, numbers 1, bytes one zero);
    /// the tables filled.
    fn fill_every_table(conn: &rusqlite::Connection) -> Vec<String> {
        let tables: Vec<String> = conn
            .prepare("SELECT name FROM pragma_table_list WHERE type = 'table' AND schema = 'main' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '%migration%'")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        conn.execute_batch("PRAGMA foreign_keys = OFF;").unwrap();
        for table in &tables {
            let columns: Vec<(String, String)> = conn
                .prepare(&format!("PRAGMA table_info(\"{table}\")"))
                .unwrap()
                .query_map([], |r| Ok((r.get(1)?, r.get(2)?)))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            let names: Vec<String> = columns.iter().map(|(n, _)| format!("\"{n}\"")).collect();
            let values: Vec<&str> = columns
                .iter()
                .map(|(_, kind)| {
                    let kind = kind.to_uppercase();
                    if kind.contains("INT") {
                        "1"
                    } else if kind.contains("REAL") || kind.contains("FLOA") {
                        "1.0"
                    } else if kind.contains("BLOB") {
                        "x'00'"
                    } else {
                        "'x'"
                    }
                })
                .collect();
            conn.execute(
                &format!(
                    "INSERT INTO \"{table}\" ({}) VALUES ({})",
                    names.join(", "),
                    values.join(", ")
                ),
                [],
            )
            .unwrap_or_else(|e| panic!("{table}: {e}"));
        }
        tables
    }

    #[test]
    fn library_passages_move_to_the_stemmed_index_with_their_rowids() {
        let mut conn = rusqlite::Connection::open_in_memory().unwrap();
        let all = super::migrations();
        // Up to the migration before the stemmer, with one passage indexed the old way.
        all.to_version(&mut conn, 6).unwrap();
        conn.execute(
            "INSERT INTO library_passages (rowid, text, file_id, ord) VALUES (42, 'Honeybee colonies', 7, 0)",
            [],
        )
        .unwrap();
        all.to_latest(&mut conn).unwrap();
        let found: (i64, i64) = conn
            .query_row(
                "SELECT rowid, file_id FROM library_passages WHERE library_passages MATCH 'colony'",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!(found, (42, 7));
    }
}
