//! The registry of threads: which graph a thread runs and with what configuration, so that a
//! later process (`research resume`) can rebuild the same graph for it.

use std::path::Path;
use std::sync::Mutex;

use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};

use crate::{open_connection, StoreError, ThreadStore};

/// One registered thread.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadRecord {
    /// The thread id.
    pub thread_id: String,
    /// The graph's name (e.g. `demo`).
    pub graph: String,
    /// The run configuration, as JSON.
    pub config: serde_json::Value,
    /// When it was created (ms since the epoch).
    pub created_at_ms: i64,
}

/// The `threads` table in the SQLite database file.
pub struct SqliteThreads {
    conn: Mutex<Connection>,
}

impl SqliteThreads {
    /// Opens the database at `path`.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        Ok(Self {
            conn: Mutex::new(open_connection(path)?),
        })
    }

    /// Opens the registry at `path` to read what can still be read ([`crate::open_read_only`]).
    pub fn read_only(path: &Path) -> Result<Self, StoreError> {
        Ok(Self {
            conn: Mutex::new(crate::open_read_only(path)?),
        })
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        // A panic while holding the lock leaves the connection itself intact.
        self.conn
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl ThreadStore for SqliteThreads {
    /// Registers a thread.
    fn insert(&self, record: &ThreadRecord) -> Result<(), StoreError> {
        self.conn().execute(
            "INSERT INTO threads (thread_id, graph, config, created_at_ms) VALUES (?1, ?2, ?3, ?4)",
            params![
                record.thread_id,
                record.graph,
                record.config.to_string(),
                record.created_at_ms
            ],
        )?;
        Ok(())
    }

    /// Replaces a thread's saved configuration (e.g. other models for a resume).
    fn set_config(&self, thread_id: &str, config: &serde_json::Value) -> Result<(), StoreError> {
        self.conn().execute(
            "UPDATE threads SET config = ?2 WHERE thread_id = ?1",
            params![thread_id, config.to_string()],
        )?;
        Ok(())
    }

    /// Looks a thread up.
    fn get(&self, thread_id: &str) -> Result<Option<ThreadRecord>, StoreError> {
        let row = self
            .conn()
            .query_row(
                "SELECT thread_id, graph, config, created_at_ms FROM threads WHERE thread_id = ?1",
                [thread_id],
                |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, i64>(3)?,
                    ))
                },
            )
            .optional()?;
        Ok(
            row.map(|(thread_id, graph, config, created_at_ms)| ThreadRecord {
                thread_id,
                graph,
                config: serde_json::from_str(&config).unwrap_or(serde_json::Value::Null),
                created_at_ms,
            }),
        )
    }

    /// All threads, newest first.
    fn list(&self) -> Result<Vec<ThreadRecord>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare("SELECT thread_id, graph, config, created_at_ms FROM threads ORDER BY created_at_ms DESC, thread_id")?;
        let rows = stmt.query_map([], |r| {
            Ok(ThreadRecord {
                thread_id: r.get(0)?,
                graph: r.get(1)?,
                config: serde_json::from_str(&r.get::<_, String>(2)?)
                    .unwrap_or(serde_json::Value::Null),
                created_at_ms: r.get(3)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}
