//! Reading and editing a saved thread without running it: its state at a checkpoint, its
//! history, a caller's update, a fork (LangGraph's `get_state`, `get_state_history`,
//! `update_state` and time travel).
//!
//! These need a checkpointer, never run a node and never take a step: they read a thread through
//! the same rebuild a resumed run uses and write the same records, so they sit beside the run
//! rather than inside the loop that makes the checkpoints.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::checkpoint::{CheckpointRecord, ThreadId, WriteKind, WHOLE_STEP};
use crate::ctx::Clock;
use crate::error::GraphError;
use crate::event::Interrupt;
use crate::graph::CompiledGraph;
use crate::persist::Body;
use crate::state::State;

/// Where a thread stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThreadStatus {
    /// Reached END.
    Finished,
    /// Waits for an answer or a release.
    Interrupted,
    /// Stopped part-way (crash, failure, cancel, recursion limit); resume continues it.
    Unfinished,
}

/// A thread's state at one checkpoint.
#[derive(Debug, Clone)]
pub struct ThreadState<S> {
    /// The checkpoint.
    pub checkpoint: u64,
    /// Supersteps taken before it.
    pub step: u64,
    /// The state (with any caller updates applied).
    pub state: S,
    /// Nodes of the step to run next, in task order.
    pub next: Vec<String>,
    /// Indexes of those tasks that already finished (their writes are saved).
    pub finished_tasks: Vec<u32>,
    /// Questions waiting for answers.
    pub interrupts: Vec<Interrupt>,
    /// Summary.
    pub status: ThreadStatus,
}

/// One line of a thread's history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct CheckpointInfo {
    /// Sequence number.
    pub checkpoint: u64,
    /// Supersteps taken before it.
    pub step: u64,
    /// When it was saved.
    pub created_at_ms: i64,
    /// Nodes scheduled at it.
    pub next: Vec<String>,
    /// Serialised size of the checkpoint record (body, without any snapshot).
    pub body_bytes: usize,
}

impl<S: State, C: Send + Sync + 'static> CompiledGraph<S, C> {
    /// Applies `update` to the latest checkpoint of a thread without running it (LangGraph's `update_state`).
    pub async fn update_state(
        &self,
        thread: &ThreadId,
        update: S::Update,
    ) -> Result<(), GraphError> {
        let cp = self
            .checkpointer
            .as_ref()
            .ok_or(GraphError::NoCheckpointer)?;
        let chain = cp
            .load(thread, None)
            .await?
            .ok_or_else(|| GraphError::ThreadNotFound(thread.to_string()))?;
        let cursor = self.rebuild(chain)?;
        let write = self.write(
            thread,
            cursor.seq,
            WHOLE_STEP,
            WriteKind::StateUpdate,
            cursor.state_updates,
            &update,
        )?;
        cp.put_writes(vec![write]).await?;
        Ok(())
    }

    /// The thread's state at checkpoint `seq` (the latest when `None`).
    pub async fn get_state(
        &self,
        thread: &ThreadId,
        seq: Option<u64>,
    ) -> Result<ThreadState<S>, GraphError> {
        let cp = self
            .checkpointer
            .as_ref()
            .ok_or(GraphError::NoCheckpointer)?;
        let chain = cp
            .load(thread, seq)
            .await?
            .ok_or_else(|| GraphError::ThreadNotFound(thread.to_string()))?;
        let cursor = self.rebuild(chain)?;
        let interrupts = self.pending_interrupts(&cursor);
        let status = if cursor.tasks.is_empty() {
            ThreadStatus::Finished
        } else if !interrupts.is_empty() {
            ThreadStatus::Interrupted
        } else {
            ThreadStatus::Unfinished
        };
        Ok(ThreadState {
            checkpoint: cursor.seq,
            step: cursor.step,
            next: cursor
                .tasks
                .iter()
                .map(|t| self.nodes[t.node].name.to_string())
                .collect(),
            finished_tasks: cursor
                .done
                .iter()
                .enumerate()
                .filter(|(_, d)| d.is_some())
                .map(|(i, _)| i as u32)
                .collect(),
            interrupts,
            status,
            state: Arc::unwrap_or_clone(cursor.state),
        })
    }

    /// The thread's checkpoints, oldest first.
    pub async fn history(&self, thread: &ThreadId) -> Result<Vec<CheckpointInfo>, GraphError> {
        let cp = self
            .checkpointer
            .as_ref()
            .ok_or(GraphError::NoCheckpointer)?;
        let records = cp.list(thread).await?;
        if records.is_empty() {
            return Err(GraphError::ThreadNotFound(thread.to_string()));
        }
        records
            .into_iter()
            .map(|r| {
                let body: Body = serde_json::from_slice(&r.body)?;
                Ok(CheckpointInfo {
                    checkpoint: r.seq,
                    step: body.step,
                    created_at_ms: r.created_at_ms,
                    next: body.tasks.into_iter().map(|t| t.node).collect(),
                    body_bytes: r.body.len(),
                })
            })
            .collect()
    }

    /// Starts thread `into` from checkpoint `seq` of `thread`: the state and the scheduled step are
    /// copied, so the fork re-runs that step and goes its own way from there.
    pub async fn fork(
        &self,
        thread: &ThreadId,
        seq: u64,
        into: &ThreadId,
        clock: &dyn Clock,
    ) -> Result<(), GraphError> {
        let cp = self
            .checkpointer
            .as_ref()
            .ok_or(GraphError::NoCheckpointer)?;
        if cp.load(into, None).await?.is_some() {
            return Err(GraphError::ThreadExists(into.to_string()));
        }
        let chain = cp
            .load(thread, Some(seq))
            .await?
            .ok_or_else(|| GraphError::ThreadNotFound(format!("{thread} at checkpoint {seq}")))?;
        let cursor = self.rebuild(chain)?;
        let body = Body {
            step: cursor.step,
            tasks: self.specs(&cursor.tasks),
        };
        cp.put_checkpoint(
            CheckpointRecord {
                thread_id: into.clone(),
                seq: 0,
                created_at_ms: clock.now_ms(),
                body: serde_json::to_vec(&body)?,
                snapshot: Some(serde_json::to_vec(&*cursor.state)?),
            },
            Vec::new(),
        )
        .await?;
        Ok(())
    }
}
