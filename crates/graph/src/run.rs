//! The superstep loop: running, saving, interrupting, resuming and inspecting threads.
//!
//! Semantics follow LangGraph's Pregel loop. A step runs every scheduled task concurrently against
//! the same state snapshot; no task sees another's writes until the step ends; then the writes are
//! folded in task order (never finishing order) and the edges of the tasks that ran choose the next
//! step's tasks. With a checkpointer, each task's writes are saved as the task finishes, so a run
//! killed in the middle of a step redoes only the tasks that had not finished.

use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;

use futures::stream::FuturesUnordered;
use futures::{FutureExt, StreamExt};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::checkpoint::{
    CheckpointChain, CheckpointRecord, ThreadId, WriteKind, WriteRecord, WHOLE_STEP,
};
use crate::ctx::{Clock, NodeCtx, SystemClock};
use crate::error::{GraphError, NodeError};
use crate::event::{Event, EventSink, Interrupt, InterruptKind};
use crate::graph::{CompiledGraph, Edge, Route, TaskInput};
use crate::state::State;

/// Below this many bytes of writes since the last snapshot, no new snapshot is taken.
const SNAPSHOT_MIN_BYTES: usize = 16 * 1024;

/// Per-run settings.
pub struct RunOptions<C> {
    /// The thread to create or continue.
    pub thread_id: ThreadId,
    /// The configuration every node receives.
    pub config: Arc<C>,
    /// Who receives the run's events.
    pub events: Option<Arc<dyn EventSink>>,
    /// Cancel to stop the run; in-flight tasks are dropped, finished ones stay saved.
    pub cancel: CancellationToken,
    /// Maximum supersteps in this invocation (default 25, as LangGraph).
    pub recursion_limit: usize,
    /// Maximum tasks running at once (default 16).
    pub max_concurrency: usize,
    /// The clock used for checkpoint times and given to nodes.
    pub clock: Arc<dyn Clock>,
}

impl<C> RunOptions<C> {
    /// Defaults for `thread_id` with `config`.
    pub fn new(thread_id: impl Into<ThreadId>, config: C) -> Self {
        Self {
            thread_id: thread_id.into(),
            config: Arc::new(config),
            events: None,
            cancel: CancellationToken::new(),
            recursion_limit: 25,
            max_concurrency: 16,
            clock: Arc::new(SystemClock),
        }
    }

    /// Sends events to `sink`.
    pub fn events(mut self, sink: Arc<dyn EventSink>) -> Self {
        self.events = Some(sink);
        self
    }

    /// Sets the recursion limit.
    pub fn recursion_limit(mut self, limit: usize) -> Self {
        self.recursion_limit = limit;
        self
    }

    /// Sets the concurrency limit.
    pub fn max_concurrency(mut self, limit: usize) -> Self {
        self.max_concurrency = limit.max(1);
        self
    }

    /// Uses `cancel` as the run's cancellation token.
    pub fn cancel(mut self, cancel: CancellationToken) -> Self {
        self.cancel = cancel;
        self
    }

    /// Uses `clock`.
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }
}

impl From<String> for ThreadId {
    fn from(s: String) -> Self {
        ThreadId(s)
    }
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub enum RunOutcome<S> {
    /// The run reached END.
    Finished(S),
    /// The run stopped to ask; resume the thread with the answers.
    Interrupted {
        /// The state so far.
        state: S,
        /// The questions, in task order.
        interrupts: Vec<Interrupt>,
    },
    /// The run was cancelled; resume the thread to continue.
    Cancelled(S),
}

impl<S> RunOutcome<S> {
    /// The state at the end of the run.
    pub fn state(&self) -> &S {
        match self {
            RunOutcome::Finished(s) | RunOutcome::Cancelled(s) => s,
            RunOutcome::Interrupted { state, .. } => state,
        }
    }

    /// Takes the state.
    pub fn into_state(self) -> S {
        match self {
            RunOutcome::Finished(s) | RunOutcome::Cancelled(s) => s,
            RunOutcome::Interrupted { state, .. } => state,
        }
    }
}

/// What to continue a thread with (LangGraph's `Command(resume=…)` plus `update_state`).
#[derive(Debug, Clone)]
pub struct Resume<U> {
    /// The answer to the one pending interrupt.
    pub value: Option<Value>,
    /// Answers by interrupt id, when several interrupts wait.
    pub values: BTreeMap<String, Value>,
    /// A state update applied (with the reducers) before the run goes on.
    pub update: Option<U>,
}

impl<U> Default for Resume<U> {
    fn default() -> Self {
        Self {
            value: None,
            values: BTreeMap::new(),
            update: None,
        }
    }
}

impl<U> Resume<U> {
    /// Continue without an answer (after a crash, a cancel or a static pause).
    pub fn empty() -> Self {
        Self::default()
    }

    /// Answer the pending interrupt with `value`.
    pub fn with_value(value: impl Serialize) -> Self {
        Self {
            value: Some(serde_json::to_value(value).unwrap_or(Value::Null)),
            ..Self::default()
        }
    }

    /// Also apply `update` before continuing.
    pub fn and_update(mut self, update: U) -> Self {
        self.update = Some(update);
        self
    }
}

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

#[derive(Debug, Clone, Serialize, Deserialize)]
struct TaskSpec {
    node: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    input: Option<Value>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Body {
    step: u64,
    tasks: Vec<TaskSpec>,
}

#[derive(Debug, Clone)]
struct Task {
    node: usize,
    input: Option<Value>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct PauseRecord {
    kind: InterruptKind,
    nodes: Vec<String>,
}

/// A thread in memory between steps.
struct Cursor<S: State> {
    seq: u64,
    step: u64,
    state: Arc<S>,
    tasks: Vec<Task>,
    done: Vec<Option<S::Update>>,
    resume: Vec<Vec<Value>>,
    /// Outstanding dynamic interrupts: (task, index, payload).
    waiting: Vec<(usize, u32, Value)>,
    pause: Option<PauseRecord>,
    state_updates: u32,
    bytes_since_snapshot: usize,
    last_snapshot_len: usize,
    /// Writes that need no commit of their own: they travel with the next checkpoint, or are
    /// flushed when the run stops before one.
    carry: Vec<WriteRecord>,
}

enum TaskEnd<U> {
    Done {
        update: U,
        saved_bytes: Option<usize>,
    },
    Interrupted(Value),
    Failed {
        attempts: u32,
        message: String,
    },
    Panicked(String),
    SaveFailed(crate::checkpoint::CheckpointError),
}

impl<S: State, C: Send + Sync + 'static> CompiledGraph<S, C> {
    /// Starts a new thread from `input` and runs it until it ends, stops to ask, or is cancelled.
    pub async fn invoke(&self, input: S, opts: RunOptions<C>) -> Result<RunOutcome<S>, GraphError> {
        if let Some(cp) = &self.checkpointer {
            if cp.load(&opts.thread_id, None).await?.is_some() {
                return Err(GraphError::ThreadExists(opts.thread_id.to_string()));
            }
        }
        let state = Arc::new(input);
        let mut tasks = Vec::new();
        let mut seen = vec![false; self.nodes.len()];
        for edge in &self.start_edges {
            self.follow(crate::graph::START, edge, &state, &mut tasks, &mut seen)?;
        }
        let mut cursor = Cursor {
            seq: 0,
            step: 0,
            done: vec![None; tasks.len()],
            resume: vec![Vec::new(); tasks.len()],
            tasks,
            state,
            waiting: Vec::new(),
            pause: None,
            state_updates: 0,
            bytes_since_snapshot: 0,
            last_snapshot_len: 0,
            carry: Vec::new(),
        };
        emit(&opts.events, || Event::RunStarted {
            thread_id: opts.thread_id.clone(),
            resumed: false,
        });
        let pause = self.pause_before(&cursor);
        if let Some(cp) = &self.checkpointer {
            let snapshot = serde_json::to_vec(&*cursor.state)?;
            cursor.last_snapshot_len = snapshot.len();
            let record = self.record(&opts, &cursor, Some(snapshot))?;
            let mut writes = Vec::new();
            if let Some(p) = &pause {
                writes.push(self.write(&opts.thread_id, 0, WHOLE_STEP, WriteKind::Pause, 0, p)?);
            }
            cp.put_checkpoint(record, writes).await?;
            emit(&opts.events, || Event::CheckpointSaved { checkpoint: 0 });
        }
        if let Some(pause) = pause {
            return self.pause(cursor, &opts, pause, true).await;
        }
        self.drive(cursor, &opts, false).await
    }

    /// Continues a saved thread: after a crash, a cancel, a failure, or with answers to its interrupts.
    pub async fn resume(
        &self,
        resume: Resume<S::Update>,
        opts: RunOptions<C>,
    ) -> Result<RunOutcome<S>, GraphError> {
        let cp = self
            .checkpointer
            .as_ref()
            .ok_or(GraphError::NoCheckpointer)?;
        let chain = cp
            .load(&opts.thread_id, None)
            .await?
            .ok_or_else(|| GraphError::ThreadNotFound(opts.thread_id.to_string()))?;
        let mut cursor = self.rebuild(chain)?;
        if cursor.tasks.is_empty() {
            return Err(GraphError::AlreadyFinished(opts.thread_id.to_string()));
        }
        let mut writes = Vec::new();
        if !cursor.waiting.is_empty() {
            let mut answers = Vec::new();
            for (task, idx, _) in &cursor.waiting {
                let id = interrupt_id(cursor.seq, *task, *idx);
                let answer = match (resume.values.get(&id), &resume.value) {
                    (Some(v), _) => v.clone(),
                    (None, Some(v)) if cursor.waiting.len() == 1 => v.clone(),
                    (None, Some(_)) => {
                        return Err(GraphError::ResumeValueRequired(format!(
                            "{} questions are waiting; answer each by its id",
                            cursor.waiting.len()
                        )))
                    }
                    (None, None) => {
                        let node = &self.nodes[cursor.tasks[*task].node].name;
                        return Err(GraphError::ResumeValueRequired(format!(
                            "the run is waiting for an answer to the question from `{node}` (interrupt {id})"
                        )));
                    }
                };
                answers.push((*task, *idx, answer));
            }
            for (task, idx, answer) in answers {
                writes.push(self.write(
                    &opts.thread_id,
                    cursor.seq,
                    task as i64,
                    WriteKind::Resume,
                    idx,
                    &answer,
                )?);
                cursor.resume[task].push(answer);
            }
            cursor.waiting.clear();
        }
        if let Some(update) = resume.update {
            writes.push(self.write(
                &opts.thread_id,
                cursor.seq,
                WHOLE_STEP,
                WriteKind::StateUpdate,
                cursor.state_updates,
                &update,
            )?);
            Arc::make_mut(&mut cursor.state).apply(vec![update])?;
            cursor.state_updates += 1;
        }
        let released = cursor.pause.take().is_some();
        if released {
            cursor.carry.push(self.write(
                &opts.thread_id,
                cursor.seq,
                WHOLE_STEP,
                WriteKind::Release,
                0,
                &Value::Null,
            )?);
        }
        if !writes.is_empty() {
            cp.put_writes(writes).await?;
        }
        emit(&opts.events, || Event::RunStarted {
            thread_id: opts.thread_id.clone(),
            resumed: true,
        });
        self.drive(cursor, &opts, released).await
    }

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

    async fn drive(
        &self,
        mut cursor: Cursor<S>,
        opts: &RunOptions<C>,
        mut skip_before: bool,
    ) -> Result<RunOutcome<S>, GraphError> {
        let mut steps_taken: u64 = 0;
        let empty: Arc<[Value]> = Arc::from(Vec::new());
        loop {
            if cursor.tasks.is_empty() {
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

            let ends = self.run_step(&cursor, opts, &empty).await;
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
                            Some(n) => cursor.bytes_since_snapshot += n,
                            None => deferred = Some(i),
                        }
                        cursor.done[i] = Some(update);
                    }
                    TaskEnd::Interrupted(payload) => {
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
            let updates: Vec<S::Update> = cursor
                .done
                .iter_mut()
                .map(|d| d.take().unwrap_or_default())
                .collect();
            Arc::make_mut(&mut cursor.state)
                .apply(updates)
                .inspect_err(|e| {
                    emit(&opts.events, || Event::RunFailed {
                        error: e.to_string(),
                    });
                })?;

            let mut next = Vec::new();
            let mut seen = vec![false; self.nodes.len()];
            let mut after = Vec::new();
            for task in &cursor.tasks {
                let from = &self.nodes[task.node].name;
                for edge in &self.out[task.node] {
                    self.follow(from, edge, &cursor.state, &mut next, &mut seen)?;
                }
                if self.interrupt_after[task.node] {
                    after.push(from.to_string());
                }
            }
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
                let record = self.record(opts, &cursor, snapshot)?;
                cursor.bytes_since_snapshot += record.body.len();
                cp.put_checkpoint(record, carried).await?;
                let seq = cursor.seq;
                emit(&opts.events, || Event::CheckpointSaved { checkpoint: seq });
            }
            if let Some(pause) = pause {
                return self.pause(cursor, opts, pause, true).await;
            }
        }
    }

    /// The static pause due before the current step, if any of its unfinished tasks asks for one.
    fn pause_before(&self, cursor: &Cursor<S>) -> Option<PauseRecord> {
        let nodes: Vec<String> = cursor
            .tasks
            .iter()
            .zip(&cursor.done)
            .filter(|(t, d)| d.is_none() && self.interrupt_before[t.node])
            .map(|(t, _)| self.nodes[t.node].name.to_string())
            .collect();
        (!nodes.is_empty()).then_some(PauseRecord {
            kind: InterruptKind::Before,
            nodes,
        })
    }

    /// Saves carried writes when the run stops before its next checkpoint.
    async fn flush(&self, cursor: &mut Cursor<S>) -> Result<(), GraphError> {
        if let Some(cp) = &self.checkpointer {
            let carry = std::mem::take(&mut cursor.carry);
            if !carry.is_empty() {
                cp.put_writes(carry).await?;
            }
        }
        Ok(())
    }

    /// Stops the run at a static pause; `saved` when the pause went out with the checkpoint.
    async fn pause(
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

    /// Runs the unfinished tasks of the current step; `None` when cancelled.
    async fn run_step(
        &self,
        cursor: &Cursor<S>,
        opts: &RunOptions<C>,
        empty: &Arc<[Value]>,
    ) -> Option<Vec<(usize, TaskEnd<S::Update>)>> {
        let pending: Vec<usize> = (0..cursor.tasks.len())
            .filter(|&i| cursor.done[i].is_none())
            .collect();
        // A lone task's write travels with the next checkpoint in one transaction: same
        // durability (if the process dies first, the task simply runs again), one commit fewer.
        let save_each = pending.len() > 1;
        let make = |i: usize| {
            let task = &cursor.tasks[i];
            let resume = if cursor.resume[i].is_empty() {
                empty.clone()
            } else {
                Arc::from(cursor.resume[i].clone())
            };
            let input = match &task.input {
                Some(v) => TaskInput::Sent(v.clone()),
                None => TaskInput::State(cursor.state.clone()),
            };
            self.run_task(
                i,
                task.node,
                input,
                resume,
                cursor.seq,
                cursor.step,
                opts,
                save_each,
            )
            .map(move |end| (i, end))
        };
        if pending.len() == 1 {
            let fut = make(pending[0]);
            return tokio::select! {
                biased;
                _ = opts.cancel.cancelled() => None,
                end = fut => Some(vec![end]),
            };
        }
        let mut queue = pending.into_iter();
        let mut running = FuturesUnordered::new();
        for i in queue.by_ref().take(opts.max_concurrency.max(1)) {
            running.push(make(i));
        }
        let mut ends = Vec::with_capacity(cursor.tasks.len());
        loop {
            tokio::select! {
                biased;
                _ = opts.cancel.cancelled() => return None,
                end = running.next() => match end {
                    Some(end) => {
                        ends.push(end);
                        if let Some(i) = queue.next() {
                            running.push(make(i));
                        }
                    }
                    None => break,
                },
            }
        }
        ends.sort_by_key(|(i, _)| *i);
        Some(ends)
    }

    #[allow(clippy::too_many_arguments)]
    async fn run_task(
        &self,
        index: usize,
        node_index: usize,
        input: TaskInput<S>,
        resume: Arc<[Value]>,
        seq: u64,
        step: u64,
        opts: &RunOptions<C>,
        save_each: bool,
    ) -> TaskEnd<S::Update> {
        let node = &self.nodes[node_index];
        emit(&opts.events, || Event::NodeStarted {
            step,
            task: index as u32,
            node: node.name.to_string(),
        });
        let mut attempt = 0;
        let result = loop {
            attempt += 1;
            let ctx = NodeCtx {
                config: opts.config.clone(),
                cancel: opts.cancel.clone(),
                clock: opts.clock.clone(),
                node: node.name.clone(),
                step,
                task: index as u32,
                sink: opts.events.clone(),
                resume: resume.clone(),
                interrupts_seen: AtomicUsize::new(0),
            };
            let fut = AssertUnwindSafe((node.run)(input.clone(), ctx)).catch_unwind();
            let result = match node.timeout {
                Some(limit) => match tokio::time::timeout(limit, fut).await {
                    Ok(r) => r,
                    Err(_) => Ok(Err(NodeError::Timeout(limit))),
                },
                None => fut.await,
            };
            match result {
                Err(panic) => break Err(TaskEnd::Panicked(panic_message(&panic))),
                Ok(Ok(update)) => break Ok(update),
                Ok(Err(NodeError::Interrupted(payload))) => {
                    break Err(TaskEnd::Interrupted(payload))
                }
                Ok(Err(e)) if attempt < node.retry.max_attempts && (node.retry.retry_on)(&e) => {
                    let delay = node.retry.delay(attempt);
                    emit(&opts.events, || Event::NodeRetrying {
                        node: node.name.to_string(),
                        attempt,
                        error: e.to_string(),
                        delay_ms: delay.as_millis() as u64,
                    });
                    tokio::time::sleep(delay).await;
                }
                Ok(Err(e)) => {
                    break Err(TaskEnd::Failed {
                        attempts: attempt,
                        message: e.to_string(),
                    })
                }
            }
        };
        let cp = self.checkpointer.as_ref();
        match result {
            Ok(update) => {
                let mut saved_bytes = None;
                if let (Some(cp), true) = (cp, save_each) {
                    let write = match self.write(
                        &opts.thread_id,
                        seq,
                        index as i64,
                        WriteKind::Update,
                        0,
                        &update,
                    ) {
                        Ok(w) => w,
                        Err(e) => {
                            return TaskEnd::Failed {
                                attempts: attempt,
                                message: e.to_string(),
                            }
                        }
                    };
                    saved_bytes = Some(write.value.len());
                    if let Err(e) = cp.put_writes(vec![write]).await {
                        return TaskEnd::SaveFailed(e);
                    }
                }
                if let Some(sink) = &opts.events {
                    let update = if sink.wants_updates() {
                        serde_json::to_value(&update).unwrap_or(Value::Null)
                    } else {
                        Value::Null
                    };
                    sink.emit(Event::NodeFinished {
                        step,
                        task: index as u32,
                        node: node.name.to_string(),
                        update,
                    });
                }
                TaskEnd::Done {
                    update,
                    saved_bytes,
                }
            }
            Err(end) => {
                if let Some(cp) = cp {
                    let write = match &end {
                        TaskEnd::Interrupted(payload) => self.write(
                            &opts.thread_id,
                            seq,
                            index as i64,
                            WriteKind::Interrupt,
                            resume.len() as u32,
                            payload,
                        ),
                        TaskEnd::Failed { message, .. } | TaskEnd::Panicked(message) => self.write(
                            &opts.thread_id,
                            seq,
                            index as i64,
                            WriteKind::Error,
                            0,
                            message,
                        ),
                        _ => return end,
                    };
                    match write {
                        Ok(w) => {
                            if let Err(e) = cp.put_writes(vec![w]).await {
                                return TaskEnd::SaveFailed(e);
                            }
                        }
                        Err(e) => {
                            return TaskEnd::Failed {
                                attempts: attempt,
                                message: e.to_string(),
                            }
                        }
                    }
                }
                end
            }
        }
    }

    fn follow(
        &self,
        from: &str,
        edge: &Edge<S>,
        state: &S,
        next: &mut Vec<Task>,
        seen: &mut [bool],
    ) -> Result<(), GraphError> {
        let mut to_node = |name: &str, next: &mut Vec<Task>| -> Result<(), GraphError> {
            if name == crate::graph::END {
                return Ok(());
            }
            let &i = self.index.get(name).ok_or_else(|| GraphError::Routing {
                from: from.to_string(),
                message: format!("there is no node `{name}`"),
            })?;
            if !seen[i] {
                seen[i] = true;
                next.push(Task {
                    node: i,
                    input: None,
                });
            }
            Ok(())
        };
        match edge {
            Edge::Static(to) => to_node(to, next),
            Edge::Conditional { router, .. } => {
                for route in router(state).0 {
                    match route {
                        Route::End => {}
                        Route::To(name) => to_node(&name, next)?,
                        Route::Send(send) => {
                            let &i =
                                self.index
                                    .get(&send.node)
                                    .ok_or_else(|| GraphError::Routing {
                                        from: from.to_string(),
                                        message: format!("Send to unknown node `{}`", send.node),
                                    })?;
                            let input = send.input.map_err(|e| GraphError::Routing {
                                from: from.to_string(),
                                message: format!(
                                    "the input sent to `{}` could not be serialised: {e}",
                                    send.node
                                ),
                            })?;
                            next.push(Task {
                                node: i,
                                input: Some(input),
                            });
                        }
                    }
                }
                Ok(())
            }
        }
    }

    fn specs(&self, tasks: &[Task]) -> Vec<TaskSpec> {
        tasks
            .iter()
            .map(|t| TaskSpec {
                node: self.nodes[t.node].name.to_string(),
                input: t.input.clone(),
            })
            .collect()
    }

    fn record(
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

    fn write(
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

    fn pending_interrupts(&self, cursor: &Cursor<S>) -> Vec<Interrupt> {
        let mut out: Vec<Interrupt> = cursor
            .waiting
            .iter()
            .map(|(task, idx, payload)| Interrupt {
                id: interrupt_id(cursor.seq, *task, *idx),
                node: self.nodes[cursor.tasks[*task].node].name.to_string(),
                kind: InterruptKind::Dynamic,
                payload: payload.clone(),
            })
            .collect();
        if let Some(pause) = &cursor.pause {
            out.extend(pause.nodes.iter().map(|node| Interrupt {
                id: format!(
                    "{}:{}",
                    cursor.seq,
                    match pause.kind {
                        InterruptKind::After => "after",
                        _ => "before",
                    }
                ),
                node: node.clone(),
                kind: pause.kind,
                payload: Value::Null,
            }));
        }
        out
    }

    /// Rebuilds the thread at the chain's last checkpoint: snapshot, then every finished step's
    /// writes in order, then what the last step has saved so far.
    fn rebuild(&self, chain: CheckpointChain) -> Result<Cursor<S>, GraphError> {
        let CheckpointChain {
            checkpoints,
            writes,
        } = chain;
        let first = checkpoints.first().ok_or_else(|| {
            GraphError::Checkpoint(crate::checkpoint::CheckpointError::Storage(
                "empty chain".into(),
            ))
        })?;
        let snapshot = first.snapshot.as_ref().ok_or_else(|| {
            GraphError::Checkpoint(crate::checkpoint::CheckpointError::Storage(
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
        })
    }
}

fn interrupt_id(seq: u64, task: usize, idx: u32) -> String {
    format!("{seq}:{task}:{idx}")
}

fn emit(sink: &Option<Arc<dyn EventSink>>, event: impl FnOnce() -> Event) {
    if let Some(sink) = sink {
        sink.emit(event());
    }
}

fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}
