//! The engine's checkpoints on PostgreSQL (LangGraph's `PostgresSaver`).

use async_trait::async_trait;
use research_graph::{
    CheckpointChain, CheckpointError, CheckpointRecord, Checkpointer, ThreadId, WriteKind,
    WriteRecord,
};

use crate::db::{Db, Failure};
use crate::PgError;

fn kind_from(code: i16) -> Result<WriteKind, CheckpointError> {
    WriteKind::from_code(i64::from(code))
        .ok_or_else(|| storage(format!("unknown write kind {code}")))
}

fn storage(e: impl std::fmt::Display) -> CheckpointError {
    CheckpointError::Storage(e.to_string())
}

/// A failure as the engine reads it: a full disk is said as such (the run resumes once there
/// is room); a lost connection names the server.
fn failed(f: Failure) -> CheckpointError {
    if f.disk_full() {
        CheckpointError::DiskFull
    } else {
        CheckpointError::Storage(f.message())
    }
}

fn db(e: tokio_postgres::Error) -> CheckpointError {
    failed(Failure::Sql(e))
}

/// Checkpoints on a PostgreSQL server, durable on return (a commit is acknowledged after the
/// server's WAL flush, `synchronous_commit` as the server sets it).
pub struct PgCheckpointer {
    db: Db,
}

impl PgCheckpointer {
    /// A store at `url` (`postgres://user@host/db`, or `host=/run/postgresql dbname=research`).
    /// Nothing is connected yet: the first call connects and brings the schema up to date.
    pub fn connect_lazy(url: &str) -> Result<Self, PgError> {
        Ok(Self {
            db: Db::lazy(url, 8)?,
        })
    }

    /// A pooled connection, the schema brought up to date first.
    async fn client(&self) -> Result<deadpool_postgres::Object, CheckpointError> {
        self.db.client().await.map_err(failed)
    }
}

async fn insert_writes(
    tx: &deadpool_postgres::Transaction<'_>,
    writes: &[WriteRecord],
) -> Result<(), CheckpointError> {
    if writes.is_empty() {
        return Ok(());
    }
    let stmt = tx
        .prepare_cached(
            "INSERT INTO writes (thread_id, checkpoint, task, kind, idx, value)
             VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (thread_id, checkpoint, task, kind, idx) DO UPDATE SET value = EXCLUDED.value",
        )
        .await
        .map_err(db)?;
    for w in writes {
        tx.execute(
            &stmt,
            &[
                &w.thread_id.as_str(),
                &(w.checkpoint as i64),
                &w.task,
                &w.kind.code(),
                &(w.idx as i32),
                &w.value,
            ],
        )
        .await
        .map_err(db)?;
    }
    Ok(())
}

fn record(thread: &ThreadId, row: &tokio_postgres::Row) -> CheckpointRecord {
    CheckpointRecord {
        thread_id: thread.clone(),
        seq: row.get::<_, i64>(0) as u64,
        created_at_ms: row.get(1),
        body: row.get(2),
        snapshot: row.get(3),
    }
}

// Every save waits for the server's log flush: the unflushed saves keep the trait's defaults,
// since an explicit flush would need a transaction that writes to the log (one that only takes
// an id commits without waiting), and a commit here costs its round trips more than its flush.
#[async_trait]
impl Checkpointer for PgCheckpointer {
    async fn put_checkpoint(
        &self,
        checkpoint: CheckpointRecord,
        writes: Vec<WriteRecord>,
    ) -> Result<(), CheckpointError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(db)?;
        let inserted = tx
            .execute(
                "INSERT INTO checkpoints (thread_id, seq, created_at_ms, body, snapshot)
                 VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
                &[
                    &checkpoint.thread_id.as_str(),
                    &(checkpoint.seq as i64),
                    &checkpoint.created_at_ms,
                    &checkpoint.body,
                    &checkpoint.snapshot,
                ],
            )
            .await
            .map_err(db)?;
        if inserted == 0 {
            return Err(CheckpointError::Conflict {
                thread: checkpoint.thread_id,
                seq: checkpoint.seq,
            });
        }
        insert_writes(&tx, &writes).await?;
        tx.commit().await.map_err(db)
    }

    async fn put_writes(&self, writes: Vec<WriteRecord>) -> Result<(), CheckpointError> {
        if writes.is_empty() {
            return Ok(());
        }
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(db)?;
        insert_writes(&tx, &writes).await?;
        tx.commit().await.map_err(db)
    }

    async fn load(
        &self,
        thread: &ThreadId,
        seq: Option<u64>,
    ) -> Result<Option<CheckpointChain>, CheckpointError> {
        let client = self.client().await?;
        let id = thread.as_str();
        let target: Option<i64> = match seq {
            Some(s) => client
                .query_opt(
                    "SELECT seq FROM checkpoints WHERE thread_id = $1 AND seq = $2",
                    &[&id, &(s as i64)],
                )
                .await
                .map_err(db)?
                .map(|r| r.get(0)),
            None => client
                .query_one(
                    "SELECT max(seq) FROM checkpoints WHERE thread_id = $1",
                    &[&id],
                )
                .await
                .map_err(db)?
                .get(0),
        };
        let Some(target) = target else {
            return Ok(None);
        };
        let start: Option<i64> = client
            .query_one(
                "SELECT max(seq) FROM checkpoints WHERE thread_id = $1 AND seq <= $2 AND snapshot IS NOT NULL",
                &[&id, &target],
            )
            .await
            .map_err(db)?
            .get(0);
        let Some(start) = start else {
            return Ok(None);
        };
        let checkpoints = client
            .query(
                "SELECT seq, created_at_ms, body, CASE WHEN seq = $2 THEN snapshot END
                 FROM checkpoints WHERE thread_id = $1 AND seq BETWEEN $2 AND $3 ORDER BY seq",
                &[&id, &start, &target],
            )
            .await
            .map_err(db)?
            .iter()
            .map(|r| record(thread, r))
            .collect();
        let writes = client
            .query(
                "SELECT checkpoint, task, kind, idx, value FROM writes
                 WHERE thread_id = $1 AND checkpoint BETWEEN $2 AND $3
                 ORDER BY checkpoint, task, kind, idx",
                &[&id, &start, &target],
            )
            .await
            .map_err(db)?
            .iter()
            .map(|r| {
                Ok(WriteRecord {
                    thread_id: thread.clone(),
                    checkpoint: r.get::<_, i64>(0) as u64,
                    task: r.get(1),
                    kind: kind_from(r.get(2))?,
                    idx: r.get::<_, i32>(3) as u32,
                    value: r.get(4),
                })
            })
            .collect::<Result<Vec<_>, CheckpointError>>()?;
        Ok(Some(CheckpointChain {
            checkpoints,
            writes,
        }))
    }

    async fn list(&self, thread: &ThreadId) -> Result<Vec<CheckpointRecord>, CheckpointError> {
        let client = self.client().await?;
        Ok(client
            .query(
                "SELECT seq, created_at_ms, body, NULL::BYTEA FROM checkpoints WHERE thread_id = $1 ORDER BY seq",
                &[&thread.as_str()],
            )
            .await
            .map_err(db)?
            .iter()
            .map(|r| record(thread, r))
            .collect())
    }

    async fn threads(&self) -> Result<Vec<ThreadId>, CheckpointError> {
        let client = self.client().await?;
        Ok(client
            .query(
                "SELECT DISTINCT thread_id FROM checkpoints ORDER BY thread_id",
                &[],
            )
            .await
            .map_err(db)?
            .iter()
            .map(|r| ThreadId(r.get(0)))
            .collect())
    }

    async fn delete_thread(&self, thread: &ThreadId) -> Result<(), CheckpointError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(db)?;
        tx.execute(
            "DELETE FROM writes WHERE thread_id = $1",
            &[&thread.as_str()],
        )
        .await
        .map_err(db)?;
        tx.execute(
            "DELETE FROM checkpoints WHERE thread_id = $1",
            &[&thread.as_str()],
        )
        .await
        .map_err(db)?;
        tx.commit().await.map_err(db)
    }
}
