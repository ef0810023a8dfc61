//! The superstep loop: step after step until the thread ends, asks, pauses, fails or is cancelled.
//!
//! Like LangGraph's `_loop.py`, this is where a step's outcome becomes the thread's next
//! checkpoint: it checks for cancel, the recursion limit and static pauses before a step, has the
//! runner run the step, turns the tasks' ends into a failure, questions or a fold of the writes,
//! schedules the next step and saves it. It owns the [`Cursor`], the thread in memory between
//! steps; the rules it applies are in [`algo`](crate::algo), the saving in
//! [`persist`](crate::persist), the running of nodes in [`runner`](crate::runner).

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::algo::Task;
use crate::checkpoint::{WriteKind, WriteRecord, WHOLE_STEP};
use crate::error::GraphError;
use crate::event::{emit, Event, InterruptKind};
use crate::graph::CompiledGraph;
use crate::persist::PauseRecord;
use crate::run::{RunOptions, RunOutcome};
use crate::runner::TaskEnd;
use crate::state::State;

/// How long a save may stay unflushed while the step after it runs. A step of microseconds is
/// followed by its own flushing save, which covers the one before; a step that waits on a model
/// for seconds should not leave the thread's input at the mercy of a power loss meanwhile.
const FLUSH_WITHIN: Duration = Duration::from_millis(50);

/// A thread in memory between steps.
pub(crate) struct Cursor<S: State> {
    /// The checkpoint the thread stands at.
    pub(crate) seq: u64,
    /// Supersteps taken before it.
    pub(crate) step: u64,
    /// The state the current step's tasks see.
    pub(crate) state: Arc<S>,
    /// The current step's tasks, in task order.
    pub(crate) tasks: Vec<Task>,
    /// Each task's update, once it has finished.
    pub(crate) done: Vec<Option<S::Update>>,
    /// Each task's answers to its interrupts so far, in order.
    pub(crate) resume: Vec<Vec<Value>>,
    /// Outstanding dynamic interrupts: (task, index, payload).
    pub(crate) waiting: Vec<(usize, u32, Value)>,
    /// The static pause the thread stands at, if any.
    pub(crate) pause: Option<PauseRecord>,
    /// Caller updates saved at this checkpoint (the index of the next one).
    pub(crate) state_updates: u32,
    /// Bytes saved since the last snapshot.
    pub(crate) bytes_since_snapshot: usize,
    /// Size of the last snapshot.
    pub(crate) last_snapshot_len: usize,
    /// Writes that need no commit of their own: they travel with the next checkpoint, or are
    /// flushed when the run stops before one.
    pub(crate) carry: Vec<WriteRecord>,
    /// Something was saved without a flush (the input, answers) and nothing flushed since: the
    /// run flushes before it tells its caller anything.
    pub(crate) unflushed: bool,
}

impl<S: State, C: Send + Sync + 'static> CompiledGraph<S, C> {
    /// Runs steps from `cursor` until the thread ends, asks, pauses, fails or is cancelled;
    /// `skip_before` when a static pause before this step has just been released.
    pub(crate) async fn drive(
        &self,
        mut cursor: Cursor<S>,
        opts: &RunOptions<C>,
        mut skip_before: bool,
    ) -> Result<RunOutcome<S>, GraphError> {
        let mut steps_taken: u64 = 0;
        let empty: Arc<[Value]> = Arc::from(Vec::new());
        loop {
            if cursor.tasks.is_empty() {
                self.flush(&mut cursor).await?;
                emit(&opts.events, || Event::RunFinished { steps: steps_taken });
                return Ok(RunOutcome::Finished(Arc::unwrap_or_clone(cursor.state)));
            }
            if opts.cancel.is_cancelled() {
                self.flush(&mut cursor).await?;
                emit(&opts.events, || Event::RunCancelled);
                return Ok(RunOutcome::Cancelled(Arc::unwrap_or_clone(cursor.state)));
            }
            if steps_taken as usize >= opts.recursion_limit {
                self.flush(&mut cursor).await?;
                let error = GraphError::RecursionLimit {
                    limit: opts.recursion_limit,
                };
                emit(&opts.events, || Event::RunFailed {
                    error: error.to_string(),
                });
                return Err(error);
            }
            if !skip_before {
                if let Some(pause) = self.pause_before(&cursor) {
                    return self.pause(cursor, opts, pause, false).await;
                }
            }
            skip_before = false;

            let step = self.run_step(&cursor, opts, &empty);
            let (ends, flushed) = match (&self.checkpointer, cursor.unflushed) {
                (Some(cp), true) => {
                    tokio::pin!(step);
                    tokio::select! {
                        biased;
                        ends = &mut step => (ends, false),
                        () = tokio::time::sleep(FLUSH_WITHIN) => {
                            // A flush that fails here is not the step's failure: the step's own
                            // save (or the flush before the run returns) reports the disk.
                            let flushed = cp.flush().await.is_ok();
                            (step.await, flushed)
                        }
                    }
                }
                _ => (step.await, false),
            };
            if flushed {
                cursor.unflushed = false;
            }
            let Some(ends) = ends else {
                self.flush(&mut cursor).await?;
                emit(&opts.events, || Event::RunCancelled);
                return Ok(RunOutcome::Cancelled(Arc::unwrap_or_clone(cursor.state)));
            };

            // Failures and interrupts, in task order.
            let mut failure = None;
            let mut deferred = None;
            for (i, end) in ends {
                match end {
                    TaskEnd::Done {
                        update,
                        saved_bytes,
                    } => {
                        match saved_bytes {
                            Some(n) => {
                                cursor.bytes_since_snapshot += n;
                                // Saved with a flush, which made what came before durable too.
                                cursor.unflushed = false;
                            }
                            None => deferred = Some(i),
                        }
                        cursor.done[i] = Some(update);
                    }
                    TaskEnd::Interrupted(payload) => {
                        // The runner saved the question with a flush.
                        cursor.unflushed = false;
                        let idx = cursor.resume[i].len() as u32;
                        cursor.waiting.push((i, idx, payload));
                    }
                    TaskEnd::Failed { attempts, message } => {
                        failure.get_or_insert(GraphError::NodeFailed {
                            node: self.nodes[cursor.tasks[i].node].name.to_string(),
                            attempts,
                            message,
                        });
                    }
                    TaskEnd::Panicked(message) => {
                        failure.get_or_insert(GraphError::NodePanicked {
                            node: self.nodes[cursor.tasks[i].node].name.to_string(),
                            message,
                        });
                    }
                    TaskEnd::SaveFailed(e) => {
                        failure.get_or_insert(GraphError::Checkpoint(e));
                    }
                }
            }
            if let (Some(i), Some(_)) = (deferred, &self.checkpointer) {
                if let Some(update) = &cursor.done[i] {
                    let w = self.write(
                        &opts.thread_id,
                        cursor.seq,
                        i as i64,
                        WriteKind::Update,
                        0,
                        update,
                    )?;
                    cursor.bytes_since_snapshot += w.value.len();
                    cursor.carry.push(w);
                }
            }
            if let Some(error) = failure {
                // Finished tasks of this step are saved already; the lone deferred write is carried.
                self.flush(&mut cursor).await?;
                emit(&opts.events, || Event::RunFailed {
                    error: error.to_string(),
                });
                return Err(error);
            }
            if !cursor.waiting.is_empty() {
                self.flush(&mut cursor).await?;
                let interrupts = self.pending_interrupts(&cursor);
                emit(&opts.events, || Event::Interrupted {
                    interrupts: interrupts.clone(),
                });
                return Ok(RunOutcome::Interrupted {
                    state: Arc::unwrap_or_clone(cursor.state),
                    interrupts,
                });
            }

            // The step is complete: fold the writes, in task order.
            let mut carried = std::mem::take(&mut cursor.carry);
            cursor.apply_writes().inspect_err(|e| {
                emit(&opts.events, || Event::RunFailed {
                    error: e.to_string(),
                });
            })?;

            let (next, after) = self.next_tasks(&cursor.tasks, &cursor.state)?;
            steps_taken += 1;
            cursor.seq += 1;
            cursor.step += 1;
            cursor.done = vec![None; next.len()];
            cursor.resume = vec![Vec::new(); next.len()];
            cursor.tasks = next;
            cursor.state_updates = 0;

            // A pause at the new checkpoint is saved with it: one commit, not two.
            let pause = if !after.is_empty() && !cursor.tasks.is_empty() {
                Some(PauseRecord {
                    kind: InterruptKind::After,
                    nodes: after,
                })
            } else {
                self.pause_before(&cursor)
            };
            if let (Some(p), Some(_)) = (&pause, &self.checkpointer) {
                carried.push(self.write(
                    &opts.thread_id,
                    cursor.seq,
                    WHOLE_STEP,
                    WriteKind::Pause,
                    0,
                    p,
                )?);
            }

            self.save_checkpoint(&mut cursor, opts, carried).await?;
            if let Some(pause) = pause {
                return self.pause(cursor, opts, pause, true).await;
            }
        }
    }

    /// Stops the run at a static pause; `saved` when the pause went out with the checkpoint.
    pub(crate) async fn pause(
        &self,
        mut cursor: Cursor<S>,
        opts: &RunOptions<C>,
        pause: PauseRecord,
        saved: bool,
    ) -> Result<RunOutcome<S>, GraphError> {
        if let (Some(_), false) = (&self.checkpointer, saved) {
            let write = self.write(
                &opts.thread_id,
                cursor.seq,
                WHOLE_STEP,
                WriteKind::Pause,
                0,
                &pause,
            )?;
            cursor.carry.push(write);
        }
        self.flush(&mut cursor).await?;
        cursor.pause = Some(pause);
        let interrupts = self.pending_interrupts(&cursor);
        emit(&opts.events, || Event::Interrupted {
            interrupts: interrupts.clone(),
        });
        Ok(RunOutcome::Interrupted {
            state: Arc::unwrap_or_clone(cursor.state),
            interrupts,
        })
    }
}
