//! The SQLite [`Checkpointer`].

use std::path::Path;
use std::sync::{mpsc, Arc, Mutex};

use async_trait::async_trait;
use research_graph::{
    CheckpointChain, CheckpointError, CheckpointRecord, Checkpointer, ThreadId, WriteKind,
    WriteRecord,
};
use rusqlite::{params, Connection, OptionalExtension};
use tokio::sync::oneshot;

use crate::{open_connection, open_connection_with, Durability, StoreError};

/// One write handed to the writer: what to write, whether its commit must flush the disk, and
/// who waits for it.
struct Job {
    work: Work,
    flush: bool,
    done: oneshot::Sender<Result<(), CheckpointError>>,
}

enum Work {
    Checkpoint(CheckpointRecord, Vec<WriteRecord>),
    Writes(Vec<WriteRecord>),
}

/// Checkpoints in a SQLite file (LangGraph's `SqliteSaver`), durable on return.
pub struct SqliteCheckpointer {
    jobs: Mutex<Option<mpsc::Sender<Job>>>,
    /// The write-ahead log, flushed by [`Checkpointer::flush`] (`None` when commits never flush).
    wal: Option<std::path::PathBuf>,
    writer: Mutex<Option<std::thread::JoinHandle<()>>>,
    reader: Arc<Mutex<Connection>>,
}

/// The file a connection has open, as SQLite names it (`None` for an in-memory database).
fn conn_path(conn: &Connection) -> Option<String> {
    conn.path().filter(|p| !p.is_empty()).map(str::to_string)
}

fn storage(e: impl std::fmt::Display) -> CheckpointError {
    CheckpointError::Storage(e.to_string())
}

/// A failed write, typed when the disk is full (the run says so and can resume later).
fn write_failed(e: rusqlite::Error) -> CheckpointError {
    if crate::sessions::is_disk_full(&e) {
        CheckpointError::DiskFull
    } else {
        storage(e)
    }
}

fn kind_code(kind: WriteKind) -> i64 {
    i64::from(kind.code())
}

fn kind_from(code: i64) -> Result<WriteKind, CheckpointError> {
    WriteKind::from_code(code).ok_or_else(|| storage(format!("unknown write kind {code}")))
}

impl SqliteCheckpointer {
    /// Opens the database at `path` (created when missing), with full durability.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        Self::open_with(path, Durability::Full)
    }

    /// Opens the database at `path` with the given durability.
    pub fn open_with(path: &Path, durability: Durability) -> Result<Self, StoreError> {
        let writer_conn = open_connection_with(path, durability)?;
        let wal = match durability {
            Durability::Full => Some(match conn_path(&writer_conn) {
                // The log's name as SQLite made it, from the file it opened.
                Some(db) => format!("{db}-wal").into(),
                None => {
                    let mut wal = path.as_os_str().to_owned();
                    wal.push("-wal");
                    wal.into()
                }
            }),
            Durability::Normal => None,
        };
        let reader = open_connection(path)?;
        let (tx, rx) = mpsc::channel::<Job>();
        let writer = std::thread::Builder::new()
            .name("checkpoint-writer".into())
            .spawn(move || writer_loop(writer_conn, durability, rx))
            .map_err(|e| StoreError::Open {
                path: path.to_path_buf(),
                message: e.to_string(),
            })?;
        Ok(Self {
            jobs: Mutex::new(Some(tx)),
            wal,
            writer: Mutex::new(Some(writer)),
            reader: Arc::new(Mutex::new(reader)),
        })
    }

    /// Opens the checkpoints at `path` to read what can still be read
    /// ([`crate::open_read_only`]): every write fails as closed.
    pub fn read_only(path: &Path) -> Result<Self, StoreError> {
        Ok(Self {
            jobs: Mutex::new(None),
            wal: None,
            writer: Mutex::new(None),
            reader: Arc::new(Mutex::new(crate::open_read_only(path)?)),
        })
    }

    async fn submit(&self, work: Work, flush: bool) -> Result<(), CheckpointError> {
        let (done, rx) = oneshot::channel();
        // Every commit is the writer thread's: made on the caller's thread, a commit would hold
        // a runtime thread through its flush (or a wait for another connection's write lock),
        // and runs polled on it could not queue their saves to share that flush (tried: 8 runs
        // at once fell from 115 to 36 runs/s).
        {
            let jobs = self.jobs.lock().map_err(storage)?;
            jobs.as_ref()
                .ok_or(CheckpointError::Closed)?
                .send(Job { work, flush, done })
                .map_err(|_| CheckpointError::Closed)?;
        }
        rx.await.map_err(|_| CheckpointError::Closed)?
    }

    fn read<T>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T, rusqlite::Error>,
    ) -> Result<T, CheckpointError> {
        let conn = self.reader.lock().map_err(storage)?;
        f(&conn).map_err(storage)
    }
}

impl Drop for SqliteCheckpointer {
    fn drop(&mut self) {
        // Closing the queue lets the writer finish what is queued and exit.
        if let Ok(mut jobs) = self.jobs.lock() {
            jobs.take();
        }
        if let Some(handle) = self.writer.lock().ok().and_then(|mut w| w.take()) {
            let _ = handle.join();
        }
    }
}

fn insert_writes(tx: &Connection, writes: &[WriteRecord]) -> rusqlite::Result<()> {
    let mut stmt = tx.prepare_cached(
        "INSERT OR REPLACE INTO writes (thread_id, checkpoint, task, kind, idx, value) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    for w in writes {
        stmt.execute(params![
            w.thread_id.as_str(),
            w.checkpoint as i64,
            w.task,
            kind_code(w.kind),
            w.idx,
            w.value
        ])?;
    }
    Ok(())
}

/// One job's rows, inside its savepoint.
fn apply(tx: &Connection, work: &Work) -> Result<(), CheckpointError> {
    match work {
        Work::Writes(writes) => insert_writes(tx, writes).map_err(write_failed),
        Work::Checkpoint(cp, writes) => {
            let inserted = tx
                .prepare_cached(
                    "INSERT OR IGNORE INTO checkpoints (thread_id, seq, created_at_ms, body, snapshot)
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                )
                .and_then(|mut stmt| {
                    stmt.execute(params![
                        cp.thread_id.as_str(),
                        cp.seq as i64,
                        cp.created_at_ms,
                        cp.body,
                        cp.snapshot
                    ])
                })
                .map_err(write_failed)?;
            if inserted == 0 {
                Err(CheckpointError::Conflict {
                    thread: cp.thread_id.clone(),
                    seq: cp.seq,
                })
            } else {
                insert_writes(tx, writes).map_err(write_failed)
            }
        }
    }
}

/// How long the writer keeps looking for the next save before it sleeps. A run's saves come a
/// few tens of microseconds apart when its steps are quick (an interrupt's pause, the edit, the
/// resumed steps): waking a sleeping thread costs about as much again on a small VM, once per
/// save. Work that waits on a model leaves the writer asleep after this short look.
const LOOK_FOR_NEXT: std::time::Duration = std::time::Duration::from_micros(150);

/// The next job: at once when one is queued or comes within [`LOOK_FOR_NEXT`], else when one
/// comes. `None` once every sender is gone.
fn next_job(rx: &mpsc::Receiver<Job>) -> Option<Job> {
    let since = std::time::Instant::now();
    loop {
        match rx.try_recv() {
            Ok(job) => return Some(job),
            Err(mpsc::TryRecvError::Disconnected) => return None,
            Err(mpsc::TryRecvError::Empty) if since.elapsed() < LOOK_FOR_NEXT => {
                // Lets a runnable thread have the core (two cores: it may be the one saving).
                std::thread::yield_now();
            }
            Err(mpsc::TryRecvError::Empty) => return rx.recv().ok(),
        }
    }
}

fn writer_loop(mut conn: Connection, durability: Durability, rx: mpsc::Receiver<Job>) {
    // The `synchronous` setting the connection has now (set per batch, only when it changes).
    let mut lazy_now: Option<bool> = None;
    while let Some(first) = next_job(&rx) {
        // Take everything queued so far: one transaction, one flush, for all of it.
        let mut batch = vec![first];
        while let Ok(job) = rx.try_recv() {
            batch.push(job);
        }
        // A batch of saves that may wait for the next flush commits without one (it still
        // survives the process being killed); the next flushing commit syncs the whole log.
        let lazy = durability == Durability::Full && batch.iter().all(|j| !j.flush);
        let mut outcomes: Vec<Result<(), CheckpointError>> = Vec::with_capacity(batch.len());
        let result = (|| -> rusqlite::Result<()> {
            if durability == Durability::Full && lazy_now != Some(lazy) {
                // Each batch gets its own setting, never the one the batch before left.
                conn.pragma_update(None, "synchronous", if lazy { "NORMAL" } else { "FULL" })?;
                lazy_now = Some(lazy);
            }
            let mut tx =
                conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            for job in &batch {
                // One savepoint per job: a job that fails half-way leaves none of its rows in
                // the commit the other jobs share.
                let sp = tx.savepoint()?;
                let outcome = apply(&sp, &job.work);
                if outcome.is_ok() {
                    sp.commit()?;
                }
                // Dropping an uncommitted savepoint rolls it back.
                outcomes.push(outcome);
            }
            tx.commit()
        })();
        for (job, outcome) in batch.into_iter().zip(
            outcomes
                .into_iter()
                .chain(std::iter::repeat_with(|| Ok(()))),
        ) {
            let reply = match &result {
                Ok(()) => outcome,
                Err(e) if crate::sessions::is_disk_full(e) => Err(CheckpointError::DiskFull),
                Err(e) => Err(storage(e)),
            };
            let _ = job.done.send(reply);
        }
    }
}

fn row_to_record(thread: &ThreadId, row: &rusqlite::Row<'_>) -> rusqlite::Result<CheckpointRecord> {
    Ok(CheckpointRecord {
        thread_id: thread.clone(),
        seq: row.get::<_, i64>(0)? as u64,
        created_at_ms: row.get(1)?,
        body: row.get(2)?,
        snapshot: row.get(3)?,
    })
}

#[async_trait]
impl Checkpointer for SqliteCheckpointer {
    async fn put_checkpoint(
        &self,
        checkpoint: CheckpointRecord,
        writes: Vec<WriteRecord>,
    ) -> Result<(), CheckpointError> {
        self.submit(Work::Checkpoint(checkpoint, writes), true)
            .await
    }

    async fn put_writes(&self, writes: Vec<WriteRecord>) -> Result<(), CheckpointError> {
        if writes.is_empty() {
            return Ok(());
        }
        self.submit(Work::Writes(writes), true).await
    }

    async fn put_checkpoint_unflushed(
        &self,
        checkpoint: CheckpointRecord,
        writes: Vec<WriteRecord>,
    ) -> Result<(), CheckpointError> {
        self.submit(Work::Checkpoint(checkpoint, writes), false)
            .await
    }

    async fn put_writes_unflushed(&self, writes: Vec<WriteRecord>) -> Result<(), CheckpointError> {
        if writes.is_empty() {
            return Ok(());
        }
        self.submit(Work::Writes(writes), false).await
    }

    async fn flush(&self) -> Result<(), CheckpointError> {
        let Some(wal) = &self.wal else {
            return Ok(());
        };
        // Syncing the log file syncs every commit in it, whichever connection wrote it (through
        // a handle for writing: Windows syncs no other). The log exists while this store is open.
        std::fs::OpenOptions::new()
            .write(true)
            .open(wal)
            .and_then(|file| file.sync_data())
            .map_err(|e| storage(format!("could not flush {}: {e}", wal.display())))
    }

    async fn load(
        &self,
        thread: &ThreadId,
        seq: Option<u64>,
    ) -> Result<Option<CheckpointChain>, CheckpointError> {
        let chain = self.read(|conn| {
            let target: Option<i64> = match seq {
                Some(s) => conn
                    .query_row("SELECT seq FROM checkpoints WHERE thread_id = ?1 AND seq = ?2", params![thread.as_str(), s as i64], |r| r.get(0))
                    .optional()?,
                None => conn.query_row("SELECT max(seq) FROM checkpoints WHERE thread_id = ?1", [thread.as_str()], |r| r.get(0))?,
            };
            let Some(target) = target else { return Ok(None) };
            let start: Option<i64> = conn.query_row(
                "SELECT max(seq) FROM checkpoints WHERE thread_id = ?1 AND seq <= ?2 AND snapshot IS NOT NULL",
                params![thread.as_str(), target],
                |r| r.get(0),
            )?;
            let Some(start) = start else { return Ok(None) };
            let mut stmt = conn.prepare_cached(
                "SELECT seq, created_at_ms, body, CASE WHEN seq = ?2 THEN snapshot END
                 FROM checkpoints WHERE thread_id = ?1 AND seq BETWEEN ?2 AND ?3 ORDER BY seq",
            )?;
            let checkpoints = stmt
                .query_map(params![thread.as_str(), start, target], |row| row_to_record(thread, row))?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            let mut stmt = conn.prepare_cached(
                "SELECT checkpoint, task, kind, idx, value FROM writes
                 WHERE thread_id = ?1 AND checkpoint BETWEEN ?2 AND ?3 ORDER BY checkpoint, task, kind, idx",
            )?;
            let writes = stmt
                .query_map(params![thread.as_str(), start, target], |row| {
                    Ok((row.get::<_, i64>(0)?, row.get::<_, i64>(1)?, row.get::<_, i64>(2)?, row.get::<_, i64>(3)?, row.get::<_, Vec<u8>>(4)?))
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(Some((checkpoints, writes)))
        })?;
        let Some((checkpoints, raw)) = chain else {
            return Ok(None);
        };
        let writes = raw
            .into_iter()
            .map(|(checkpoint, task, kind, idx, value)| {
                Ok(WriteRecord {
                    thread_id: thread.clone(),
                    checkpoint: checkpoint as u64,
                    task,
                    kind: kind_from(kind)?,
                    idx: idx as u32,
                    value,
                })
            })
            .collect::<Result<Vec<_>, CheckpointError>>()?;
        Ok(Some(CheckpointChain {
            checkpoints,
            writes,
        }))
    }

    async fn list(&self, thread: &ThreadId) -> Result<Vec<CheckpointRecord>, CheckpointError> {
        self.read(|conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT seq, created_at_ms, body, NULL FROM checkpoints WHERE thread_id = ?1 ORDER BY seq",
            )?;
            let rows = stmt.query_map([thread.as_str()], |row| row_to_record(thread, row))?;
            rows.collect()
        })
    }

    async fn threads(&self) -> Result<Vec<ThreadId>, CheckpointError> {
        self.read(|conn| {
            let mut stmt = conn
                .prepare_cached("SELECT DISTINCT thread_id FROM checkpoints ORDER BY thread_id")?;
            let rows = stmt.query_map([], |row| Ok(ThreadId(row.get(0)?)))?;
            rows.collect()
        })
    }

    async fn delete_thread(&self, thread: &ThreadId) -> Result<(), CheckpointError> {
        // Deletion goes through the reader connection: it is rare, and WAL lets it wait its turn.
        self.read(|conn| {
            conn.execute("DELETE FROM writes WHERE thread_id = ?1", [thread.as_str()])?;
            conn.execute(
                "DELETE FROM checkpoints WHERE thread_id = ?1",
                [thread.as_str()],
            )?;
            Ok(())
        })
    }
}
