//! What a run saves and how a thread is read back: checkpoint bodies, per-task writes, pauses,
//! snapshots, and the rebuild of a thread from its chain.
//!
//! Like the checkpoint half of LangGraph's `_loop.py` (`put_writes`, `_put_checkpoint`, restoring
//! from a saved tuple), this is the only place that knows the saved shapes, so the records a run
//! writes and the rebuild that reads them cannot drift apart. Changing a type here changes what is
//! on disk in every [`Checkpointer`](crate::Checkpointer).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::algo::Task;
use crate::checkpoint::{
    CheckpointChain, CheckpointError, CheckpointRecord, ThreadId, WriteKind, WriteRecord,
};
use crate::error::GraphError;
use crate::event::{emit, Event, InterruptKind};
use crate::graph::CompiledGraph;
use crate::run::{RunOptions, RunOutcome};
use crate::state::State;
use crate::superstep::Cursor;

/// Below this many bytes of writes since the last snapshot, no new snapshot is taken.
const SNAPSHOT_MIN_BYTES: usize = 16 * 1024;

/// A scheduled task as saved in a checkpoint body.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct TaskSpec {
    /// The node's name.
    pub(crate) node: String,
    /// The input a `Send` carried.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) input: Option<Value>,
}

/// A checkpoint's body: the steps taken before it and the step scheduled at it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Body {
    /// Supersteps taken before the checkpoint.
    pub(crate) step: u64,
    /// The tasks scheduled at it, in task order.
    pub(crate) tasks: Vec<TaskSpec>,
}

/// A static pause, saved as a [`WriteKind::Pause`] write at the checkpoint it stops before.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct PauseRecord {
    /// Before or after.
    pub(crate) kind: InterruptKind,
    /// The nodes paused at.
    pub(crate) nodes: Vec<String>,
}

impl<S: State, C: Send + Sync + 'static> CompiledGraph<S, C> {
    /// The saved form of `tasks`.
    pub(crate) fn specs(&self, tasks: &[Task]) -> Vec<TaskSpec> {
        tasks
            .iter()
            .map(|t| TaskSpec {
                node: self.nodes[t.node].name.to_string(),
                input: t.input.clone(),
            })
            .collect()
    }

    /// The checkpoint record of the cursor's current step.
    pub(crate) fn record(
        &self,
        opts: &RunOptions<C>,
        cursor: &Cursor<S>,
        snapshot: Option<Vec<u8>>,
    ) -> Result<CheckpointRecord, GraphError> {
        let body = Body {
            step: cursor.step,
            tasks: self.specs(&cursor.tasks),
        };
        Ok(CheckpointRecord {
            thread_id: opts.thread_id.clone(),
            seq: cursor.seq,
            created_at_ms: opts.clock.now_ms(),
            body: serde_json::to_vec(&body)?,
            snapshot,
        })
    }

    /// One write record, its value serialised.
    pub(crate) fn write(
        &self,
        thread: &ThreadId,
        seq: u64,
        task: i64,
        kind: WriteKind,
        idx: u32,
        value: &impl Serialize,
    ) -> Result<WriteRecord, GraphError> {
        Ok(WriteRecord {
            thread_id: thread.clone(),
            checkpoint: seq,
            task,
            kind,
            idx,
            value: serde_json::to_vec(value)?,
        })
    }

    /// Saves carried writes when the run stops before its next checkpoint, and makes what was
    /// saved without a flush durable: the run is about to tell its caller where it stands.
    pub(crate) async fn flush(&self, cursor: &mut Cursor<S>) -> Result<(), GraphError> {
        if let Some(cp) = &self.checkpointer {
            let carry = std::mem::take(&mut cursor.carry);
            if !carry.is_empty() {
                cp.put_writes(carry).await?;
            } else if cursor.unflushed {
                cp.flush().await?;
            }
            cursor.unflushed = false;
        }
        Ok(())
    }

    /// `outcome`, after a run that saved something without a flush (`unflushed`) and failed:
    /// its input or answers are flushed before the error reaches the caller (every other way
    /// out flushes on its own). A flush that fails too leaves the first error to report.
    pub(crate) async fn flushed(
        &self,
        unflushed: bool,
        outcome: Result<RunOutcome<S>, GraphError>,
    ) -> Result<RunOutcome<S>, GraphError> {
        if let (true, Err(_), Some(cp)) = (unflushed, &outcome, &self.checkpointer) {
            let _ = cp.flush().await;
        }
        outcome
    }

    /// Saves the checkpoint the loop has just reached, with the writes carried to it; a snapshot
    /// of the state goes with it once the writes since the last snapshot outweigh that snapshot.
    pub(crate) async fn save_checkpoint(
        &self,
        cursor: &mut Cursor<S>,
        opts: &RunOptions<C>,
        carried: Vec<WriteRecord>,
    ) -> Result<(), GraphError> {
        if let Some(cp) = &self.checkpointer {
            let snapshot = if cursor.bytes_since_snapshot
                >= cursor.last_snapshot_len.max(SNAPSHOT_MIN_BYTES)
            {
                let bytes = serde_json::to_vec(&*cursor.state)?;
                cursor.last_snapshot_len = bytes.len();
                cursor.bytes_since_snapshot = 0;
                Some(bytes)
            } else {
                None
            };
            let record = self.record(opts, cursor, snapshot)?;
            cursor.bytes_since_snapshot += record.body.len();
            cp.put_checkpoint(record, carried).await?;
            cursor.unflushed = false;
            let seq = cursor.seq;
            emit(&opts.events, || Event::CheckpointSaved { checkpoint: seq });
        }
        Ok(())
    }

    /// Rebuilds the thread at the chain's last checkpoint: snapshot, then every finished step's
    /// writes in order, then what the last step has saved so far.
    pub(crate) fn rebuild(&self, chain: CheckpointChain) -> Result<Cursor<S>, GraphError> {
        let CheckpointChain {
            checkpoints,
            writes,
        } = chain;
        let first = checkpoints.first().ok_or_else(|| {
            GraphError::Checkpoint(CheckpointError::Storage("empty chain".into()))
        })?;
        let snapshot = first.snapshot.as_ref().ok_or_else(|| {
            GraphError::Checkpoint(CheckpointError::Storage(
                "chain does not start at a snapshot".into(),
            ))
        })?;
        let mut state: S = serde_json::from_slice(snapshot)?;
        let last_snapshot_len = snapshot.len();
        let mut bytes_since_snapshot = 0;
        let last = checkpoints.last().expect("non-empty");
        let body: Body = serde_json::from_slice(&last.body)?;
        let tasks = body
            .tasks
            .into_iter()
            .map(|t| {
                let node = *self
                    .index
                    .get(&t.node)
                    .ok_or_else(|| GraphError::UnknownSavedNode(t.node.clone()))?;
                Ok(Task {
                    node,
                    input: t.input,
                })
            })
            .collect::<Result<Vec<_>, GraphError>>()?;
        let n = tasks.len();
        let mut cursor_done: Vec<Option<S::Update>> = vec![None; n];
        let mut resume: Vec<Vec<Value>> = vec![Vec::new(); n];
        let mut interrupts: BTreeMap<(usize, u32), Value> = BTreeMap::new();
        let mut pauses: Vec<PauseRecord> = Vec::new();
        let mut releases = 0;
        let mut state_updates = 0;

        let mut w = writes.into_iter().peekable();
        for (pos, cp) in checkpoints.iter().enumerate() {
            if pos > 0 {
                bytes_since_snapshot += cp.body.len();
            }
            let is_last = cp.seq == last.seq;
            let mut step_updates: Vec<(i64, S::Update)> = Vec::new();
            while let Some(write) = w.next_if(|x| x.checkpoint == cp.seq) {
                bytes_since_snapshot += write.value.len();
                match write.kind {
                    WriteKind::StateUpdate => {
                        state.apply(vec![serde_json::from_slice(&write.value)?])?;
                        if is_last {
                            state_updates += 1;
                        }
                    }
                    WriteKind::Update => {
                        step_updates.push((write.task, serde_json::from_slice(&write.value)?))
                    }
                    _ if !is_last => {}
                    WriteKind::Resume => {
                        if let Some(r) = resume.get_mut(write.task as usize) {
                            r.push(serde_json::from_slice(&write.value)?);
                        }
                    }
                    WriteKind::Interrupt => {
                        interrupts.insert(
                            (write.task as usize, write.idx),
                            serde_json::from_slice(&write.value)?,
                        );
                    }
                    WriteKind::Pause => pauses.push(serde_json::from_slice(&write.value)?),
                    WriteKind::Release => releases += 1,
                    WriteKind::Error => {}
                }
            }
            if is_last {
                for (task, update) in step_updates {
                    if let Some(slot) = cursor_done.get_mut(task as usize) {
                        *slot = Some(update);
                    }
                }
            } else {
                step_updates.sort_by_key(|(t, _)| *t);
                state.apply(step_updates.into_iter().map(|(_, u)| u).collect())?;
            }
        }
        let waiting = interrupts
            .into_iter()
            .filter(|((task, idx), _)| {
                *task < n && *idx as usize >= resume[*task].len() && cursor_done[*task].is_none()
            })
            .map(|((task, idx), payload)| (task, idx, payload))
            .collect();
        let pause = if pauses.len() > releases {
            pauses.pop()
        } else {
            None
        };
        Ok(Cursor {
            seq: last.seq,
            step: body.step,
            state: Arc::new(state),
            tasks,
            done: cursor_done,
            resume,
            waiting,
            pause,
            state_updates,
            bytes_since_snapshot,
            last_snapshot_len,
            carry: Vec::new(),
            unflushed: false,
        })
    }
}
