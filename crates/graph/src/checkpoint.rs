//! The [`Checkpointer`] seam: where a thread's checkpoints and task writes are kept.
//!
//! The engine speaks to storage only through this trait, in bytes and ids, so that the in-memory
//! store used by tests and the SQLite store used by the app obey one contract (and one
//! conformance suite, see `research_graph::conformance`).
//!
//! A thread is a sequence of checkpoints numbered 0, 1, 2, … . Checkpoint *n* records the tasks
//! of superstep *n*; the writes of those tasks are saved under *n* as each task finishes. The
//! state is not copied into every checkpoint: it is rebuilt from the nearest *snapshot* plus the
//! writes after it, and the engine writes a new snapshot only when the writes since the last one
//! outweigh it, so that the bytes written per step do not grow with the number of steps taken.

use std::collections::HashMap;
use std::fmt;
use std::sync::Mutex;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

/// The id of a thread: one run of a graph and its resumptions.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, ts_rs::TS)]
pub struct ThreadId(pub String);

impl ThreadId {
    /// Wraps a string.
    pub fn new(id: impl Into<String>) -> Self {
        Self(id.into())
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ThreadId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for ThreadId {
    fn from(s: &str) -> Self {
        Self(s.to_string())
    }
}

/// Who made a task write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WriteKind {
    /// A task's state update.
    Update,
    /// A task raised an interrupt (value: the payload).
    Interrupt,
    /// The caller answered an interrupt (value: the answer).
    Resume,
    /// A task failed (value: the error message); it runs again on resume.
    Error,
    /// The caller changed the state before resuming (value: the update). Whole-step.
    StateUpdate,
    /// The run paused before or after a node (static interrupt). Whole-step.
    Pause,
    /// The pause was released by a resume. Whole-step.
    Release,
}

impl WriteKind {
    /// The number a store keeps the kind as (the same in every store, so a thread moves).
    pub fn code(self) -> i16 {
        match self {
            WriteKind::Update => 0,
            WriteKind::Interrupt => 1,
            WriteKind::Resume => 2,
            WriteKind::Error => 3,
            WriteKind::StateUpdate => 4,
            WriteKind::Pause => 5,
            WriteKind::Release => 6,
        }
    }

    /// The kind a store kept as `code`; `None` for a number this version does not know.
    pub fn from_code(code: i64) -> Option<Self> {
        Some(match code {
            0 => WriteKind::Update,
            1 => WriteKind::Interrupt,
            2 => WriteKind::Resume,
            3 => WriteKind::Error,
            4 => WriteKind::StateUpdate,
            5 => WriteKind::Pause,
            6 => WriteKind::Release,
            _ => return None,
        })
    }
}

/// The task index used by writes that belong to the whole step rather than one task.
pub const WHOLE_STEP: i64 = -1;

/// One saved write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteRecord {
    /// The thread.
    pub thread_id: ThreadId,
    /// The checkpoint whose step the write belongs to.
    pub checkpoint: u64,
    /// Task index within the step, or [`WHOLE_STEP`].
    pub task: i64,
    /// What kind of write.
    pub kind: WriteKind,
    /// Order among writes of the same task and kind (e.g. the n-th interrupt).
    pub idx: u32,
    /// Serialised value.
    pub value: Vec<u8>,
}

/// One saved checkpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckpointRecord {
    /// The thread.
    pub thread_id: ThreadId,
    /// Position in the thread, from 0.
    pub seq: u64,
    /// When it was written (ms since the epoch, from the run's clock).
    pub created_at_ms: i64,
    /// The engine's description of the step (tasks to run, step number); opaque here.
    pub body: Vec<u8>,
    /// The full state, when this checkpoint carries a snapshot.
    pub snapshot: Option<Vec<u8>>,
}

/// What is needed to rebuild the state at one checkpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckpointChain {
    /// Checkpoints from the nearest snapshot (first, `snapshot` set) to the target (last), in order.
    pub checkpoints: Vec<CheckpointRecord>,
    /// The writes of those checkpoints, ordered by (checkpoint, task, kind, idx).
    pub writes: Vec<WriteRecord>,
}

/// Why the store failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CheckpointError {
    /// The database reported an error.
    #[error("the checkpoint store failed: {0}")]
    Storage(String),
    /// A checkpoint with this thread and sequence number exists already (two writers on one thread).
    #[error("checkpoint {seq} of thread {thread} was already written; is another process running this thread?")]
    Conflict {
        /// The thread.
        thread: ThreadId,
        /// The sequence number.
        seq: u64,
    },
    /// The store's background writer is gone.
    #[error("the checkpoint store is closed")]
    Closed,
    /// The disk (or the store's size limit) is full: nothing was written; what was saved
    /// before is intact, so the thread resumes once there is room.
    #[error("the disk holding the checkpoints is full")]
    DiskFull,
}

/// Durable storage of threads.
#[async_trait]
pub trait Checkpointer: Send + Sync + 'static {
    /// Saves a checkpoint and, atomically with it, `writes` of the same thread (typically the
    /// write of the step that just finished, and a pause at the new checkpoint).
    async fn put_checkpoint(
        &self,
        checkpoint: CheckpointRecord,
        writes: Vec<WriteRecord>,
    ) -> Result<(), CheckpointError>;

    /// Saves task writes of a step in progress. When this returns, they are durable.
    async fn put_writes(&self, writes: Vec<WriteRecord>) -> Result<(), CheckpointError>;

    /// Like [`put_checkpoint`](Self::put_checkpoint), for a checkpoint the run follows with a
    /// durable write (or [`flush`](Self::flush)) before it tells its caller anything: the input
    /// checkpoint of a new thread. When this returns it must survive the process being killed;
    /// surviving a power loss may wait for that next durable write, which saves a store that
    /// flushes its disk per commit one flush per run.
    async fn put_checkpoint_unflushed(
        &self,
        checkpoint: CheckpointRecord,
        writes: Vec<WriteRecord>,
    ) -> Result<(), CheckpointError> {
        self.put_checkpoint(checkpoint, writes).await
    }

    /// Like [`put_writes`](Self::put_writes), on the terms of
    /// [`put_checkpoint_unflushed`](Self::put_checkpoint_unflushed): answers saved just before
    /// the step they resume.
    async fn put_writes_unflushed(&self, writes: Vec<WriteRecord>) -> Result<(), CheckpointError> {
        self.put_writes(writes).await
    }

    /// Makes everything saved so far survive a power loss (a store whose every write is
    /// durable on return has nothing to do).
    async fn flush(&self) -> Result<(), CheckpointError> {
        Ok(())
    }

    /// The chain that rebuilds checkpoint `seq` (the latest when `None`), or `None` when the
    /// thread (or that checkpoint) does not exist.
    async fn load(
        &self,
        thread: &ThreadId,
        seq: Option<u64>,
    ) -> Result<Option<CheckpointChain>, CheckpointError>;

    /// Every checkpoint of a thread, oldest first, without snapshots.
    async fn list(&self, thread: &ThreadId) -> Result<Vec<CheckpointRecord>, CheckpointError>;

    /// Every thread with at least one checkpoint.
    async fn threads(&self) -> Result<Vec<ThreadId>, CheckpointError>;

    /// Removes a thread with its checkpoints and writes.
    async fn delete_thread(&self, thread: &ThreadId) -> Result<(), CheckpointError>;
}

#[derive(Default)]
struct MemoryThread {
    checkpoints: Vec<CheckpointRecord>,
    writes: Vec<WriteRecord>,
}

/// Keeps threads in memory (LangGraph's `MemorySaver`): for tests and throwaway runs.
#[derive(Default)]
pub struct MemoryCheckpointer {
    threads: Mutex<HashMap<ThreadId, MemoryThread>>,
}

impl MemoryCheckpointer {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn with<T>(
        &self,
        f: impl FnOnce(&mut HashMap<ThreadId, MemoryThread>) -> T,
    ) -> Result<T, CheckpointError> {
        let mut guard = self
            .threads
            .lock()
            .map_err(|_| CheckpointError::Storage("lock poisoned".into()))?;
        Ok(f(&mut guard))
    }
}

fn upsert_write(writes: &mut Vec<WriteRecord>, write: WriteRecord) {
    // Same key replaces, as the SQLite store's primary key does.
    if let Some(existing) = writes.iter_mut().find(|w| {
        w.checkpoint == write.checkpoint
            && w.task == write.task
            && w.kind == write.kind
            && w.idx == write.idx
    }) {
        *existing = write;
    } else {
        writes.push(write);
    }
}

#[async_trait]
impl Checkpointer for MemoryCheckpointer {
    async fn put_checkpoint(
        &self,
        checkpoint: CheckpointRecord,
        writes: Vec<WriteRecord>,
    ) -> Result<(), CheckpointError> {
        self.with(|threads| {
            let thread = threads.entry(checkpoint.thread_id.clone()).or_default();
            if thread.checkpoints.iter().any(|c| c.seq == checkpoint.seq) {
                return Err(CheckpointError::Conflict {
                    thread: checkpoint.thread_id,
                    seq: checkpoint.seq,
                });
            }
            for write in writes {
                upsert_write(&mut thread.writes, write);
            }
            thread.checkpoints.push(checkpoint);
            thread.checkpoints.sort_by_key(|c| c.seq);
            Ok(())
        })?
    }

    async fn put_writes(&self, writes: Vec<WriteRecord>) -> Result<(), CheckpointError> {
        self.with(|threads| {
            for write in writes {
                let thread = threads.entry(write.thread_id.clone()).or_default();
                upsert_write(&mut thread.writes, write);
            }
        })
    }

    async fn load(
        &self,
        thread: &ThreadId,
        seq: Option<u64>,
    ) -> Result<Option<CheckpointChain>, CheckpointError> {
        self.with(|threads| {
            let t = threads.get(thread)?;
            let target = match seq {
                Some(seq) => t.checkpoints.iter().position(|c| c.seq == seq)?,
                None => t.checkpoints.len().checked_sub(1)?,
            };
            let start = t.checkpoints[..=target]
                .iter()
                .rposition(|c| c.snapshot.is_some())?;
            let checkpoints = t.checkpoints[start..=target].to_vec();
            let (lo, hi) = (checkpoints[0].seq, checkpoints[checkpoints.len() - 1].seq);
            let mut writes: Vec<WriteRecord> = t
                .writes
                .iter()
                .filter(|w| w.checkpoint >= lo && w.checkpoint <= hi)
                .cloned()
                .collect();
            writes.sort_by(|a, b| {
                (a.checkpoint, a.task, a.kind, a.idx).cmp(&(b.checkpoint, b.task, b.kind, b.idx))
            });
            Some(CheckpointChain {
                checkpoints,
                writes,
            })
        })
    }

    async fn list(&self, thread: &ThreadId) -> Result<Vec<CheckpointRecord>, CheckpointError> {
        self.with(|threads| {
            threads
                .get(thread)
                .map(|t| {
                    t.checkpoints
                        .iter()
                        .map(|c| CheckpointRecord {
                            snapshot: None,
                            ..c.clone()
                        })
                        .collect()
                })
                .unwrap_or_default()
        })
    }

    async fn threads(&self) -> Result<Vec<ThreadId>, CheckpointError> {
        self.with(|threads| {
            let mut ids: Vec<ThreadId> = threads.keys().cloned().collect();
            ids.sort();
            ids
        })
    }

    async fn delete_thread(&self, thread: &ThreadId) -> Result<(), CheckpointError> {
        self.with(|threads| {
            threads.remove(thread);
        })
    }
}
